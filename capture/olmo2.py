"""OLMo 2: Llama's attention (see capture.llama) with QK-norm over the whole projection, every
head at once, before the split into heads (capture.qk_norm)."""

from __future__ import annotations

from attn_tui.capture import qk_norm
from attn_tui.capture.projections import Run

NAME = "OLMo 2"
sites = qk_norm.sites


def layer(model, number: int, recorded, run: Run):
    return qk_norm.normed_layer(NAME, model, number, recorded, qk_norm.WHOLE)
