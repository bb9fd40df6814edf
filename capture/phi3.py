"""Phi-3: Llama's attention (see capture.llama) with one fused projection ``qkv_proj`` whose
columns are all the query heads, then the key heads, then the value heads; partial rotary when
the config's ``partial_rotary_factor`` is below 1, and a sliding window when it has one."""

from __future__ import annotations

from attn_tui.capture import llama
from attn_tui.capture.projections import Run, by_head
from attn_tui.capture.run_to_layer import Site, as_numpy

NAME = "Phi-3"


def sites(model, part: str) -> list[Site]:
    return [Site(block.self_attn, {"qkv": block.self_attn.qkv_proj}) for block in model.layers]


def layer(model, number: int, recorded, run: Run):
    attention = model.layers[number].self_attn
    d, H = attention.head_dim, model.config.num_attention_heads
    G = attention.num_key_value_heads
    qkv = as_numpy(recorded.outputs["qkv"])
    Q = by_head(qkv[:, : H * d], d)
    K = by_head(qkv[:, H * d : (H + G) * d], d)
    V = by_head(qkv[:, (H + G) * d :], d)
    return llama.decoder_layer(
        NAME,
        model,
        number,
        recorded,
        Q,
        K,
        V,
        window=getattr(model.config, "sliding_window", None),
        inputs=(
            "Q, K and V are the layer's own fused projection qkv_proj of its input (the "
            "residual stream after RMSNorm), split into the query heads, then the key "
            "heads, then the value heads."
        ),
    )
