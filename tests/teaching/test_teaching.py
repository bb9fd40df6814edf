"""What a student reads around the numbers tells the truth: predictions stay hidden, percentages
match their weights, --check names the right mistake, repeated tokens are told apart, negative
numbers can be typed, and labels agree everywhere."""

from __future__ import annotations

import math

import numpy as np
from textual import events

from attn_tui.core import Attention, Scenario, load, loads
from attn_tui.core.editing.session import Session
from attn_tui.core.engine.explanation import explain
from attn_tui.core.engine.stages.softmax import sentence
from attn_tui.core.engine.views import stage_window
from attn_tui.core.model.options import Options
from attn_tui.core.numbers import MINUS
from attn_tui.core.outputs.markdown import to_markdown
from attn_tui.core.outputs.report import to_text
from attn_tui.core.teaching.compare import compare
from attn_tui.core.teaching.comparison_report import summary
from tests.conftest import SCENARIOS
from tests.reference import softmax
from tests.tui_helpers import debugger, explanation, matrix, running, stage_view

SAT = 2


def cat_sat(extra: str = "") -> Scenario:
    return loads((SCENARIOS / "cat_sat.yaml").read_text() + extra, "lesson.yaml")


# ---- predict, then reveal ----------------------------------------------------------------------


def test_a_hidden_prediction_hides_everything_computed_from_it_in_core():
    session = Session(cat_sat("predict: [weights]\n"))
    session.predictions.reveal("softmax", 0, SAT, session.attention)
    everything, keys = range(3), range(3)
    output = stage_window(session, "weighted_sum", 0, everything, range(2))
    assert output.hidden.tolist() == [
        [True] * 2,
        [True] * 2,
        [False] * 2,
    ]  # V one-hot: it would tell
    weights = stage_window(session, "softmax", 0, everything, keys)
    assert weights.hidden.tolist() == [[True, False, False], [True, True, False], [False] * 3]
    scaled = stage_window(session, "scale", 0, everything, keys)
    assert scaled.hidden is None  # what the weights are computed from stays in view


async def test_the_app_hides_the_weighted_sum_of_unrevealed_rows(tmp_path):
    path = tmp_path / "lesson.yaml"
    path.write_text((SCENARIOS / "cat_sat.yaml").read_text() + "predict: [weights]\n")
    async with running(path) as (app, pilot):
        await pilot.press("4", "r", "5", "up")  # reveal "sat", then look at "cat"'s output
        assert stage_view(app).row_texts(1) == ["?", "?"]
        assert stage_view(app).row_texts(SAT) == ["0.500", "0.500"]
        text = explanation(app)
        assert 'Hidden until you predict and reveal "cat"' in text and "''" not in text


# ---- percentages -------------------------------------------------------------------------------


def test_equal_weights_read_equal_percentages():
    attention = Attention(load(SCENARIOS / "projections.yaml"))
    assert (
        sentence(attention, SAT)
        == '"sat" pays 33% attention to "the", 33% to "cat", and 33% to itself.'
    )


def test_a_small_weight_gets_the_precision_it_needs():
    attention = Attention(load(SCENARIOS / "exaggerated_query.yaml"))
    text = sentence(attention, SAT)
    assert '1.4% to "cat"' in text and "2% to" not in text


def test_weight_a_finite_mask_lets_through_to_the_future_is_said():
    scenario = Scenario(
        title="leak",
        tokens=("t1", "t2"),
        inputs={
            "Q": np.array([[1.0], [1.0]]),
            "K": np.array([[-100.0], [-100.0]]),
            "V": np.array([[1.0], [0.0]]),
        },
        options=Options(causal=True, scale=False, mask_value=-5.0),
    )
    attention = Attention(scenario)
    assert sentence(attention, 0) == (
        '"t1" pays < 0.1% attention to itself, and 100% to the future '
        f"(the mask value {MINUS}5 lets it through)."
    )
    mask = explain(attention, "mask", 0).plain()
    assert "not negative enough" in mask and "-1e9" in mask  # -5 is: a far lower value is advice
    deep = Scenario(
        title="leak",
        tokens=("t1", "t2"),
        inputs=dict(scenario.inputs),
        options=Options(causal=True, scale=False, mask_value=-1e9),
    )
    deep_mask = explain(Attention(deep), "mask", 0).plain()
    if "not negative enough" in deep_mask:
        assert "use -.inf" in deep_mask and "such as -1e9" not in deep_mask


