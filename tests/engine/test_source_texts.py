"""Every number the two source texts print, checked against the core at the printed precision."""

from __future__ import annotations

import numpy as np
import pytest

from attn_tui.core import Attention, compute, compute_all, explain, load, sentence
from attn_tui.core.outputs.report import to_text
from tests.conftest import SCENARIOS
from tests.reference import article_attention, chapter_attention

CHAPTER_Q = np.array([[1, 0], [0, 1], [1, 1]], dtype=float)
CHAPTER_V = np.array([[1, 0], [0, 1], [0.5, 0.5]], dtype=float)
SAT, CAT, THE = 2, 1, 0


def r3(values):
    return np.round(np.asarray(values, dtype=float), 3).tolist()


@pytest.fixture(scope="module")
def cat_sat():
    return compute(load(SCENARIOS / "cat_sat.yaml"))


def test_the_builtin_holds_the_chapters_matrices(cat_sat):
    assert cat_sat.Q.tolist() == CHAPTER_Q.tolist()
    assert cat_sat.K.tolist() == CHAPTER_Q.tolist()
    assert cat_sat.V.tolist() == CHAPTER_V.tolist()


def test_step_1_raw_scores_for_sat(cat_sat):
    assert cat_sat.scores[SAT].tolist() == [1, 1, 2]


def test_step_2_scale(cat_sat):
    assert round(cat_sat.divisor, 3) == 1.414
    assert r3(cat_sat.scaled[SAT]) == [0.707, 0.707, 1.414]


def test_step_3_softmax_for_sat(cat_sat):
    exps = np.exp(cat_sat.masked[SAT])  # the chapter shows exps of the raw scaled scores
    assert r3(exps) == [2.028, 2.028, 4.113]
    assert round(exps.sum(), 3) == 8.169
    assert r3(cat_sat.weights[SAT]) == [0.248, 0.248, 0.503]
    assert round(cat_sat.weights[SAT].sum(), 1) == 1.0


def test_step_4_weighted_sum_for_sat(cat_sat):
    terms = cat_sat.weights[SAT][:, None] * cat_sat.V
    assert r3(terms) == [[0.248, 0.0], [0.0, 0.248], [0.252, 0.252]]
    assert r3(cat_sat.output[SAT]) == [0.5, 0.5]


def test_step_5_the_mask_pattern(cat_sat):
    allowed = ~cat_sat.blocked
    assert allowed.tolist() == [[True, False, False], [True, True, False], [True, True, True]]


def test_step_5_cat_with_the_mask(cat_sat):
    assert cat_sat.scores[CAT, :2].tolist() == [0, 1]
    assert r3(cat_sat.scaled[CAT, :2]) == [0, 0.707]
    assert cat_sat.masked[CAT, 2] == -np.inf
    exps = np.exp(cat_sat.masked[CAT])
    assert r3(exps) == [1.0, 2.028, 0.0]
    assert round(exps.sum(), 3) == 3.028
    assert r3(cat_sat.weights[CAT]) == [0.330, 0.670, 0.0]
    assert cat_sat.weights[CAT, 2] == 0.0
    assert r3(cat_sat.output[CAT]) == [0.330, 0.670]


def test_the_chapters_practice_code_agrees_to_the_last_bit(cat_sat):
    out, weights = chapter_attention(CHAPTER_Q.copy(), CHAPTER_Q.copy(), CHAPTER_V, causal=True)
    assert np.array_equal(cat_sat.weights, weights)
    assert np.array_equal(cat_sat.output, out)


def test_the_explanations_read_like_the_chapter(cat_sat):
    score = explain(Attention(load(SCENARIOS / "cat_sat.yaml")), "score", SAT, THE).plain()
    assert "q3 · k1 = (1 × 1) + (1 × 0) = 1" in score
    assert "q3 · k2 = (1 × 0) + (1 × 1) = 1" in score
    assert "q3 · k3 = (1 × 1) + (1 × 1) = 2" in score
    assert "raw scores: [1, 1, 2]" in score
    scale = explain(Attention(load(SCENARIOS / "cat_sat.yaml")), "scale", SAT, THE).plain()
    assert "√d_k = √2 = 1.414" in scale
    assert "1 / √2 = 1/1.414 = 0.707" in scale
    assert "scaled scores: [1/1.414, 1/1.414, 2/1.414] = [0.707, 0.707, 1.414]" in scale
    assert (
        "(cat, sat) is in the future: −∞"
        in explain(Attention(load(SCENARIOS / "cat_sat.yaml")), "mask", CAT, SAT).plain()
    )
    softmax = explain(Attention(load(SCENARIOS / "cat_sat.yaml")), "softmax", SAT).plain()
    for line in (
        "exp(0.707) = 2.028",
        "exp(1.414) = 4.113",
        "sum        = 8.169",
        "weights = [2.028/8.169, 2.028/8.169, 4.113/8.169]",
        "= [0.248, 0.248, 0.503]",
        '"sat" pays 25% attention to "the", 25% to "cat", and 50% to itself.',
    ):
        assert line in softmax
    cat = explain(Attention(load(SCENARIOS / "cat_sat.yaml")), "softmax", CAT).plain()
    assert "exp(0.000) = 1.000" in cat and "sum        = 3.028" in cat
    assert "= [0.330, 0.670, 0.000]" in cat
    assert '"cat" pays 33% attention to "the" and 67% to itself, and 0% to the future.' in cat
    output = explain(Attention(load(SCENARIOS / "cat_sat.yaml")), "weighted_sum", SAT).plain()
    assert "0.248 × [1.0, 0.0] + 0.248 × [0.0, 1.0] + 0.503 × [0.5, 0.5] = [0.500, 0.500]" in output
    assert "[0.248, 0.000] + [0.000, 0.248] + [0.252, 0.252]" in output
    assert (
        "= [0.330, 0.670]"
        in explain(Attention(load(SCENARIOS / "cat_sat.yaml")), "weighted_sum", CAT).plain()
    )


