"""Bloom: no position embeddings at all; position enters as ALiBi, a bias on the scaled scores
that grows with distance. ``query_key_value`` is one fused projection laid out head by head
(as GPT-NeoX), the scores are divided by √head_dim, and the output projection ``dense`` has a
bias (the attention module adds the residual itself, so the output is ``dense``'s).

Bloom adds slope·j (the key's position) to row i rather than ALiBi's −slope·|i − j|: under the
causal mask the two differ by slope·i, the same for every key of a row, and softmax ignores a
constant added to a row, so the weights are the same. The scenario says ``alibi: true``, whose
Bias stage shows the paper's −slope·|i − j| (the distance is what to read), rather than an
H × T × T array of Bloom's own numbers, which would be the bulk of the file (a 16-head layer at
T = 512 is 32 MB of biases) and only look stranger.
"""

from __future__ import annotations

from attn_tui.capture import projections
from attn_tui.capture.projections import Run, interleaved_qkv
from attn_tui.capture.run_to_layer import Site, as_numpy

NAME = "Bloom"


def sites(model, part: str) -> list[Site]:
    return [
        Site(
            block.self_attention,
            {"qkv": block.self_attention.query_key_value},
            output=block.self_attention.dense,
        )
        for block in model.h
    ]


def layer(model, number: int, recorded, run: Run):
    attention = model.h[number].self_attention
    d = attention.head_dim
    Q, K, V = interleaved_qkv(as_numpy(recorded.outputs["qkv"]), attention.num_heads, d)
    captured = projections.layer(
        NAME,
        recorded,
        Q,
        K,
        V,
        attention.dense,
        divisor=1.0 / attention.inv_norm_factor,
        mask=projections.given_mask(recorded),
        alibi=True,
        position="alibi",
        inputs=(
            "Q, K and V are the layer's own fused projection query_key_value (biases "
            "included) of its input, the residual stream after LayerNorm, each head's "
            "q, k and v side by side."
        ),
    )
    captured.notes.append(
        "Position enters only through ALiBi (alibi: true): the Bias stage adds −slope·|i − j| "
        "to the scaled scores, head h's slope 2^(−8h/H) (for H a power of two; Press et al.'s "
        "rule otherwise). Bloom itself adds slope·j; the two "
        "differ by the same amount across each row, which softmax ignores, so the weights are "
        "Bloom's own."
    )
    return captured
