"""Gemma 2: Gemma's attention (see capture.llama) with three differences, each from the module
itself: the scores are multiplied by ``query_pre_attn_scalar``^(−1/2) rather than 1/√head_dim
(``scale: √s``); the scaled scores are softcapped, c·tanh(x / c) with c =
``attn_logit_softcapping`` (the Softcap stage); and every other layer (``layer_types``
``sliding_attention``) sees only a sliding window of the most recent tokens."""

from __future__ import annotations

from attn_tui.capture import llama
from attn_tui.capture.projections import Run

NAME = "Gemma 2"
sites = llama.sites


def layer(model, number: int, recorded, run: Run):
    attention = model.layers[number].self_attn
    captured = llama.decoder_layer(
        NAME,
        model,
        number,
        recorded,
        window=getattr(attention, "sliding_window", None),
        softcap=getattr(attention, "attn_logit_softcapping", None),
    )
    scalar = getattr(model.config, "query_pre_attn_scalar", None)
    if scalar is not None:
        captured.notes.append(
            f"The scores are divided by √query_pre_attn_scalar = √{scalar:g}, "
            f"not by √d_k = √{captured.d_k}."
        )
    return captured
