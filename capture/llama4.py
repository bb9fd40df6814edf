"""Llama 4 (``llama4_text``): Llama's projections (see capture.llama) on two kinds of layer.

Most layers (``no_rope_layers`` 1) turn Q and K by RoPE in interleaved pairs (2j, 2j + 1): the
model multiplies each pair, as a complex number, by its position's ``freqs_cis``; then, with
``use_qk_norm``, an L2 norm without weight (``Llama4TextL2Norm``: x / √(mean(x²) + ε), after
RoPE); and they attend in chunks (``layer_types`` ``chunked_attention``): a token sees only the
tokens of its own block of ``attention_chunk_size``, up to itself. The others (every fourth by
default) have no position at all (NoPE), no norm, and see every token before them; there, with
``attn_temperature_tuning``, each query is multiplied by its position's temperature,
1 + attn_scale·log(1 + ⌊(p + 1) / floor_scale⌋), which is 1 below floor_scale − 1 tokens.

The scenario holds Q and K as projected (the norm is its QK-norm step, ``qk_norm: {style:
llama4}``; the rotation its Rotate step, ``rope: {…, pairs: interleaved}``), and ``chunk:``; on
a NoPE layer, Q already multiplied by the temperature (computed here in float64, from the
config), which the description says: the temperature is not a step of the scenario.
"""

from __future__ import annotations

import numpy as np
import torch

from attn_tui.capture import llama, projections
from attn_tui.capture.agreement import normed
from attn_tui.capture.projections import Run
from attn_tui.capture.rotary import grouped_note, plain_rope_base
from attn_tui.core.reading.qk_norm import QKNormSetting

NAME = "Llama 4"


def _text_model(model):
    """The text model itself: Llama4ForCausalLM keeps it as ``model`` but names its base model
    ``language_model``, so transformers' ``base_model`` is the whole model there."""
    return model if hasattr(model, "layers") else model.model


def sites(model, part: str):
    return llama.sites(_text_model(model), part)


def temperature(T: int, attn_scale: float, floor_scale: int) -> np.ndarray:
    """Each position's query temperature on a NoPE layer, as Llama4TextAttention computes it."""
    positions = np.arange(T, dtype=np.float64)
    return np.log1p(np.floor((positions + 1.0) / floor_scale)) * attn_scale + 1.0


def _turned(x: np.ndarray, cos: np.ndarray, sin: np.ndarray) -> np.ndarray:
    """x (heads, T, d) times freqs_cis as the model multiplies it: pair (2j, 2j + 1) as one
    complex number, turned by the angle whose cos and sin are column j of ``cos``, ``sin``."""
    evens, odds = x[..., 0::2], x[..., 1::2]
    turned = np.empty_like(x)
    turned[..., 0::2] = evens * cos - odds * sin
    turned[..., 1::2] = odds * cos + evens * sin
    return turned


def layer(model, number: int, recorded, run: Run):
    model = _text_model(model)
    attention = model.layers[number].self_attn
    config = model.config
    Q, K, V = projections.separate(recorded, attention.head_dim)
    rope = bool(attention.use_rope)
    chunked = config.layer_types[number] == "chunked_attention"
    norm = QKNormSetting("llama4", eps=float(config.rms_norm_eps))
    norm = norm if hasattr(attention, "qk_norm") else None
    heated = bool(attention.attn_temperature_tuning) and not rope
    if heated:
        Q = Q * temperature(Q.shape[1], attention.attn_scale, attention.floor_scale)[:, None]
    captured = projections.layer(
        NAME,
        recorded,
        Q,
        K,
        V,
        attention.o_proj,
        divisor=1.0 / attention.scaling,
        inputs=(
            "Q, K and V are the layer's own projections q_proj, k_proj and v_proj of its input, "
            "the residual stream after RMSNorm (input_layernorm)"
            + (
                "; Q here is already multiplied by each position's attention temperature."
                if heated
                else "."
            )
        ),
        mask=projections.given_mask(recorded),
        chunk=config.attention_chunk_size if chunked else None,
        qk_norm=norm,
        position="rope" if rope else "nope",
    )
    if rope:
        _with_rope(captured, recorded, config, model.rotary_emb)
    else:
        captured.notes.append(
            "This layer has no position information at all (NoPE): no rotary embedding and no "
            "QK-norm here; a token tells the others apart only by what earlier layers wrote "
            "into them."
        )
    if heated:
        scales = temperature(captured.T, attention.attn_scale, attention.floor_scale)
        captured.notes.append(
            "Attention temperature: each query is multiplied by 1 + "
            f"{attention.attn_scale:g}·log(1 + ⌊(p + 1) / {attention.floor_scale}⌋) at position "
            f"p (counted from 0), here from {scales[0]:.6g} to {scales[-1]:.6g}, before the "
            "scores; Q holds the product, the temperature is not a step of this scenario."
        )
    if norm is not None:
        captured.notes.append(
            "QK-norm (qk_norm: llama4): after RoPE each query and key is divided by its root "
            f"mean square, √(mean(x²) + {norm.eps:g}), with no weight; RoPE keeps lengths, so "
            "the step shows the same numbers before the rotation."
        )
    if captured.chunk is not None:
        captured.notes.append(
            f"Chunked attention: the text is cut into blocks of {captured.chunk} tokens, and a "
            "token sees only the tokens of its own block, up to itself"
            + (" (the text is shorter than one block)." if captured.T <= captured.chunk else ".")
        )
    grouped_note(captured)
    return captured


def _with_rope(captured, recorded, config, rotary_emb) -> None:
    """The rotation, as ``rope: {base, pairs: interleaved}`` when it is plain RoPE whose angles
    are the model's, else Q and K turned here as the model turned them."""
    freqs = torch.view_as_real(recorded.attention_inputs["position_embeddings"])[0]
    cos, sin = (part.to(torch.float64).numpy() for part in (freqs[..., 0], freqs[..., 1]))
    Q_turned, K_turned = _turned(captured.Q, cos, sin), _turned(captured.K, cos, sin)
    base, unusual = plain_rope_base(config, rotary_emb)
    d = captured.d_k
    if base is not None:
        angles = np.arange(captured.T)[:, None] * base ** (-2.0 * np.arange(d // 2) / d)
        if not np.allclose(cos, np.cos(angles), atol=1e-2):
            base, unusual = None, "RoPE whose angles are not position · base^(−2j/d)"
    if base is None:
        captured.Q, captured.K = Q_turned, K_turned
        captured.notes.append(
            f"This model's rotary embedding is {unusual}, which rope: {{base}} cannot express, "
            "so Q and K here are already rotated, exactly as the model rotated them."
        )
        return
    captured.rope_base, captured.rope_pairs = base, "interleaved"
    captured.Q_rotated = normed(Q_turned, captured.qk_norm, "q")
    captured.K_rotated = normed(K_turned, captured.qk_norm, "k")
    captured.notes.append(
        f"Position enters through rotary embeddings (RoPE, base {base:g}) in interleaved pairs "
        "(2j, 2j + 1), as the model multiplies each pair by a complex number: Q and K here are "
        "before rotation, and the Rotate stage turns them."
    )
