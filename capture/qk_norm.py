"""QK-norm, as Qwen3, Gemma 3 and OLMo 2 apply it: q and k each put through an RMSNorm with a
learned gain before RoPE, so that the scores stay bounded whatever the size of x. Qwen3 and
Gemma 3 normalise each head's d dimensions (``q_norm``, ``k_norm`` over head_dim; Gemma's gain
is 1 + w); OLMo 2 normalises the whole projection before it is split into heads.

The scenario holds Q and K as they leave the norm (before the rotation): the modules' own
outputs, recorded by hooks, so the weights computed from them are softmax(QKᵀ·scaling) exactly,
as for Llama. The norm itself is not a stage of the scenario yet: the description says the
vectors were normalised, and by which module.
"""

from __future__ import annotations

import numpy as np

from attn_tui.capture import llama
from attn_tui.capture.projections import by_head
from attn_tui.capture.run_to_layer import Site, as_numpy

# how a norm's output is laid out: (1, T, n, d) per head (Qwen3); (1, n, T, d) per head, heads
# first (Gemma 3); (1, T, n·d), the whole projection (OLMo 2)
PER_HEAD, HEADS_FIRST, WHOLE = "per head", "per head, heads first", "whole projection"


def sites(model, part: str) -> list[Site]:
    found = []
    for block in model.layers:
        attention = block.self_attn
        record = {"v": attention.v_proj, "q": attention.q_norm, "k": attention.k_norm}
        found.append(Site(attention, record))
    return found


def heads(tensor, d: int) -> np.ndarray:
    """A norm's output as (heads, T, d): (1, T, n·d) split into heads; (1, T, n, d), the
    view Qwen3 normalises; (1, n, T, d), already transposed as Gemma 3 normalises it."""
    array = as_numpy(tensor)
    if array.ndim == 2:
        return by_head(array, d)
    return array


def normed_layer(name: str, model, number: int, recorded, layout: str, gain: str = "", **options):
    """Layer ``number`` with Q and K after the module's q_norm and k_norm (see the module's
    docstring); ``layout``, how the norm's output is laid out (PER_HEAD, HEADS_FIRST, WHOLE);
    ``gain``, how the gain is written when it is not plain w (" of 1 + w")."""
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
    captured = llama.decoder_layer(
        name,
        model,
        number,
        recorded,
        Q,
        K,
        V,
        inputs=(
            "Q, K and V are the layer's own projections q_proj, k_proj and v_proj of its input "
            f"(the residual stream after RMSNorm), Q and K then put through QK-norm: an RMSNorm "
            f"with a learned gain{gain} (q_norm, k_norm) over {norm}. Q and K here are the "
            "norm's output, the vectors the model rotates and multiplies; the norm is not a "
            "step of this scenario."
        ),
        **options,
    )
    return captured
