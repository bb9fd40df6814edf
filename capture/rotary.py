"""Rotary position embeddings as the Llama family applies them, and how a scenario says so.

The model hands its attention cos and sin of shape (T, R): the first R of each head's d
dimensions turn (R < d is partial rotary: GPT-NeoX's rotary_ndims, Phi's
partial_rotary_factor · head_dim), in pairs (j, j + R/2) (``rotate_half``), by position ·
base^(−2j/R). With that plain RoPE the scenario holds Q and K before rotation and
``rope: {base}`` (with ``dims: R`` when R < d), so the Rotate stage shows the turn. A scaled
RoPE (Llama 3's ``llama3``, ``linear``, ``dynamic``, ``yarn``, …) changes the angles, or
multiplies cos and sin by a factor, in ways ``{base}`` cannot write: then the scenario holds Q
and K rotated exactly as the model rotated them, without ``rope:``, and says so.
"""

from __future__ import annotations

import numpy as np

from attn_tui.capture.captured_layer import CapturedLayer
from attn_tui.capture.run_to_layer import Recorded, as_numpy


def rotate_half_pairs(x: np.ndarray, cos: np.ndarray, sin: np.ndarray) -> np.ndarray:
    """Hugging Face's ``x·cos + rotate_half(x)·sin`` on the first R dimensions (R = cos's
    width), in float64, for x of shape (heads, T, d) and the model's cos, sin of shape (T, R)."""
    R = cos.shape[-1]
    turning, passing = x[..., :R], x[..., R:]
    half = R // 2
    turned = np.concatenate([-turning[..., half:], turning[..., :half]], axis=-1)
    return np.concatenate([turning * cos + turned * sin, passing], axis=-1)


def plain_rope_base(config, rotary_emb, layer_type: str | None = None) -> tuple[float | None, str]:
    """RoPE's base when the model's rotary embedding is the plain one that ``rope: {base}``
    describes; otherwise None and what it is instead. ``layer_type``: the parameters of that
    type of layer, where the config gives them by type (Gemma 3's local and global bases)."""
    parameters = getattr(config, "rope_parameters", None) or {}
    scaling = getattr(config, "rope_scaling", None) or {}  # transformers 4's spelling
    attention_scaling = getattr(rotary_emb, "attention_scaling", 1.0)
    if layer_type is not None and isinstance(parameters.get(layer_type), dict):
        parameters = parameters[layer_type]
        attention_scaling = getattr(rotary_emb, f"{layer_type}_attention_scaling", 1.0)
    kind = (
        parameters.get("rope_type") or scaling.get("rope_type") or scaling.get("type") or "default"
    )
    base = parameters.get("rope_theta", getattr(config, "rope_theta", None))
    if kind != "default":
        return None, f"scaled RoPE (rope_type {kind!r})"
    if attention_scaling != 1.0:
        return None, f"RoPE with its cos and sin multiplied by {attention_scaling:g}"
    if base is None:
        return None, "RoPE of unknown base"
    return float(base), ""


def with_rope(
    captured: CapturedLayer,
    recorded: Recorded,
    config,
    rotary_emb,
    layer_type: str | None = None,
) -> CapturedLayer:
    """``captured`` (Q and K before rotation) with the model's rotation: as ``rope:`` when it is
    plain RoPE whose angles are the model's, else Q and K turned as the model turned them."""
    if "position_embeddings" not in recorded.attention_inputs:
        raise RuntimeError(
            f"{captured.family}'s attention was given no rotary cos/sin (position_embeddings)"
        )
    cos, sin = (as_numpy(part) for part in recorded.attention_inputs["position_embeddings"])
    Q_rotated = rotate_half_pairs(captured.Q, cos, sin)
    K_rotated = rotate_half_pairs(captured.K, cos, sin)
    R = cos.shape[-1]
    captured.position = "rope"
    base, unusual = plain_rope_base(config, rotary_emb, layer_type)
    if base is not None and not _angles_are(cos, sin, base, R):
        base, unusual = None, "RoPE whose angles are not position · base^(−2j/R)"
    if base is not None:
        captured.rope_base, captured.Q_rotated, captured.K_rotated = base, Q_rotated, K_rotated
        if R < captured.d_k:
            captured.rope_dims = R
            captured.notes.append(
                f"Position enters through rotary embeddings (RoPE, base {base:g}) on the first "
                f"{R} of each head's {captured.d_k} dimensions only (partial rotary): Q and K "
                "here are before rotation; the Rotate stage turns those pairs and leaves the "
                f"other {captured.d_k - R} dimensions as they are."
            )
        else:
            captured.notes.append(
                f"Position enters through rotary embeddings (RoPE, base {base:g}): Q and K here "
                "are before rotation, and the Rotate stage turns each pair of dimensions by its "
                "angle."
            )
    else:
        captured.Q, captured.K = Q_rotated, K_rotated
        captured.notes.append(
            f"This model's rotary embedding is {unusual}, which rope: {{base}} cannot express, "
            "so Q and K here are already rotated, exactly as the model rotated them."
        )
    return captured


def _angles_are(cos: np.ndarray, sin: np.ndarray, base: float, R: int) -> bool:
    """Whether the model's cos and sin are those of position · base^(−2j/R), pairs (j, j + R/2),
    within float32's rounding of the angles (loose: a wrong base or width is far off)."""
    angles = np.arange(cos.shape[0])[:, None] * base ** (-2.0 * np.arange(R // 2) / R)
    angles = np.concatenate([angles, angles], axis=-1)
    return bool(
        np.allclose(cos, np.cos(angles), atol=1e-2) and np.allclose(sin, np.sin(angles), atol=1e-2)
    )


def grouped_note(captured: CapturedLayer) -> None:
    if captured.kv_heads < captured.heads:
        group = captured.heads // captured.kv_heads
        captured.notes.append(
            f"Grouped-query attention: {captured.heads} query heads share {captured.kv_heads} "
            f"key/value heads, {group} each (query head h reads key/value head h // {group})."
        )
