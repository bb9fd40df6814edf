"""DistilBERT: BERT's encoder attention (no causal mask, padding hidden) with ``q_lin``,
``k_lin``, ``v_lin`` and the output projection ``out_lin`` inside the attention module; no
segment ids."""

from __future__ import annotations

from attn_tui.capture import projections
from attn_tui.capture.projections import Run
from attn_tui.capture.run_to_layer import Site

NAME = "DistilBERT"


def sites(model, part: str) -> list[Site]:
    return [
        Site(
            block.attention,
            {"q": block.attention.q_lin, "k": block.attention.k_lin, "v": block.attention.v_lin},
        )
        for block in model.transformer.layer
    ]


def layer(model, number: int, recorded, run: Run):
    attention = model.transformer.layer[number].attention
    Q, K, V = projections.separate(recorded, attention.attention_head_size)
    return projections.layer(
        NAME,
        recorded,
        Q,
        K,
        V,
        attention.out_lin,
        divisor=1.0 / attention.scaling,
        mask=projections.given_mask(recorded),
        causal=False,
        padding=run.padding,
        position="sinusoidal" if model.config.sinusoidal_pos_embds else "learned",
        inputs=(
            "Q, K and V are the layer's own projections q_lin, k_lin and v_lin (biases "
            "included) of its input: token and position embeddings after LayerNorm for "
            "layer 0, the previous layer's output after it."
        ),
    )
