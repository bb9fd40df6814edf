"""Gemma 3 (``gemma3_text``): Gemma 2's scale (``query_pre_attn_scalar``) and sliding layers
(see capture.gemma2), QK-norm over each head with Gemma's (1 + w) gain (capture.qk_norm), and
two RoPE bases: the sliding (local) layers turn by ``rope_parameters['sliding_attention']``'s
base, the full (global) layers by ``rope_parameters['full_attention']``'s, so each layer's
scenario and index entry carry its own."""

from __future__ import annotations

from attn_tui.capture import qk_norm
from attn_tui.capture.projections import Run

NAME = "Gemma 3"
sites = qk_norm.sites


def layer(model, number: int, recorded, run: Run):
    attention = model.layers[number].self_attn
    captured = qk_norm.normed_layer(
        NAME,
        model,
        number,
        recorded,
        qk_norm.HEADS_FIRST,
        " of 1 + w",
        window=getattr(attention, "sliding_window", None),
        softcap=getattr(attention, "attn_logit_softcapping", None),
        layer_type=model.config.layer_types[number],
    )
    scalar = getattr(model.config, "query_pre_attn_scalar", None)
    if scalar is not None:
        captured.notes.append(
            f"The scores are divided by √query_pre_attn_scalar = √{scalar:g}, "
            f"not by √d_k = √{captured.d_k}."
        )
    return captured
