"""Llama: rotary position embeddings (RoPE), grouped-query attention, RMSNorm before attention.

``q_proj``, ``k_proj`` and ``v_proj`` are Linear layers (x·Wᵀ + b) giving H query heads and
G ≤ H key/value heads of ``head_dim`` columns each; query head h reads key/value head
h // (H / G) (``repeat_kv``). Q and K are then rotated by RoPE: dimension j pairs with
j + d/2, turned by position · base^(−2j/d). ``o_proj`` is Linear too, so Wo is its weight
transposed. Scores are divided by √head_dim.

With plain RoPE (``rope_type: default``) the scenario holds Q and K before rotation and
``rope: {base}``, so the Rotate stage shows the turn. A scaled RoPE (Llama 3's ``llama3``,
``linear``, ``dynamic``, ``yarn``, …) changes the angles, or multiplies them by a factor, in ways
``{base}`` cannot write: then the scenario holds Q and K rotated exactly as the model rotated
them, without ``rope:``, and says so in its description (the numbers stay the model's own;
only the Rotate stage is not shown).
"""

from __future__ import annotations

import numpy as np
import torch

from attn_tui.capture.captured_layer import CapturedLayer
from attn_tui.capture.run_to_layer import as_numpy, run_to_attention

NAME = "Llama"


def layers(model: torch.nn.Module) -> torch.nn.ModuleList:
    return model.layers


def capture(model: torch.nn.Module, input_ids: list[int], layer: int) -> CapturedLayer:
    """Layer ``layer``'s attention on ``input_ids``: see the module's docstring."""
    attention = model.layers[layer].self_attn
    projections = {"q": attention.q_proj, "k": attention.k_proj, "v": attention.v_proj}
    recorded = run_to_attention(model, input_ids, attention, projections)
    d, T = attention.head_dim, len(input_ids)

    def by_head(name):
        columns = as_numpy(recorded.outputs[name])
        return columns.reshape(T, columns.shape[1] // d, d).transpose(1, 0, 2)

    Q, K, V = by_head("q"), by_head("k"), by_head("v")
    if "position_embeddings" not in recorded.attention_inputs:
        raise RuntimeError("Llama's attention was given no rotary cos/sin (position_embeddings)")
    cos, sin = (as_numpy(part) for part in recorded.attention_inputs["position_embeddings"])
    Q_rotated, K_rotated = rotate_half_pairs(Q, cos, sin), rotate_half_pairs(K, cos, sin)
    base, unusual = plain_rope_base(model.config, model.rotary_emb)
    output = attention.o_proj
    captured = CapturedLayer(
        family=NAME, Q=Q, K=K, V=V,
        Wo=as_numpy(output.weight, batch=False).T,
        bo=None if output.bias is None else as_numpy(output.bias, batch=False),
        divisor=1.0 / attention.scaling,
        model_weights=recorded.attention_weights[0].to(torch.float32).numpy(),
        model_output=as_numpy(recorded.attention_output),
        inputs=("Q, K and V are the layer's own projections q_proj, k_proj and v_proj of its "
                "input, the residual stream after RMSNorm (input_layernorm)."),
    )
    if base is not None:
        captured.rope_base, captured.Q_rotated, captured.K_rotated = base, Q_rotated, K_rotated
        captured.notes.append(
            f"Position enters through rotary embeddings (RoPE, base {base:g}): Q and K here are "
            "before rotation, and the Rotate stage turns each pair of dimensions by its angle.")
    else:
        captured.Q, captured.K = Q_rotated, K_rotated
        captured.notes.append(
            f"This model's rotary embedding is {unusual}, which rope: {{base}} cannot express, "
            "so Q and K here are already rotated, exactly as the model rotated them.")
    if captured.kv_heads < captured.heads:
        group = captured.heads // captured.kv_heads
        captured.notes.append(
            f"Grouped-query attention: {captured.heads} query heads share {captured.kv_heads} "
            f"key/value heads, {group} each (query head h reads key/value head h // {group}).")
    return captured


def plain_rope_base(config, rotary_emb) -> tuple[float | None, str]:
    """RoPE's base when the model's rotary embedding is the plain one that ``rope: {base}``
    describes; otherwise None and what it is instead."""
    parameters = getattr(config, "rope_parameters", None) or {}
    scaling = getattr(config, "rope_scaling", None) or {}  # transformers 4's spelling
    kind = (parameters.get("rope_type") or scaling.get("rope_type") or scaling.get("type")
            or "default")
    base = parameters.get("rope_theta", getattr(config, "rope_theta", None))
    partial = parameters.get("partial_rotary_factor", getattr(config, "partial_rotary_factor", 1.0))
    if kind != "default":
        return None, f"scaled RoPE (rope_type {kind!r})"
    if getattr(rotary_emb, "attention_scaling", 1.0) != 1.0:
        return None, f"RoPE with its cos and sin multiplied by {rotary_emb.attention_scaling:g}"
    if partial not in (None, 1, 1.0):
        return None, f"partial RoPE (only {partial:g} of each head's dimensions turn)"
    if base is None:
        return None, "RoPE of unknown base"
    return float(base), ""


def rotate_half_pairs(x: np.ndarray, cos: np.ndarray, sin: np.ndarray) -> np.ndarray:
    """Hugging Face's ``x·cos + rotate_half(x)·sin``, in float64, for x of shape (heads, T, d)
    and the model's cos, sin of shape (T, d)."""
    half = x.shape[-1] // 2
    turned = np.concatenate([-x[..., half:], x[..., :half]], axis=-1)
    return x * cos + turned * sin
