"""The shared judgement: one Judge per scenario judges many sets of numbers; the
expected numbers are the chapter's (cat sat: "sat" pays 25%, 25%, 50%) or tests/reference.py's."""

from __future__ import annotations

import math

import numpy as np
import pytest

from attn_tui.core import load, loads
from attn_tui.core.loading.catalog import find
from attn_tui.core.teaching.judgement import Judge
from tests.reference import chapter_attention, softmax

Q = np.array([[1.0, 0], [0, 1], [1, 1]])
K = Q.copy()
V = np.array([[1.0, 0], [0, 1], [0.5, 0.5]])


@pytest.fixture(scope="module")
def judge():
    return Judge(load(find("cat_sat")))


def test_the_chapters_own_numbers_are_right(judge):
    output, weights = chapter_attention(Q.copy(), K.copy(), V.copy())
    assert judge("weights", weights).right
    found = judge("output", output)
    assert found.right and found.words == "right" and found.mistake is None


def test_one_predicted_row_is_judged_by_its_cells(judge):
    sat = np.full((3, 3), np.nan)
    weights = softmax(
        np.array([1.0, 1.0, 2.0]) / math.sqrt(2)
    )  # "sat": scores 1, 1, 2 over √2, by hand
    sat[2] = weights
    assert judge("weights", sat).right
    assert judge.row("weights", 2, weights).right
    # the description's rounded 25%, 25%, 50% are not attention's 0.248, 0.248, 0.503
    rounded = judge.row("weights", 2, [0.25, 0.25, 0.5])
    assert not rounded.right and rounded.words == "other"


def test_an_unscaled_row_is_named(judge):
    # "sat" unscaled: scores 1, 1, 2 → softmax by hand
    found = judge.row("weights", 2, softmax([1.0, 1.0, 2.0]))
    assert not found.right and found.mistake == "unscaled"
    assert found.words == "forgot to divide by √d_k"
    assert found.diagnosis is not None and "√d_k" in found.diagnosis.what


def test_numbers_no_mistake_gives_are_other(judge):
    found = judge.row("weights", 2, [0.9, 0.05, 0.05])
    assert not found.right and found.mistake is None and found.words == "other"


def test_the_wrong_shape_is_said(judge):
    with pytest.raises(ValueError, match="3 × 3"):
        judge("weights", np.zeros((2, 3)))


def test_the_work_is_done_once(judge):
    unscaled = softmax([1.0, 1.0, 2.0])
    judge.row("weights", 2, unscaled)
    cached = judge.mistaken("unscaled")
    judge.row("weights", 2, unscaled)
    assert judge.mistaken("unscaled") is cached


def _scenario(Q, K, V, causal=True):
    def rows(m):
        return (
            "[" + ", ".join("[" + ", ".join(repr(float(v)) for v in row) + "]" for row in m) + "]"
        )

    return loads(f"Q: {rows(Q)}\nK: {rows(K)}\nV: {rows(V)}\ncausal: {str(causal).lower()}\n")


def _naive_softmax(x):
    e = np.exp(x)  # no max subtracted: overflows for scores over ~709
    return e / e.sum(axis=-1, keepdims=True)


def test_a_softmax_that_overflows_is_named():
    rng = np.random.RandomState(5)
    Q, K, V = rng.randn(4, 2) * 40, rng.randn(4, 2) * 40, rng.randn(4, 2)
    judge = Judge(_scenario(Q, K, V, causal=False))
    scores = Q @ K.T / math.sqrt(2)
    assert np.abs(scores).max() > 710  # large enough that exp overflows
    with np.errstate(over="ignore", invalid="ignore"):
        weights = _naive_softmax(scores)
    assert np.isnan(weights).any()
    found = judge("weights", weights, given=np.ones(weights.shape, bool))  # its NaN are values
    assert found.mistake == "softmax_overflow" and "overflow" in found.words
    assert judge("output", weights @ V, given=True).mistake == "softmax_overflow"