def test_rounded_weights_that_do_not_add_up_say_so():
    text = explain(Attention(load(SCENARIOS / "cat_sat.yaml")), "softmax", SAT).plain()
    assert "(sums to 1.0; rounded to 3 decimals they add to 0.999)" in text


def test_overflow_is_said_only_when_exp_would_overflow_and_no_minus_is_doubled():
    def softmax_text(scores: list[float]) -> str:
        T = len(scores)
        scenario = Scenario(
            title="s",
            tokens=tuple(f"t{i}" for i in range(T)),
            inputs={"Q": np.ones((T, 1)), "K": np.array(scores).reshape(T, 1), "V": np.eye(T)},
            options=Options(causal=False, scale=False),
        )
        return explain(Attention(scenario), "softmax", 0).plain()

    hundred = softmax_text([100.0, 99.0])
    assert "overflow" not in hundred and "exp(x" not in hundred  # exp(100) is a fine float64
    assert "overflow" in softmax_text([1000.0, 999.0])
    negative = softmax_text([-1e9, -1e9 + 1])
    assert "underflow" in negative
    assert (
        f"{MINUS} {MINUS}" not in negative
        and f"{MINUS} -" not in negative
        and "+ 1.000e9" in negative
    )
    # the largest score subtracted: "x − 1.000", "x + 0.500", and "x − 0.000" for one that is 0;
    # −0.0001 is not zero, so it reads −1.000e−4, and x − (−0.0001) is x + 1.000e−4
    assert "exp(x − 1.000)" in softmax_text([1.0, 0.0])
    assert "exp(x + 0.500)" in softmax_text([-0.5, -0.75])
    assert "exp(x + 1.000e−4)" in softmax_text(
        [-0.0001, -1.0]
    )  # it read "exp(x + 0.000)", then "x − 0.000"
    assert "exp(x − 0.000)" in softmax_text([0.0, -1.0])


def test_a_pane_writes_every_minus_the_same_way():
    rng = np.random.RandomState(3)
    scenario = Scenario(
        title="signs",
        tokens=("a", "b", "c"),
        inputs={"Q": rng.randn(3, 2), "K": rng.randn(3, 2), "V": rng.randn(3, 2)},
    )
    for stage in ("score", "scale", "mask", "softmax", "weighted_sum"):
        text = explain(Attention(scenario), stage, 2).plain()
        numbers_with_hyphen = [
            word
            for word in text.replace("(", " ").split()
            if word[:1] == "-" and word[1:2].isdigit()
        ]
        assert not numbers_with_hyphen, (stage, numbers_with_hyphen)


# ---- --check names the right mistake ----------------------------------------------------------


def student(
    scenario: Scenario, stage: str, values: np.ndarray, tolerance: float | None = None
) -> Scenario:
    extra = {"expect_tolerance": tolerance} if tolerance is not None else {}
    return Scenario(
        title=scenario.title,
        tokens=scenario.tokens,
        inputs=dict(scenario.inputs),
        options=scenario.options,
        expect={stage: (values, None)},
        **extra,
    )


def mask_after_softmax(scenario: Scenario) -> np.ndarray:
    scores = scenario.Q @ scenario.K.T / scenario.options.divisor(scenario.d_k)
    return softmax(scores) * ~np.triu(np.ones(scores.shape, bool), 1)


def test_the_closest_mistake_is_named_not_the_first_that_comes_within_tolerance():
    base = Scenario(
        title="c",
        tokens=("a", "b", "c"),
        inputs={
            "Q": np.array([[1.0], [1.0], [1.0]]),
            "K": np.array([[0.0], [-14.0], [-14.0]]),
            "V": np.array([[1.0, 0.0], [0.0, 1.0], [0.0, 0.0]]),
        },
        options=Options(causal=True, scale=False),
    )
    comparison = compare(student(base, "weights", mask_after_softmax(base)))
    assert comparison.diagnosis.key == "mask_after_softmax"
    assert "after the softmax" in summary(comparison, base)