def test_experiment_1_without_the_mask_the_sees_everything():
    scenario = load(SCENARIOS / "cat_sat_bidirectional.yaml")
    trace = compute(scenario)
    _, expected = chapter_attention(CHAPTER_Q.copy(), CHAPTER_Q.copy(), CHAPTER_V, causal=False)
    assert np.array_equal(trace.weights, expected)
    assert (trace.weights[THE] > 0).all()  # "the" now sees the future
    assert (
        sentence(Attention(scenario), THE)
        == '"the" pays 40% attention to itself, 20% to "cat", and 40% to "sat".'
    )


def test_experiment_2_an_exaggerated_query():
    trace = compute(load(SCENARIOS / "exaggerated_query.yaml"))
    assert trace.Q[SAT].tolist() == [5, 0]
    Q = CHAPTER_Q.copy()
    Q[SAT] = [5, 0]
    _, expected = chapter_attention(Q, CHAPTER_Q.copy(), CHAPTER_V)
    assert np.array_equal(trace.weights, expected)
    # scores [5, 0, 5] / √2: "sat" splits between "the" and itself and all but drops "cat"
    assert r3(trace.weights[SAT]) == [0.493, 0.014, 0.493]
    assert trace.entropy[SAT] < compute(load(SCENARIOS / "cat_sat.yaml")).entropy[SAT]


def test_experiment_3_unscaled_times_ten_is_nearly_one_hot():
    scenario = load(SCENARIOS / "unscaled_x10.yaml")
    traces = compute_all(scenario)
    assert traces[""].Q.tolist() == (CHAPTER_Q * 10).tolist()
    assert traces[""].divisor == 1.0
    assert (traces["unscaled"].max_weight > 0.999).all()
    assert r3(traces["unscaled"].weights[SAT]) == [0.0, 0.0, 1.0]
    assert r3(traces["scaled"].weights[CAT]) == [0.001, 0.999, 0.0]


def test_experiment_4_random_four_dimensional_values():
    trace = compute(load(SCENARIOS / "random_v4.yaml"))
    assert trace.V.shape == (3, 4) and trace.output.shape == (3, 4)
    assert np.array_equal(trace.weights, compute(load(SCENARIOS / "cat_sat.yaml")).weights)
    np.random.seed(0)
    assert trace.V.tolist() == np.round(np.random.randn(3, 4), 2).tolist()


def test_the_articles_worked_example():
    trace = compute(load(SCENARIOS / "weighted_values.yaml"))
    V = np.array([[10, 0], [0, 10], [5, 5]], dtype=float)
    out, weights = article_attention(CHAPTER_Q, CHAPTER_Q, V, scale=True, causal=False)
    assert np.allclose(trace.weights, weights, rtol=0, atol=1e-15)
    assert np.allclose(trace.output, out, rtol=0, atol=1e-13)
    # "its output leans heavily toward V[0] = [10,0] with some contribution from V[2]"
    assert trace.output[0, 0] > trace.output[0, 1]
    assert trace.weights[0, 0] == trace.weights[0, 2] > trace.weights[0, 1]


def test_the_articles_minus_1e9_mask_gives_exactly_zero_weight(write):
    path = write(
        "Q: [[1, 0], [0, 1], [1, 1]]\nK: [[1, 0], [0, 1], [1, 1]]\n"
        "V: [[10, 0], [0, 10], [5, 5]]\nmask_value: -1e9\n"
    )
    trace = compute(load(path))
    assert (trace.weights[trace.blocked] == 0.0).all()
    V = np.array([[10, 0], [0, 10], [5, 5]], dtype=float)
    _, expected = article_attention(CHAPTER_Q, CHAPTER_Q, V, causal=True)
    assert np.allclose(trace.weights, expected, rtol=0, atol=1e-15)


def test_the_articles_exercise_scaled_rows_are_less_peaked():
    scenario = load(SCENARIOS / "scaled_vs_unscaled_t5.yaml")
    np.random.seed(0)
    Q, K, V = np.random.randn(5, 8), np.random.randn(5, 8), np.random.randn(5, 8)
    assert np.array_equal(scenario.Q, Q) and np.array_equal(scenario.K, K)
    assert np.array_equal(scenario.V, V)
    traces = compute_all(scenario)
    _, scaled = article_attention(Q, K, V, scale=True)
    _, unscaled = article_attention(Q, K, V, scale=False)
    assert np.allclose(traces["scaled"].max_weight, scaled.max(axis=1), rtol=0, atol=1e-15)
    assert np.allclose(traces["unscaled"].max_weight, unscaled.max(axis=1), rtol=0, atol=1e-15)
    assert (traces["unscaled"].max_weight > traces["scaled"].max_weight).all()
    text = to_text(scenario)
    assert "Variants: each row's largest weight" in text


def test_projections_compute_q_k_v_from_x():
    scenario = load(SCENARIOS / "projections.yaml")
    X, Wq = scenario.inputs["X"], scenario.inputs["Wq"]
    assert np.array_equal(scenario.Q, X @ Wq)
    assert scenario.Q.tolist() == CHAPTER_Q.tolist()
    assert np.array_equal(scenario.V, X @ scenario.inputs["Wv"])
