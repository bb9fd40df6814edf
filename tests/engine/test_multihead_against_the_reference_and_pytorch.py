"""Multi-head attention, cross-attention and masks beyond causal (issue 13) on random layouts,
checked against the float64 reference (tests/reference.py, not attn_tui.core) stage by stage
and against PyTorch's ``scaled_dot_product_attention``. The layouts, ``build`` and the scenarios
written by hand here are used by the other multi-head tests too."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from attn_tui.core.engine.attention import Attention
from attn_tui.core.model.scenario import Scenario
from tests.reference import attention as reference_attention

# ---- the reference ---------------------------------------------------------------------------


def reference(
    Q,
    K,
    V,
    *,
    heads,
    kv_heads,
    divisor,
    visible,
    mask_value=-math.inf,
    Wo=None,
    bo=None,
    rope_base=None,
    bias=None,
):
    """Every stage of every head, by the float64 reference (tests/reference.py). ``Q`` is
    (heads, T_q, d_k), ``K`` and ``V`` are (kv_heads, T_k, d); ``visible`` is a T_q × T_k bool
    matrix (True = may attend); ``bias`` (heads, T_q, T_k) is added to the scaled scores before
    the mask. Query head h reads key/value head h // (heads / kv_heads). A row that sees nothing
    has weights 0 and is marked ``empty``; without a bias ``biased`` is ``scaled``."""
    assert len(Q) == heads and len(K) == len(V) == kv_heads
    rope_spec = None if rope_base is None else (rope_base, None, "half")
    out, concat, projected = reference_attention(
        Q,
        K,
        V,
        visible=visible,
        divisor=divisor,
        mask_value=mask_value,
        bias=bias,
        rope_spec=rope_spec,
        Wo=Wo,
        bo=bo,
    )
    for head in out:
        head.setdefault("biased", head["scaled"])
        head["empty"] = ~visible.any(axis=1)
    return out, concat, concat if projected is None else projected


def close(a, b) -> bool:
    return np.allclose(a, b, rtol=1e-12, atol=1e-12)


# ---- random scenarios ------------------------------------------------------------------------


@st.composite
def layouts(draw):
    kv_heads = draw(st.sampled_from([1, 2, 4]))
    heads = kv_heads * draw(st.sampled_from([1, 2])) if kv_heads < 8 else kv_heads
    heads = min(heads, 8)
    cross = draw(st.booleans())
    T_k = draw(st.integers(1, 7))
    T_q = draw(st.integers(1, 7)) if cross else T_k
    d_k = draw(st.sampled_from([1, 2, 3, 4]))
    d_v = draw(st.sampled_from([1, 2, 5]))
    rope = d_k % 2 == 0 and draw(st.booleans())
    return dict(
        heads=heads,
        kv_heads=kv_heads,
        cross=cross,
        T_q=T_q,
        T_k=T_k,
        d_k=d_k,
        d_v=d_v,
        rope=rope,
        seed=draw(st.integers(0, 2**31)),
        causal=(not cross or T_q == T_k) and draw(st.booleans()),
        window=draw(st.one_of(st.none(), st.integers(1, 4))) if T_q == T_k and not cross else None,
        padding=draw(st.booleans()),
        explicit=draw(st.booleans()),
        projection=draw(st.booleans()),
        Wo=draw(st.booleans()),
    )


def build(layout):
    """A scenario in code and the same numbers as the reference's arrays."""
    rng = np.random.default_rng(layout["seed"])
    H, G, T_q, T_k = layout["heads"], layout["kv_heads"], layout["T_q"], layout["T_k"]
    d_k, d_v = layout["d_k"], layout["d_v"]
    padding = tuple(bool(flag) for flag in rng.integers(0, 2, T_k)) if layout["padding"] else None
    explicit = rng.integers(0, 2, (T_q, T_k)).astype(bool) if layout["explicit"] else None
    inputs = {}
    if layout["projection"]:
        d_model = 3
        X = rng.normal(size=(T_k, d_model))
        X_q = rng.normal(size=(T_q, d_model)) if layout["cross"] else X
        Wq, Wk, Wv = (
            rng.normal(size=(d_model, H * d_k)),
            rng.normal(size=(d_model, G * d_k)),
            rng.normal(size=(d_model, G * d_v)),
        )
        inputs.update(X=X, Wq=Wq, Wk=Wk, Wv=Wv)
        if layout["cross"]:
            inputs["X_q"] = X_q
        Q = np.stack([X_q @ Wq[:, h * d_k : (h + 1) * d_k] for h in range(H)])
        K = np.stack([X @ Wk[:, g * d_k : (g + 1) * d_k] for g in range(G)])
        V = np.stack([X @ Wv[:, g * d_v : (g + 1) * d_v] for g in range(G)])
    else:
        Q, K, V = (
            rng.normal(size=(H, T_q, d_k)),
            rng.normal(size=(G, T_k, d_k)),
            rng.normal(size=(G, T_k, d_v)),
        )
        inputs.update(
            Q=Q if H > 1 else Q[0], K=K if G > 1 or H > 1 else K[0], V=V if G > 1 or H > 1 else V[0]
        )
    Wo = bo = None
    if layout["Wo"]:
        Wo, bo = rng.normal(size=(H * d_v, 2)), rng.normal(size=2)
        inputs.update(Wo=Wo, bo=bo[None, :])
    from attn_tui.core.model.options import Options
    from attn_tui.core.model.rope import Rope
    from attn_tui.core.reading.bias import BiasSetting

    bias = settings = (
        None  # added to the scaled scores: ALiBi's, or one matrix for all heads, or one each
    )
    if layout.get("bias") == "alibi":
        slopes = layout["slopes"]
        bias = np.stack(
            [
                -slopes[h] * np.abs(np.arange(T_q)[:, None] - np.arange(T_k)[None, :])
                for h in range(H)
            ]
        )
        settings = {"bias": BiasSetting(alibi=True)}
    elif layout.get("bias") == "shared":
        shared = rng.normal(scale=2.0, size=(T_q, T_k))
        bias = np.stack([shared] * H)
        settings = {"bias": BiasSetting(values=shared.tolist())}
    elif layout.get("bias") == "per_head":
        bias = rng.normal(scale=2.0, size=(H, T_q, T_k))
        settings = {"bias": BiasSetting(values=bias, per_head=True)}
    scenario = Scenario(
        title="random",
        tokens=tuple(f"k{j}" for j in range(T_k)),
        query_tokens=tuple(f"q{i}" for i in range(T_q)) if layout["cross"] else None,
        inputs=inputs,
        options=Options(causal=layout["causal"]),
        heads=H,
        kv_heads=G,
        window=layout["window"],
        padding=padding,
        mask=explicit,
        rope=Rope(10000.0) if layout["rope"] else None,
        stage_settings=settings or {},
    )
    visible = np.ones((T_q, T_k), bool)
    rows, cols = np.arange(T_q)[:, None], np.arange(T_k)[None, :]
    if layout["causal"]:
        visible &= cols <= rows
    if layout["window"] is not None:
        visible &= (cols > rows - layout["window"]) & (cols <= rows)
    if padding is not None:
        visible &= ~np.array(padding)[None, :]
    if explicit is not None:
        visible &= explicit
    expected = reference(
        Q,
        K,
        V,
        heads=H,
        kv_heads=G,
        divisor=math.sqrt(d_k),
        visible=visible,
        Wo=Wo,
        bo=bo,
        rope_base=10000.0 if layout["rope"] else None,
        bias=bias,
    )
    return scenario, expected


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(layouts())
def test_every_stage_of_every_head_is_the_references(layout):
    scenario, (heads, concat, projected) = build(layout)
    attention = Attention(scenario)
    rows, keys, values = range(scenario.T), range(scenario.T_k), range(scenario.d_v)
    for h, expected in enumerate(heads):
        head = attention.head(h)
        assert close(head.values("score", rows, keys), expected["scores"])
        assert close(head.values("scale", rows, keys), expected["scaled"])
        assert np.array_equal(
            np.isinf(head.values("mask", rows, keys)), np.isinf(expected["masked"])
        )
        assert np.array_equal(head.empty(rows), expected["empty"])
        weights = head.values("softmax", rows, keys)
        assert close(weights, expected["weights"]) and not np.isnan(weights).any()
        assert (
            weights[np.isinf(expected["masked"])] == 0
        ).all()  # a hidden key's weight is exactly 0
        assert close(head.values("weighted_sum", rows, values), expected["output"])
    if scenario.multi_head:
        assert close(
            attention.values("concat", None, rows, range(scenario.heads * scenario.d_v)), concat
        )
    if "Wo" in scenario.inputs:
        assert close(attention.values("project", None, rows, range(scenario.d_out)), projected)