def test_two_mistakes_that_give_the_same_numbers_are_both_named():
    two = Scenario(
        title="two",
        tokens=("a", "b"),
        inputs={
            "Q": np.array([[1.0, 0.0], [0.0, 1.0]]),
            "K": np.array([[0.5, 1.0], [1.0, 0.2]]),
            "V": np.eye(2),
        },
    )
    unmasked = Attention(two, two.options.__class__(causal=False))
    from attn_tui.core.engine.trace import trace

    weights = trace(unmasked).weights  # what "no mask" gives, and, at T = 2, "sees one ahead"
    comparison = compare(student(two, "weights", weights))
    keys = [mistake.key for mistake in comparison.diagnosis.mistakes]
    assert set(keys) == {"no_mask", "mask_sees_ahead"}
    text = summary(comparison, two)
    assert "cannot tell them apart" in text and "add a third token" in text


def test_dividing_by_d_k_is_a_mistake_under_a_numeric_scale_too():
    rng = np.random.RandomState(1)
    base = Scenario(
        title="s",
        tokens=tuple("abcd"),
        inputs={"Q": rng.randn(4, 4), "K": rng.randn(4, 4), "V": rng.randn(4, 2)},
        options=Options(scale=3.0),
    )
    from attn_tui.core.engine.trace import trace

    wrong = trace(Attention(base, Options(scale=4.0))).scaled  # ÷ d_k = 4 instead of ÷ 3
    comparison = compare(student(base, "scaled", wrong))
    assert comparison.diagnosis.key == "divided_by_d_k_not_scale"


def test_a_rounded_students_values_are_told_what_tolerance_would_match():
    base = load(SCENARIOS / "cat_sat.yaml")
    rounded = np.round(mask_after_softmax(base), 3)
    comparison = compare(student(base, "weights", rounded))
    text = summary(comparison, base)
    assert comparison.diagnosis is not None and comparison.diagnosis.key == "mask_after_softmax"
    assert "within 0.001" in text or "within 0.0005" in text or "within 5e-04" in text
    correct_but_rounded = compare(
        student(
            base,
            "weights",
            np.round(np.array([[1, 0, 0], [0.3302, 0.6698, 0], [0.2483, 0.2483, 0.5035]]), 3),
        )
    )
    assert "look rounded" in summary(correct_but_rounded, base)


def test_cell_lines_show_both_values():
    base = load(SCENARIOS / "cat_sat.yaml")
    weights = np.array([[1, 0, 0], [0.5, 0.5, 0], [0.248, 0.248, 0.503]])
    text = summary(compare(student(base, "weights", weights, 1e-3)), base)
    assert "(cat, the): yours 0.500, attention 0.330" in text


# ---- repeated tokens ---------------------------------------------------------------------------

MAT = """
title: The mat
tokens: [the, cat, sat, on, the, mat]
Q: [[1, 0], [0, 1], [1, 1], [0, 0], [1, 0], [0, 1]]
K: [[1, 0], [0, 1], [1, 1], [0, 0], [1, 0], [0, 1]]
V: [[1, 0], [0, 1], [1, 1], [0, 0], [1, 0], [0, 1]]
"""


def test_a_repeated_token_is_numbered_everywhere():
    scenario = loads(MAT, "mat.yaml")
    attention = Attention(scenario)
    assert "the₁" in sentence(attention, 5) and "the₅" in sentence(attention, 5)
    assert "(mat, the₁)" in explain(attention, "scale", 5).plain()
    assert "the₅" in to_text(scenario) and "the₅" in to_markdown(scenario)


def test_go_to_a_repeated_token_asks_which_one():
    from attn_tui.tui.screens.goto import parse_target

    labels = ["the₁", "cat", "sat", "on", "the₅", "mat"]
    tokens = ["the", "cat", "sat", "on", "the", "mat"]
    assert parse_target("the₅", labels, labels, tokens) == (4, None)
    assert parse_target("cat", labels, labels, tokens) == (1, None)
    try:
        parse_target("the", labels, labels, tokens)
    except ValueError as error:
        assert "the₁ (row 1)" in str(error) and "the₅ (row 5)" in str(error)
    else:
        raise AssertionError("an ambiguous token was taken")


