"""GPT-NeoX (Pythia): one fused projection ``query_key_value`` laid out head by head (each
head's q, k and v side by side), partial rotary (only the first ``rotary_ndims`` =
partial_rotary_factor · head_dim dimensions of each head turn; the Rotate stage shows which),
scores divided by √head_dim, and the output projection ``dense`` with its bias."""

from __future__ import annotations

from attn_tui.capture import projections
from attn_tui.capture.projections import Run, interleaved_qkv
from attn_tui.capture.rotary import with_rope
from attn_tui.capture.run_to_layer import Site, as_numpy

NAME = "GPT-NeoX"


def sites(model, part: str) -> list[Site]:
    return [
        Site(block.attention, {"qkv": block.attention.query_key_value}) for block in model.layers
    ]


def layer(model, number: int, recorded, run: Run):
    attention = model.layers[number].attention
    d = attention.head_size
    Q, K, V = interleaved_qkv(
        as_numpy(recorded.outputs["qkv"]), model.config.num_attention_heads, d
    )
    captured = projections.layer(
        NAME,
        recorded,
        Q,
        K,
        V,
        attention.dense,
        divisor=1.0 / attention.scaling,
        mask=projections.given_mask(recorded),
        inputs=(
            "Q, K and V are the layer's own fused projection query_key_value (biases "
            "included) of its input, the residual stream after LayerNorm, each head's "
            "q, k and v side by side."
        ),
    )
    return with_rope(captured, recorded, model.config, model.rotary_emb)
