"""QK-norm against NumPy written here from transformers 5's own modules, with nothing of
attn_tui's arithmetic:

* ``transformers/models/qwen3/modeling_qwen3.py``: ``Qwen3RMSNorm`` — ``x * rsqrt(mean(x²) + ε)``
  times ``weight``, applied to each head (``q_norm(q_proj(x).view(..., head_dim))``), before RoPE;
* ``transformers/models/gemma3/modeling_gemma3.py``: ``Gemma3RMSNorm`` — the same, times
  ``1 + weight``, before RoPE;
* ``transformers/models/olmo2/modeling_olmo2.py``: ``Olmo2RMSNorm`` over ``num_heads·head_dim``
  (``q_norm(q_proj(x))``, before the view into heads), before RoPE;
* ``transformers/models/llama4/modeling_llama4.py``: ``Llama4TextL2Norm`` — ``x * rsqrt(mean(x²) +
  ε)``, no weight — after ``apply_rotary_emb``.

The gradients through the norm are checked by the stage contract
(tests/engine/test_stage_contract.py, whose SCENARIOS norm in every style)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from attn_tui.core import load
from attn_tui.core.engine.attention import Attention
from attn_tui.core.errors import ScenarioError
from attn_tui.core.loading.scenario_file import loads
from tests.conftest import SCENARIOS
from tests.reference import causal_softmax, rotate_half

RNG = np.random.default_rng(64)
EPS = 1e-6


def rms_norm(x, weight, eps=EPS):
    """Qwen3RMSNorm.forward (float64 here): x · rsqrt(mean(x², last axis) + ε) · weight."""
    variance = np.mean(x**2, axis=-1, keepdims=True)
    return weight * (x * (1.0 / np.sqrt(variance + eps)))


def rope(x, base=10000.0):
    """transformers' rotate_half RoPE (``apply_rotary_pos_emb``), positions 0 … T − 1."""
    return rotate_half(x, base)


def attention_weights(Q, K):
    """Causal, ÷√d_k: the one reference's softmax (tests/reference.py)."""
    return causal_softmax(Q @ K.T / np.sqrt(Q.shape[1]))


def text(style: str, X, Wq, Wk, Wv, heads: int, weights: str = "", extra: str = "") -> str:
    return (
        f"tokens: {json.dumps([f't{i}' for i in range(len(X))])}\nheads: {heads}\n"
        f"X: {json.dumps(X.tolist())}\nWq: {json.dumps(Wq.tolist())}\n"
        f"Wk: {json.dumps(Wk.tolist())}\nWv: {json.dumps(Wv.tolist())}\n"
        f"qk_norm: {{style: {style}{weights}}}\n{extra}"
    )


def weights_of(scenario):
    attention = Attention(scenario)
    rows, keys = range(scenario.T), range(scenario.T_k)
    return attention, [
        attention.head(h).values("softmax", rows, keys) for h in range(scenario.heads)
    ]


def layer(T=5, d_model=6, heads=2, d=4, size=1.0):
    X = RNG.normal(scale=size, size=(T, d_model))
    return X, *(RNG.normal(size=(d_model, heads * d)) for _ in range(3))


@pytest.mark.parametrize("style", ["qwen3", "gemma3"])
def test_per_head_styles_are_the_models_rms_norm_of_each_head_before_rope(style):
    X, Wq, Wk, Wv = layer()
    q_w, k_w = RNG.normal(size=4), RNG.normal(size=4)
    weights = f", q_weight: {json.dumps(q_w.tolist())}, k_weight: {json.dumps(k_w.tolist())}"
    scenario = loads(text(style, X, Wq, Wk, Wv, 2, weights, "rope: {base: 10000}\n"))
    attention, found = weights_of(scenario)
    gain_q, gain_k = (q_w, k_w) if style == "qwen3" else (1 + q_w, 1 + k_w)
    for h in range(2):
        cols = slice(4 * h, 4 * h + 4)
        q = rms_norm((X @ Wq)[:, cols], gain_q)
        k = rms_norm((X @ Wk)[:, cols], gain_k)
        normed = attention.head(h).values("qk_norm", range(5), range(4))
        assert np.allclose(normed, q, rtol=1e-12, atol=1e-13)
        assert np.allclose(found[h], attention_weights(rope(q), rope(k)), rtol=1e-10, atol=1e-13)


