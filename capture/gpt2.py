"""GPT-2: learned position embeddings, LayerNorm before attention, one fused projection.

``c_attn`` is a Conv1D (x·W + b, W of d_model × 3·d_model) whose output is split into Q, K and
V, each then into heads of d_model / H columns; ``c_proj`` is the output projection, also x·W + b,
so Wo is its weight as stored. The scores are divided by √d_k (optionally also by the layer's
number, ``scale_attn_by_inverse_layer_idx``): the module's own ``scaling`` says which.
"""

from __future__ import annotations

import torch

from attn_tui.capture.captured_layer import CapturedLayer
from attn_tui.capture.projections import Run, by_head, given_mask
from attn_tui.capture.run_to_layer import Recorded, Site, as_numpy, visible_from_mask, weights_of

NAME = "GPT-2"


def divisor(attention: torch.nn.Module) -> float:
    """What the scores are divided by: the module's own ``scaling`` where it has one
    (transformers 5.1 on), else what older releases' eager attention computes from the flags."""
    if hasattr(attention, "scaling"):
        return 1.0 / attention.scaling
    value = attention.head_dim**0.5 if attention.scale_attn_weights else 1.0
    if attention.scale_attn_by_inverse_layer_idx:
        value *= attention.layer_idx + 1
    return value


def sites(model: torch.nn.Module, part: str) -> list[Site]:
    return [Site(block.attn, {"qkv": block.attn.c_attn}) for block in model.h]


def layer(model: torch.nn.Module, number: int, recorded: Recorded, run: Run) -> CapturedLayer:
    """Layer ``number``'s attention, from what one run recorded: see the module's docstring."""
    attention = model.h[number].attn
    qkv = as_numpy(recorded.outputs["qkv"])  # (T, 3·d_model): what the model split into Q, K, V
    width, d = attention.embed_dim, attention.head_dim
    return CapturedLayer(
        family=NAME,
        Q=by_head(qkv[:, :width], d),
        K=by_head(qkv[:, width : 2 * width], d),
        V=by_head(qkv[:, 2 * width :], d),
        Wo=as_numpy(attention.c_proj.weight, batch=False),
        bo=as_numpy(attention.c_proj.bias, batch=False),
        divisor=divisor(attention),
        model_weights=weights_of(recorded),
        model_output=as_numpy(recorded.attention_output),
        model_visible=visible_from_mask(given_mask(recorded)),
        position="learned",
        inputs=(
            "Q, K and V are the layer's own fused projection c_attn (biases included) of its "
            "input, the residual stream after LayerNorm ln_1; learned position embeddings "
            "were added to the tokens' embeddings before layer 0, so position is already "
            "inside them."
        ),
    )
