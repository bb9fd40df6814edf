"""Pattern scores (core.teaching.patterns) on hand-made weights whose answer is known."""

from __future__ import annotations

import numpy as np
import pytest

from attn_tui.core.teaching.patterns import PATTERNS, induction_targets, pattern_scores


def previous_token_head(T: int) -> np.ndarray:
    weights = np.zeros((T, T))
    weights[0, 0] = 1.0
    for i in range(1, T):
        weights[i, i - 1] = 1.0
    return weights


def test_a_previous_token_head_scores_one_on_previous_and_local():
    scores = pattern_scores(previous_token_head(6))
    assert scores["previous"] == 1.0 and scores["local"] == 1.0
    assert scores["self"] == 0.0
    assert scores["first"] == pytest.approx(1 / 5)  # row 1's previous token is the first


def test_a_sink_head_puts_everything_on_the_first_token():
    weights = np.zeros((10, 10))
    weights[:, 0] = 1.0
    scores = pattern_scores(weights)
    assert scores["first"] == 1.0 and scores["self"] == 0.0
    assert scores["previous"] == pytest.approx(1 / 9)  # only row 1's previous is the first
    assert scores["local"] == pytest.approx(3 / 9)  # rows 1, 2, 3 are within 3 of it


def test_uniform_causal_weights_score_by_counting():
    """Row i spreads 1/(i+1) over its i+1 keys: each score is a mean of counts over i + 1."""
    T = 8
    weights = np.tril(np.ones((T, T))) / np.arange(1, T + 1)[:, None]
    rows = np.arange(1, T)
    scores = pattern_scores(weights)
    assert scores["first"] == pytest.approx(np.mean(1 / (rows + 1)))
    assert scores["self"] == pytest.approx(np.mean(1 / (rows + 1)))
    assert scores["local"] == pytest.approx(np.mean(np.minimum(rows + 1, 4) / (rows + 1)))
    assert scores["induction"] is None  # no tokens, no repeats


def test_induction_targets_are_the_token_after_the_previous_occurrence():
    tokens = ["A", "B", "C", "D", "A", "B", "C", "D"]
    assert induction_targets(tokens) == [(4, 1), (5, 2), (6, 3), (7, 4)]
    # a repeat whose earlier occurrence is just before it points at itself: left out
    assert induction_targets(["x", "x", "x"]) == []
    assert induction_targets(["a", "b", "a", "c", "a"]) == [(2, 1), (4, 3)]  # the most recent


def test_an_induction_head_scores_one_on_induction():
    tokens = ["<s>", "the", "cat", "sat", "the", "cat", "sat"]
    T = len(tokens)
    weights = np.zeros((T, T))
    weights[:, 0] = 1.0  # rows with nothing repeated rest on the first token
    for row, key in [(4, 2), (5, 3), (6, 4)]:  # "the" → "cat", "cat" → "sat", "sat" → "the"
        weights[row] = 0.0
        weights[row, key] = 1.0
    scores = pattern_scores(weights, tokens)
    assert scores["induction"] == 1.0
    weights[6] = 0.0
    weights[6, 6] = 1.0  # one of the three rows looks at itself instead
    assert pattern_scores(weights, tokens)["induction"] == pytest.approx(2 / 3)


def test_cross_attention_scores_only_the_first_key():
    weights = np.full((3, 5), 0.2)
    scores = pattern_scores(weights, ["a", "b", "c", "d", "e"], cross=True)
    assert scores["first"] == pytest.approx(0.2)
    assert all(scores[name] is None for name in PATTERNS if name != "first")


def test_one_token_has_nothing_to_score():
    assert all(value is None for value in pattern_scores(np.ones((1, 1))).values())
