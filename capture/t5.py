"""T5: an encoder-decoder whose attention is not scaled (no ÷√d_k: the initialisation of its
query weights takes that part) and whose only position signal is a learned relative position
bias: each head adds a number looked up by the (bucketed) distance j − i to every score. The
first layer of each stack holds the table (``relative_attention_bias``) and hands the bias it
computes to the later layers; the scenario holds it as the ``bias`` array (heads × T_q × T_k)
of the Bias stage. The decoder's cross-attention has no position bias. ``q``, ``k``, ``v`` and
``o`` are Linear layers without biases.
"""

from __future__ import annotations

import numpy as np

from attn_tui.capture import projections
from attn_tui.capture.projections import Run
from attn_tui.capture.run_to_layer import Site, as_numpy

NAME = "T5"


def _attention(block, part: str):
    return block.layer[1].EncDecAttention if part == "cross" else block.layer[0].SelfAttention


def _stack(model, part: str):
    return model.encoder if part == "encoder" else model.decoder


def sites(model, part: str) -> list[Site]:
    found = []
    for block in _stack(model, part).block:
        attention = _attention(block, part)
        found.append(
            Site(attention, {"q": attention.q, "k": attention.k, "v": attention.v}, weights_at=2)
        )
    return found


def layer(model, number: int, recorded, run: Run):
    attention = _attention(_stack(model, run.part).block[number], run.part)
    Q, K, V = projections.separate(recorded, attention.key_value_proj_dim)
    bias = as_numpy(recorded.attention_outputs[1])  # (H, T_q, T_k): zeros for cross-attention
    captured = projections.layer(
        NAME,
        recorded,
        Q,
        K,
        V,
        attention.o,
        divisor=1.0,
        mask=projections.given_mask(recorded, "mask"),
        causal=run.part == "decoder",
        padding=run.padding if run.part != "decoder" else None,
        cross=run.part == "cross",
        bias=bias if np.any(bias) else None,
        position="relative" if np.any(bias) else None,
        inputs=_inputs(run.part),
    )
    captured.notes.append(
        "T5 does not scale its scores (no ÷√d_k): the scale is off, as the model computes it."
    )
    if captured.bias is not None:
        captured.notes.append(
            "Position enters only through T5's relative position bias: the Bias stage adds to "
            "each score a learned number per head for the distance between query and key "
            "(the bias array, one T × T matrix per head)."
        )
    return captured


def _inputs(part: str) -> str:
    if part == "encoder":
        return (
            "Q, K and V are the encoder layer's projections q, k and v of its input, the "
            "residual stream after RMS LayerNorm."
        )
    if part == "decoder":
        return (
            "Q, K and V are the decoder layer's projections q, k and v of its input (the "
            "target tokens so far), after RMS LayerNorm."
        )
    return (
        "Cross-attention: Q is the decoder layer's projection q of the target tokens; K and "
        "V are its projections k and v of the encoder's final output (the source text)."
    )
