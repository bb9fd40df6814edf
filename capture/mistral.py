"""Mistral: Llama's attention (see capture.llama), with a sliding window on every layer when the
config has one (``sliding_window``): each token sees itself and the w − 1 tokens before it."""

from __future__ import annotations

from attn_tui.capture import llama
from attn_tui.capture.projections import Run

NAME = "Mistral"
sites = llama.sites


def layer(model, number: int, recorded, run: Run):
    return llama.decoder_layer(
        NAME, model, number, recorded, window=getattr(model.config, "sliding_window", None)
    )
