"""Qwen3: Llama's attention (see capture.llama) with QK-norm over each head (capture.qk_norm),
and a sliding window on the layers the config makes ``sliding_attention``."""

from __future__ import annotations

from attn_tui.capture import qk_norm
from attn_tui.capture.projections import Run

NAME = "Qwen3"
sites = qk_norm.sites


def layer(model, number: int, recorded, run: Run):
    attention = model.layers[number].self_attn
    return qk_norm.normed_layer(
        NAME,
        model,
        number,
        recorded,
        qk_norm.PER_HEAD,
        window=getattr(attention, "sliding_window", None),
    )
