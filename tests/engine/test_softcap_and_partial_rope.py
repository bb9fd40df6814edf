"""Two more stages of the models people study, each declared by its module, one registry line
and the reader of its key alone: Gemma 2's softcap (c·tanh(x / c) before the mask) and GPT-NeoX's
partial rotary (only the first dims dimensions turn). Checked against references written here
from the definitions, Hugging Face's formulas (not from attn_tui.core)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from attn_tui.core import ScenarioError, loads
from attn_tui.core.editing.save import render
from attn_tui.core.engine.attention import Attention
from attn_tui.core.outputs.json_export import to_json
from attn_tui.core.outputs.report import to_text
from tests.reference import causal_softmax, rotate_half


def random_scenario(seed: int, T: int = 6, d: int = 8, extra: str = "") -> tuple[str, dict]:
    rng = np.random.default_rng(seed)
    Q, K, V = (rng.normal(scale=3.0, size=(T, d)) for _ in range(3))

    def rows(a):
        return (
            "[" + ", ".join("[" + ", ".join(repr(float(x)) for x in row) + "]" for row in a) + "]"
        )

    text = f"Q: {rows(Q)}\nK: {rows(K)}\nV: {rows(V)}\n{extra}"
    return text, dict(Q=Q, K=K, V=V)


@pytest.mark.parametrize("seed", range(5))
def test_softcap_is_gemma2s(seed):
    """Gemma 2, eager: w = q·kᵀ·scaling; w = tanh(w / c)·c; w += causal mask; softmax."""
    text, m = random_scenario(seed, extra="softcap: 2.5\nscale: 4\n")
    attention = Attention(loads(text))
    rows, keys = range(6), range(6)
    scores = m["Q"] @ m["K"].T / 4
    capped = np.tanh(scores / 2.5) * 2.5
    assert np.allclose(attention.values("softcap", 0, rows, keys), capped, rtol=0, atol=1e-14)
    assert np.abs(attention.values("softcap", 0, rows, keys)).max() < 2.5
    weights = causal_softmax(capped)
    assert np.allclose(attention.values("softmax", 0, rows, keys), weights, rtol=0, atol=1e-14)
    assert np.allclose(
        attention.values("weighted_sum", 0, rows, range(8)), weights @ m["V"], rtol=0, atol=1e-12
    )
    assert [stage.name for stage in attention.steps] == [
        "score",
        "scale",
        "softcap",
        "mask",
        "softmax",
        "weighted_sum",
    ]


def test_softcap_in_json_print_and_a_rewritten_file(tmp_path):
    text, _ = random_scenario(0, T=3, d=2, extra="softcap: 50\n")
    scenario = loads(text, str(tmp_path / "s.yaml"))
    doc = to_json(scenario)
    assert np.allclose(
        doc["capped"], 50 * np.tanh(np.array(doc["scaled"]) / 50), rtol=0, atol=1e-15
    )
    printed = to_text(scenario)
    assert "Step 3 — Softcap: 50·tanh(score / 50)" in printed and "50 × tanh(" in printed
    assert "softcap 50" in scenario.describe()
    again = loads(render(scenario, str(tmp_path / "w.yaml")).text, str(tmp_path / "w.yaml"))
    assert again.stage_settings == scenario.stage_settings


@pytest.mark.parametrize(
    "text, fragment",
    [
        ("softcap: 0\n", "softcap must be a positive number"),
        ("softcap: -3\n", "softcap must be a positive number"),
        ("softcap: .inf\n", "must be finite"),
        ("softcap: fifty\n", "softcap"),
    ],
)
def test_a_bad_softcap_is_refused_at_its_line(text, fragment):
    base, _ = random_scenario(1, T=2, d=2)
    with pytest.raises(ScenarioError) as caught:
        loads(base + text)
    assert fragment in caught.value.message and caught.value.line == 4, str(caught.value)


def partial_rotary(x: np.ndarray, base: float, dims: int) -> np.ndarray:
    """GPT-NeoX: x_rot = x[..., :dims] turned by rotate_half with its own frequencies
    (base^(−2j/dims)), x_pass = x[..., dims:] unchanged."""
    return np.concatenate([rotate_half(x[:, :dims], base), x[:, dims:]], axis=1)


@pytest.mark.parametrize("seed, dims", [(0, 2), (1, 4), (2, 6), (3, 8)])
def test_partial_rotary_is_gpt_neoxs(seed, dims):
    text, m = random_scenario(seed, extra=f"rope: {{base: 10000, dims: {dims}}}\n")
    attention = Attention(loads(text))
    rows = range(6)
    q, k = partial_rotary(m["Q"], 10000.0, dims), partial_rotary(m["K"], 10000.0, dims)
    assert np.allclose(attention.values("rotate", 0, rows, range(8)), q, rtol=0, atol=1e-12)
    assert np.allclose(attention.values("score", 0, rows, rows), q @ k.T, rtol=0, atol=1e-11)
    if dims < 8:
        assert np.array_equal(attention.values("rotate", 0, rows, range(dims, 8)), m["Q"][:, dims:])


def test_partial_rotary_says_which_dimensions_turn(tmp_path):
    text, _ = random_scenario(0, extra="rope: {base: 10000, dims: 4}\n")
    scenario = loads(text, str(tmp_path / "s.yaml"))
    printed = to_text(scenario)
    assert "the first 4 of 8 dimensions" in printed
    assert (
        "Only the first 4 of the 8 dimensions turn (partial rotary, as GPT-NeoX's); "
        "d5 … d8 pass through" in printed
    )
    again = loads(render(scenario, str(tmp_path / "w.yaml")).text, str(tmp_path / "w.yaml"))
    assert again.rope == scenario.rope


@pytest.mark.parametrize(
    "dims, fragment",
    [
        (3, "rope dims turns pairs of dimensions: it must be even, not 3"),
        (10, "rope dims must be from 2 to 8, not 10"),
        (0, "rope dims must be from 2 to 8, not 0"),
    ],
)
def test_bad_rope_dims_are_refused(dims, fragment):
    text, _ = random_scenario(0, extra=f"rope: {{base: 10000, dims: {dims}}}\n")
    with pytest.raises(ScenarioError) as caught:
        loads(text)
    assert fragment in caught.value.message and caught.value.line == 4, str(caught.value)


def test_an_odd_d_k_may_turn_an_even_part():
    text, m = random_scenario(4, d=5, extra="rope: {dims: 4}\n")
    attention = Attention(loads(text))
    assert np.allclose(
        attention.values("rotate", 0, range(6), range(5)),
        partial_rotary(m["Q"], 10000.0, 4),
        rtol=0,
        atol=1e-12,
    )
    assert not math.isnan(float(attention.values("softmax", 0, range(6), range(6)).sum()))