@pytest.mark.models
@settings(max_examples=40, deadline=None)
@given(layouts())
def test_the_output_of_every_head_is_pytorchs(layout):
    torch = pytest.importorskip(
        "torch", reason="the second reference is PyTorch's SDPA (pip install torch)"
    )
    scenario, _ = build(layout)
    attention = Attention(scenario)
    rows, keys = range(scenario.T), range(scenario.T_k)
    inputs = attention.inputs
    for h in range(scenario.heads):
        visible = ~attention.head(h).blocked(rows, keys)
        seeing = visible.any(axis=1)
        q, k, v = (
            torch.tensor(np.asarray(a, dtype=np.float64))
            for a in (inputs.Q(h), inputs.K(h), inputs.V(h))
        )
        theirs = torch.nn.functional.scaled_dot_product_attention(
            q[None], k[None], v[None], attn_mask=torch.tensor(visible)[None]
        ).numpy()[0]
        ours = attention.head(h).values("weighted_sum", rows, range(scenario.d_v))
        assert np.allclose(ours[seeing], theirs[seeing], rtol=1e-10, atol=1e-12)
        assert (
            ours[~seeing] == 0
        ).all()  # PyTorch gives NaN there; attn-tui "nothing to attend to"


# ---- two heads by hand and as 3-D arrays (the format's tests read them) -----------------------

HAND_MADE = """\
tokens: [a, b, c]
heads:
  - name: previous
    Q: [[1, 0], [0, 1], [1, 1]]
    K: &k [[1, 0], [0, 1], [1, 1]]
    V: [[1, 0], [0, 1], [1, 1]]
  - name: itself
    Q: [[2, 0], [0, 2], [1, 1]]
    K: *k
    V: [[0, 1], [1, 0], [1, 1]]
Wo: [[1, 0], [0, 1], [1, 0], [0, 1]]
bo: [0.5, -0.5]
"""

THREE_D = """\
tokens: [a, b, c]
heads: 2
head_names: [previous, itself]
Q:
  - [[1, 0], [0, 1], [1, 1]]
  - [[2, 0], [0, 2], [1, 1]]
K:
  - [[1, 0], [0, 1], [1, 1]]
  - [[1, 0], [0, 1], [1, 1]]
V:
  - [[1, 0], [0, 1], [1, 1]]
  - [[0, 1], [1, 0], [1, 1]]
Wo: [[1, 0], [0, 1], [1, 0], [0, 1]]
bo: [[0.5, -0.5]]
"""
