"""BERT and RoBERTa: encoders. Every token sees every other (no causal mask), except padding;
``[CLS]``/``[SEP]`` (``<s>``/``</s>``) are tokens like any other. ``query``, ``key`` and
``value`` are Linear layers with biases; the attention output before the residual is
``attention.output.dense`` (x·Wᵀ + b) of the heads' concatenation (its LayerNorm comes after
the residual is added). Scores are divided by √d_k.
"""

from __future__ import annotations

from attn_tui.capture import projections
from attn_tui.capture.projections import Run
from attn_tui.capture.run_to_layer import Site

NAME = "BERT"


def sites(model, part: str) -> list[Site]:
    return [
        Site(
            block.attention.self,
            {
                "q": block.attention.self.query,
                "k": block.attention.self.key,
                "v": block.attention.self.value,
            },
            output=block.attention.output.dense,
        )
        for block in model.encoder.layer
    ]


def layer(model, number: int, recorded, run: Run):
    block = model.encoder.layer[number].attention
    name = "RoBERTa" if model.config.model_type == "roberta" else NAME
    Q, K, V = projections.separate(recorded, block.self.attention_head_size)
    return projections.layer(
        name,
        recorded,
        Q,
        K,
        V,
        block.output.dense,
        divisor=1.0 / block.self.scaling,
        mask=projections.given_mask(recorded),
        causal=False,
        padding=run.padding,
        position="learned",
        inputs=(
            "Q, K and V are the layer's own projections query, key and value (biases "
            "included) of its input: token, position and segment embeddings after "
            "LayerNorm for layer 0, the previous layer's output after it."
        ),
    )
