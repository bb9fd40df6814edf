"""QK-norm, as Qwen3, Gemma 3 and OLMo 2 apply it: q and k each put through an RMSNorm with a
learned gain before RoPE, so that the scores stay bounded whatever the size of x. Qwen3 and
Gemma 3 normalise each head's d dimensions (``q_norm``, ``k_norm`` over head_dim; Gemma's gain
is 1 + w); OLMo 2 normalises the whole projection before it is split into heads.

The scenario holds Q and K as projected (q_proj, k_proj) and ``qk_norm: {style, q_weight,
k_weight, eps}`` with the modules' own gains and ε, so the norm is the scenario's QK-norm step;
the capture's check puts Q and K through that norm and the model's own rotation and compares
the weights with the model's. Where the step cannot say it (OLMo 2's whole-projection norm with
grouped keys, which the step does not take; a scaled RoPE, which the scenario writes already
rotated, after the norm), the scenario holds Q and K as they leave the norm instead, the model's own
vectors, and the description says they were normalised, and by which module.
"""

from __future__ import annotations

import numpy as np

from attn_tui.capture import llama
from attn_tui.capture.agreement import normed
from attn_tui.capture.projections import by_head
from attn_tui.capture.rotary import rotate_half_pairs
from attn_tui.capture.run_to_layer import Site, as_numpy
from attn_tui.core.reading.qk_norm import QKNormSetting

# how a norm's output is laid out: (1, T, n, d) per head (Qwen3); (1, n, T, d) per head, heads
# first (Gemma 3); (1, T, n·d), the whole projection (OLMo 2)
PER_HEAD, HEADS_FIRST, WHOLE = "per head", "per head, heads first", "whole projection"


def sites(model, part: str) -> list[Site]:
    found = []
    for block in model.layers:
        attention = block.self_attn
        record = {
            "v": attention.v_proj,
            "q": attention.q_norm,
            "k": attention.k_norm,
            "q_proj": attention.q_proj,
            "k_proj": attention.k_proj,
        }
        found.append(Site(attention, record))
    return found


def heads(tensor, d: int) -> np.ndarray:
    """A norm's output as (heads, T, d): (1, T, n·d) split into heads; (1, T, n, d), the
    view Qwen3 normalises; (1, n, T, d), already transposed as Gemma 3 normalises it."""
    array = as_numpy(tensor)
    if array.ndim == 2:
        return by_head(array, d)
    return array


STYLES = {PER_HEAD: "qwen3", HEADS_FIRST: "gemma3", WHOLE: "olmo2"}


def _weight(norm) -> tuple[float, ...]:
    return tuple(float(w) for w in as_numpy(norm.weight, batch=False))


def normed_layer(name: str, model, number: int, recorded, layout: str, gain: str = "", **options):
    """Layer ``number`` with QK-norm as a step, or Q and K after the module's q_norm and k_norm
    where the step cannot say it (see the module's docstring); ``layout``, how the norm's output
    is laid out (PER_HEAD, HEADS_FIRST, WHOLE); ``gain``, how the gain is written when it is not
    plain w (" of 1 + w")."""
    attention = model.layers[number].self_attn
    d = attention.head_dim
    Q, K = (heads(recorded.outputs[name_], d) for name_ in ("q", "k"))
    if layout == PER_HEAD:
        Q, K = Q.transpose(1, 0, 2), K.transpose(1, 0, 2)
    V = by_head(as_numpy(recorded.outputs["v"]), d)
    norm = (
        "each head's vector of d dimensions"
        if layout != WHOLE
        else "the whole projection, every head at once, before it is split into heads"
    )
    what = (
        "Q, K and V are the layer's own projections q_proj, k_proj and v_proj of its input "
        f"(the residual stream after RMSNorm), Q and K then put through QK-norm: an RMSNorm "
        f"with a learned gain{gain} (q_norm, k_norm) over {norm}."
    )
    captured = llama.decoder_layer(name, model, number, recorded, Q, K, V, **options)
    q_norm, k_norm = attention.q_norm, attention.k_norm
    eps = float(getattr(q_norm, "variance_epsilon", getattr(q_norm, "eps", 1e-6)))
    stepped = (captured.rope_base is not None or captured.position == "nope") and (
        layout != WHOLE or captured.heads == captured.kv_heads
    )
    if stepped:
        captured.Q, captured.K = (
            by_head(as_numpy(recorded.outputs[name_]), d) for name_ in ("q_proj", "k_proj")
        )
        captured.qk_norm = QKNormSetting(STYLES[layout], _weight(q_norm), _weight(k_norm), eps)
        if captured.rope_base is not None:
            # the scenario's norm, then the model's own rotation: the capture's check then
            # tests the written gains and ε against the model's weights, not only its vectors
            cos, sin = (as_numpy(part) for part in recorded.attention_inputs["position_embeddings"])
            captured.Q_rotated, captured.K_rotated = (
                rotate_half_pairs(normed(x, captured.qk_norm, kind), cos, sin)
                for x, kind in ((captured.Q, "q"), (captured.K, "k"))
            )
        captured.inputs = (
            what + " Q and K here are as projected; the QK-norm step divides each by its root "
            f"mean square, √(mean(x²) + {eps:g}), and multiplies it by the gain (qk_norm:)."
        )
    else:
        captured.inputs = (
            what + " Q and K here are the norm's output, the vectors the model rotates and "
            "multiplies; the norm is not a step of this scenario."
        )
    return captured
