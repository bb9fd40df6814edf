"""Laws of attention that hold for every input (hypothesis), checked through the public core."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from attn_tui.core import Attention, Scenario, compute
from attn_tui.core.engine.explanation import percent
from attn_tui.core.engine.stages.softmax import sentence, softmax
from attn_tui.core.model.scenario import Options
from tests.reference import naive_attention

finite = st.floats(min_value=-50, max_value=50, allow_nan=False, allow_infinity=False)


@st.composite
def scenarios(draw, max_T=7, max_d=5):
    T = draw(st.integers(1, max_T))
    d_k = draw(st.integers(1, max_d))
    d_v = draw(st.integers(1, max_d))
    Q = draw(arrays(np.float64, (T, d_k), elements=finite))
    K = draw(arrays(np.float64, (T, d_k), elements=finite))
    V = draw(arrays(np.float64, (T, d_v), elements=finite))
    options = Options(
        causal=draw(st.booleans()),
        scale=draw(st.one_of(st.booleans(), st.floats(0.25, 100))),
        mask_value=draw(st.sampled_from([-math.inf, -1e9])),
    )
    tokens = tuple(f"t{i}" for i in range(T))
    return Scenario(
        title="property", tokens=tokens, inputs={"Q": Q, "K": K, "V": V}, options=options
    )


@given(scenarios())
def test_weight_rows_sum_to_one(scenario):
    trace = compute(scenario)
    assert np.allclose(trace.weights.sum(axis=1), 1.0, rtol=0, atol=1e-12)


@given(scenarios())
def test_masked_weights_are_exactly_zero(scenario):
    trace = compute(scenario)
    assert (trace.weights[trace.blocked] == 0.0).all()
    assert trace.blocked.any() == (scenario.options.causal and scenario.T > 1)


@given(scenarios())
def test_the_output_equals_a_naive_loop_implementation(scenario):
    trace = compute(scenario)
    divisor = scenario.options.divisor(scenario.d_k)
    output, weights = naive_attention(
        scenario.Q.tolist(),
        scenario.K.tolist(),
        scenario.V.tolist(),
        divisor,
        scenario.options.causal,
        scenario.options.mask_value,
    )
    assert np.allclose(trace.weights, weights, rtol=1e-9, atol=1e-12)
    assert np.allclose(trace.output, output, rtol=1e-9, atol=1e-9)


@given(scenarios(), st.data())
def test_adding_a_constant_to_a_row_of_scores_changes_nothing(scenario, data):
    """Append a dimension that adds ``c`` to every score of row ``i`` (Q gets c in row i, K
    gets ones); with a fixed divisor the scores move by c/divisor and the weights stay."""
    row = data.draw(st.integers(0, scenario.T - 1))
    c = data.draw(st.floats(-100, 100))
    fixed = scenario.with_options(scale=2.0)
    extra_q = np.zeros((scenario.T, 1))
    extra_q[row] = c
    shifted = Scenario(
        title="shifted",
        tokens=scenario.tokens,
        options=fixed.options,
        inputs={
            "Q": np.hstack([scenario.Q, extra_q]),
            "K": np.hstack([scenario.K, np.ones((scenario.T, 1))]),
            "V": scenario.V,
        },
    )
    before, after = compute(fixed), compute(shifted)
    assert np.allclose(after.scores[row], before.scores[row] + c, rtol=1e-12, atol=1e-9)
    assert np.allclose(after.weights, before.weights, rtol=0, atol=1e-9)


@given(
    arrays(
        np.float64, st.tuples(st.integers(1, 6), st.integers(1, 6)), elements=st.floats(-1e3, 1e3)
    ),
    st.floats(-1e3, 1e3),
)
def test_softmax_ignores_a_constant_added_to_the_scores(scores, c):
    assert np.allclose(softmax(scores + c), softmax(scores), rtol=0, atol=1e-9)


@given(
    arrays(
        np.float64,
        st.tuples(st.integers(1, 6), st.integers(1, 6)),
        elements=st.floats(-1e300, 1e300),
    )
)
def test_softmax_of_huge_finite_scores_is_finite_and_sums_to_one(scores):
    weights = softmax(scores)
    assert np.isfinite(weights).all()
    assert np.allclose(weights.sum(axis=1), 1.0, rtol=0, atol=1e-12)


def test_logits_of_ten_thousand_give_finite_one_hot_rows():
    Q = np.array([[100.0, 0.0], [0.0, 100.0]])
    scenario = Scenario(
        title="big",
        tokens=("a", "b"),
        inputs={"Q": Q, "K": Q, "V": np.eye(2)},
        options=Options(causal=False, scale=False),
    )
    trace = compute(scenario)
    assert trace.scores.tolist() == [[1e4, 0.0], [0.0, 1e4]]
    assert np.isfinite(trace.weights).all()
    assert trace.weights.tolist() == [[1.0, 0.0], [0.0, 1.0]]


def test_every_array_is_float64():
    Q = np.array([[1, 0], [0, 1]], dtype=np.int32)
    trace = compute(Scenario(title="ints", tokens=("a", "b"), inputs={"Q": Q, "K": Q, "V": Q}))
    for name in ("Q", "K", "V", "scores", "scaled", "masked", "weights", "output"):
        assert getattr(trace, name).dtype == np.float64, name


@given(st.floats(0, 1))
def test_a_percentage_never_rounds_a_real_share_to_0_or_100(weight):
    text = percent(weight)
    if 0 < weight < 1:
        assert text not in ("0%", "100%"), (weight, text)
    shown = float(text.strip("<> %"))
    assert abs(shown - weight * 100) <= max(0.5, 0.05 * 100 * weight) or text.startswith(
        ("<", ">")
    ), (weight, text)


@given(scenarios(max_T=8))
def test_the_sentence_reads_each_weight_it_names_and_equal_weights_alike(scenario):
    """Each percentage is the weight it describes (so three weights of 1/3 all read 33%)."""
    import re

    attention = Attention(scenario)
    trace = compute(scenario)
    for row in range(scenario.T):
        text = sentence(attention, row)
        named = re.findall(r"(< 0\.1%|> 99\.9%|[\d.]+%) (?:attention )?to (itself|\"t\d+\")", text)
        for share, who in named:
            k = row if who == "itself" else int(who.strip('"')[1:])
            assert share == percent(trace.weights[row, k]), (text, k)
        shares = {}
        for share, who in named:
            k = row if who == "itself" else int(who.strip('"')[1:])
            shares.setdefault(trace.weights[row, k], set()).add(share)
        assert all(len(texts) == 1 for texts in shares.values()), text