# ---- typing a negative number -----------------------------------------------------------------


async def test_typing_minus_one_and_a_half_over_a_cell_replaces_it():
    async with running() as (app, pilot):
        await pilot.press("tab", "enter", *"-1.5", "enter")
        assert debugger(app).session.scenario.Q[0, 0] == -1.5
        await pilot.press("down", "enter")
        app.post_message(
            events.Key("minus_sign", "−")
        )  # the minus the app itself prints, as a terminal sends it
        await pilot.press("2", "enter")
        assert debugger(app).session.scenario.Q[1, 0] == -2.0
        await pilot.press("enter", "left", "backspace", "enter")  # a move keeps the old text
        assert not matrix(app, "Q").editing


# ---- labels agree -------------------------------------------------------------------------------


async def test_the_model_dimensions_read_m_everywhere():
    scenario = load(SCENARIOS / "projections.yaml")
    printed = to_text(scenario)
    wq_table = printed.split("Wq (query weights)")[1].split("\n\n")[0]
    assert [line.split()[0] for line in wq_table.splitlines()[2:]] == ["m1", "m2", "m3", "m4"]
    async with running(SCENARIOS / "projections.yaml") as (app, pilot):
        assert list(matrix(app, "X").grid.columns) == ["m1", "m2", "m3", "m4"]
        assert list(matrix(app, "Wq").grid.rows) == ["m1", "m2", "m3", "m4"]


def test_no_nan_or_inf_text_leaks_into_a_sentence():
    attention = Attention(load(SCENARIOS / "cat_sat.yaml"))
    for row in range(3):
        assert not any(word in sentence(attention, row) for word in ("nan", "inf"))
        assert math.isfinite(
            float(attention.statistics("softmax", 0, range(row, row + 1))["row_sum"][0])
        )


def test_a_projected_query_shows_where_it_came_from():
    """In a scenario that projects X, Score's Why derives q = x·Wq with real numbers (the
    chapter's projections: x3 = [1, 1, 0, 0], and Wq's first column picks x3's first entry)."""
    text = explain(Attention(load(SCENARIOS / "projections.yaml")), "score", 2, fold=None).plain()
    assert 'q3 = x3·Wq, where x3 = [1, 1, 0, 0]   (row "sat" of X)' in text
    assert (
        "its first entry = x3 · column 1 of Wq = (1 × 1) + (1 × 0) + (0 × 0) + (0 × 0) = 1" in text
    )


def test_each_head_derives_its_query_from_its_own_columns_of_wq():
    rng = np.random.RandomState(3)
    X, Wq, Wk, Wv = (
        rng.randint(-3, 4, (4, 6)),
        rng.randint(-2, 3, (6, 4)),
        rng.randint(-2, 3, (6, 4)),
        rng.randint(-2, 3, (6, 4)),
    )

    def rows(m):
        return "[" + ", ".join("[" + ", ".join(str(v) for v in row) + "]" for row in m) + "]"

    text = (
        "tokens: [a, b, c, d]\nheads: 2\n"
        f"X: {rows(X)}\nWq: {rows(Wq)}\nWk: {rows(Wk)}\nWv: {rows(Wv)}\n"
    )
    for rope in ("", "rope: {base: 10000}\n"):
        attention = Attention(loads(text + rope))
        why = explain(attention, "rotate" if rope else "score", 1, fold=None, head=1).plain()
        entry = int(X[1] @ Wq[:, 2])  # head 2 (d_k = 2) starts at column 3 of Wq
        terms = " + ".join(f"({x} × {w})".replace("-", MINUS) for x, w in zip(X[1], Wq[:, 2]))
        assert "q2 = x2·columns 3…4 of Wq" in why
        assert f"column 3 of Wq = {terms} = {str(entry).replace('-', MINUS)}" in why
