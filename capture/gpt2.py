"""GPT-2: learned position embeddings, LayerNorm before attention, one fused projection.

``c_attn`` is a Conv1D (x·W + b, W of d_model × 3·d_model) whose output is split into Q, K and
V, each then into heads of d_model / H columns; ``c_proj`` is the output projection, also x·W + b,
so Wo is its weight as stored. The scores are divided by √d_k (optionally also by the layer's
number, ``scale_attn_by_inverse_layer_idx``): the module's own ``scaling`` says which.
"""

from __future__ import annotations

import torch

from attn_tui.capture.captured_layer import CapturedLayer
from attn_tui.capture.run_to_layer import as_numpy, run_to_attention

NAME = "GPT-2"


def divisor(attention: torch.nn.Module) -> float:
    """What the scores are divided by: the module's own ``scaling`` where it has one
    (transformers 5.1 on), else what older releases' eager attention computes from the flags."""
    if hasattr(attention, "scaling"):
        return 1.0 / attention.scaling
    value = attention.head_dim ** 0.5 if attention.scale_attn_weights else 1.0
    if attention.scale_attn_by_inverse_layer_idx:
        value *= attention.layer_idx + 1
    return value


def layers(model: torch.nn.Module) -> torch.nn.ModuleList:
    return model.h


def capture(model: torch.nn.Module, input_ids: list[int], layer: int) -> CapturedLayer:
    """Layer ``layer``'s attention on ``input_ids``: see the module's docstring."""
    attention = model.h[layer].attn
    recorded = run_to_attention(model, input_ids, attention, {"qkv": attention.c_attn})
    qkv = as_numpy(recorded.outputs["qkv"])  # (T, 3·d_model): what the model split into Q, K, V
    width, heads, d = attention.embed_dim, attention.num_heads, attention.head_dim

    def by_head(columns):
        return columns.reshape(len(input_ids), heads, d).transpose(1, 0, 2)

    return CapturedLayer(
        family=NAME,
        Q=by_head(qkv[:, :width]), K=by_head(qkv[:, width:2 * width]),
        V=by_head(qkv[:, 2 * width:]),
        Wo=as_numpy(attention.c_proj.weight, batch=False),
        bo=as_numpy(attention.c_proj.bias, batch=False),
        divisor=divisor(attention),
        model_weights=recorded.attention_weights[0].to(torch.float32).numpy(),
        model_output=as_numpy(recorded.attention_output),
        inputs=("Q, K and V are the layer's own fused projection c_attn (biases included) of its "
                "input, the residual stream after LayerNorm ln_1; learned position embeddings "
                "were added to the tokens' embeddings before layer 0, so position is already "
                "inside them."),
    )
