"""Qwen2: Llama's attention (see capture.llama) with biases on q_proj, k_proj and v_proj (they
end up inside the captured Q, K and V), and a sliding window on the layers the config marks
``sliding_attention`` (``use_sliding_window``, from ``max_window_layers`` on)."""

from __future__ import annotations

from attn_tui.capture import llama
from attn_tui.capture.projections import Run

NAME = "Qwen2"
sites = llama.sites


def layer(model, number: int, recorded, run: Run):
    window = getattr(model.layers[number].self_attn, "sliding_window", None)
    return llama.decoder_layer(
        NAME,
        model,
        number,
        recorded,
        window=window,
        inputs=llama.INPUTS.replace("projections q_proj", "projections (with biases) q_proj"),
    )