def test_olmo2_norms_the_whole_projection_before_the_split_into_heads():
    X, Wq, Wk, Wv = layer()
    q_w, k_w = RNG.normal(size=8), RNG.normal(size=8)
    weights = f", q_weight: {json.dumps(q_w.tolist())}, k_weight: {json.dumps(k_w.tolist())}"
    scenario = loads(text("olmo2", X, Wq, Wk, Wv, 2, weights))
    attention, found = weights_of(scenario)
    Q, K = rms_norm(X @ Wq, q_w), rms_norm(X @ Wk, k_w)  # (before .view(hidden_shape))
    for h in range(2):
        cols = slice(4 * h, 4 * h + 4)
        normed = attention.head(h).values("qk_norm", range(5), range(4))
        assert np.allclose(normed, Q[:, cols], rtol=1e-12, atol=1e-13)
        assert np.allclose(found[h], attention_weights(Q[:, cols], K[:, cols]), rtol=1e-10)


def test_llama4_norms_after_rope_without_weights():
    X, Wq, Wk, Wv = layer()
    scenario = loads(text("llama4", X, Wq, Wk, Wv, 2, extra="rope: {base: 500000}\n"))
    attention, found = weights_of(scenario)
    for h in range(2):
        cols = slice(4 * h, 4 * h + 4)
        q = rms_norm(rope((X @ Wq)[:, cols], 500000.0), 1.0)  # Llama4TextL2Norm after RoPE
        k = rms_norm(rope((X @ Wk)[:, cols], 500000.0), 1.0)
        assert np.allclose(found[h], attention_weights(q, k), rtol=1e-10, atol=1e-13)
        assert np.allclose(attention.inputs.Q(h), q, rtol=1e-12, atol=1e-13)


def test_the_scores_stay_bounded_whatever_the_size_of_x():
    """x a thousand times larger: without the norm the scores grow a millionfold; with it they
    do not move (ε aside), and every |score| is within the bound the Why pane states."""
    X, Wq, Wk, Wv = layer(size=1.0)
    scenario = loads(text("qwen3", X, Wq, Wk, Wv, 2))
    larger = loads(text("qwen3", 1000 * X, Wq, Wk, Wv, 2))
    _, small = weights_of(scenario)
    _, large = weights_of(larger)
    for h in range(2):
        assert np.allclose(small[h], large[h], atol=1e-6)
        scores = Attention(larger).head(h).values("scale", range(5), range(5))
        assert np.abs(scores).max() <= 2.0 + 1e-12  # (√4 · 1)(√4 · 1) / √4, gains of 1


def test_the_built_in_scenario_says_why_in_its_explanation():
    from attn_tui.core.engine.explanation import explain

    scenario = load(SCENARIOS / "qk_norm.yaml")
    attention = Attention(scenario)
    words = explain(attention, "qk_norm", row=2, col=1, fold=None).plain()
    # sat's q1 = x·Wq columns 1, 2 = [100, 100]: rms = √(10000 + 1e-6), so q/rms = [1, 1] and the
    # gains [1.5, 0.5] make it [1.5, 0.5], as for any x along that direction
    assert "[100.000, 100.000]" in words and "[1.500, 0.500]" in words
    assert "whatever x is" in words and "‖q‖ ≤ 2.121" in words  # √2 × 1.5


@pytest.mark.parametrize(
    ("qk_norm", "said"),
    [
        ("{style: qwen4}", "qk_norm style must be one of qwen3, gemma3, olmo2, llama4"),
        ("{q_weight: [1, 1]}", "qk_norm needs a style"),
        ("{style: qwen3, q_weight: [1, 2, 3]}", "qk_norm q_weight has 3 numbers but a head has 2"),
        ("{style: llama4, k_weight: [1, 1]}", "Llama 4's QK-norm has no weight"),
        ("{style: qwen3, eps: 0}", "qk_norm eps must be in (0, 1], not 0"),
        (
            "{style: qwen3, q_weight: [1, 1e9]}",
            "every weight must be a finite number within ±1e+06",
        ),
        ("{style: qwen3, gain: [1, 1]}", "gain"),
    ],
)
def test_a_wrong_qk_norm_is_one_clear_line(qk_norm, said):
    text = "Q: [[1, 0], [0, 1]]\nK: [[1, 0], [0, 1]]\nV: [[1, 0], [0, 1]]\n"
    with pytest.raises(ScenarioError) as raised:
        loads(text + f"qk_norm: {qk_norm}\n")
    assert said in str(raised.value)


def test_olmo2_with_grouped_keys_is_refused_saying_why():
    X, Wq, Wk, Wv = layer()
    scenario_text = text("olmo2", X, Wq, Wk[:, :4], Wv[:, :4], 2, extra="kv_heads: 1\n")
    with pytest.raises(ScenarioError) as raised:
        loads(scenario_text)
    assert "heads = kv_heads" in str(raised.value)