def test_masking_with_zero_is_named():
    rng = np.random.RandomState(6)
    Q, K, V = rng.randn(4, 3), rng.randn(4, 3), rng.randn(4, 3)
    judge = Judge(_scenario(Q, K, V))
    scores = Q @ K.T / math.sqrt(3)
    scores = scores * np.tril(np.ones((4, 4)))  # a 0/1 mask multiplied in: hidden scores are 0
    found = judge("output", softmax(scores) @ V)
    assert found.mistake == "mask_zero" and found.words == "masked with 0, not −∞"


@pytest.mark.parametrize("written", ["in place of the scores", "added to the scores"])
def test_the_mask_off_by_one_written_with_a_finite_value_is_named(written):
    # np.triu(…, k=0) hides the diagonal too: the first token sees nothing. With −∞ its row is
    # NaN; with −1e9 in place of the scores it is uniform, with −1e9 added it is as if unmasked
    rng = np.random.RandomState(7)
    Q, K, V = rng.randn(4, 3), rng.randn(4, 3), rng.randn(4, 2)
    judge = Judge(_scenario(Q, K, V))
    scores = Q @ K.T / math.sqrt(3)
    hidden = np.triu(np.ones((4, 4)), k=0)
    if written == "in place of the scores":
        scores = np.where(hidden == 1, -1e9, scores)
    else:
        scores = scores + hidden * -1e9
    weights = softmax(scores)
    first = (
        np.full(4, 0.25) if written == "in place of the scores" else softmax(Q[0] @ K.T / 3**0.5)
    )
    assert np.allclose(weights[0], first)
    for stage, values in (("weights", weights), ("output", weights @ V)):
        found = judge(stage, values, given=True)
        assert found.mistake == "mask_hides_self", (stage, found.words)
        assert "the mask is off by one" in found.diagnosis.what


def test_a_first_row_of_uniform_weights_alone_is_not_named_a_mask_off_by_one(judge):
    # "the" sees only itself: 1, 0, 0. A guess of 1/3 each for that row alone is no evidence of
    # k=0 (which would leave "the" a row of −1e9s): only the other rows it changes are
    guess = np.full((3, 3), np.nan)
    guess[0] = 1 / 3
    found = judge("weights", guess)
    assert not found.right and found.mistake != "mask_hides_self"


def test_a_reused_judge_judges_each_pattern_of_cells_as_a_fresh_one_does():
    # (a Judge remembers which mistakes move which given cells; rows giving different cells, in
    # any order, must each be judged as if first). "sat" unscaled by hand: e, e, e² over 2e + e².
    unscaled = softmax([1.0, 1.0, 2.0])
    right = softmax(np.array([1.0, 1.0, 2.0]) / math.sqrt(2))
    # "the" with the mask applied after the softmax, by hand: scaled [0.707, 0, 0.707] →
    # e^0.707 = 2.028, 1, 2.028 over 5.056 → 0.401 on itself, the future zeroed: a mistake that
    # moves "the"'s own cell only (its other cells are 0 either way), so a row giving only cell 1
    # must not hide it later
    after = 2.028 / 5.056
    rows = [
        (0, [np.nan, 0.5, np.nan]),
        (0, [after, np.nan, np.nan]),
        (2, [unscaled[0], np.nan, np.nan]),
        (2, [np.nan, np.nan, unscaled[2]]),
        (2, list(unscaled)),
        (2, [right[0], np.nan, np.nan]),
        (2, [np.nan, 0.9, np.nan]),
        (2, [unscaled[0], right[1], np.nan]),
    ]
    reused = Judge(load(find("cat_sat")))
    for order in (rows, rows[::-1]):
        for at, row in order:
            fresh = Judge(load(find("cat_sat"))).row("weights", at, row)
            found = reused.row("weights", at, row)
            assert (found.right, found.mistake, found.words) == (
                fresh.right,
                fresh.mistake,
                fresh.words,
            ), row
    assert reused.row("weights", 0, [after, np.nan, np.nan]).mistake is not None
    assert reused.row("weights", 2, list(unscaled)).mistake == "unscaled"
    assert reused.row("weights", 2, [np.nan, np.nan, unscaled[2]]).mistake == "unscaled"
    assert reused.row("weights", 2, [right[0], np.nan, np.nan]).right
