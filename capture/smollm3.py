"""SmolLM3: Llama's attention (see capture.llama), except that some layers have no position
embedding at all (NoPE): ``no_rope_layers`` in the config says, layer by layer, whether RoPE
turns Q and K there (1) or not (0; by default every fourth layer). A NoPE layer's scenario has
no ``rope:``, and its index entry says ``position: nope``. Sliding windows, where the config
asks for them, as Qwen2's."""

from __future__ import annotations

from attn_tui.capture import llama
from attn_tui.capture.projections import Run

NAME = "SmolLM3"
sites = llama.sites


def layer(model, number: int, recorded, run: Run):
    attention = model.layers[number].self_attn
    return llama.decoder_layer(
        NAME,
        model,
        number,
        recorded,
        window=getattr(attention, "sliding_window", None),
        rope=bool(attention.use_rope),
    )
