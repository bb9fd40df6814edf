"""Gemma: Llama's attention (see capture.llama) with a head_dim of its own (not
hidden_size / heads), so Q·Kᵀ is divided by √head_dim of the config's head_dim."""

from __future__ import annotations

from attn_tui.capture import llama
from attn_tui.capture.projections import Run

NAME = "Gemma"
sites = llama.sites


def layer(model, number: int, recorded, run: Run):
    return llama.decoder_layer(NAME, model, number, recorded)
