"""core/lessons/played_in_order.py: the checks of a lesson that need its beats played in order:
a beat that asks for a prediction shows a stage a student can predict, wherever the earlier
beats left the step; and every beat's numbers and options stay within float64. Each refusal is
one line at the beat's key, its column counted by hand; a key of 1e200 makes 1e200 × 1e200
past float64's largest, about 1.8e308."""

from __future__ import annotations

import pytest

from attn_tui.core import ScenarioError, loads

BASE = """\
tokens: [a, b]
Q: [[1, 0], [0, 1]]
K: [[1, 0], [0, 1]]
V: [[1, 2], [3, 4]]
"""
HUGE_KEY = BASE.replace("K: [[1, 0]", "K: [[1e200, 0]")
PREDICTABLE = "(predict a row of score, scale, softmax, weighted_sum)"


def error(text: str) -> str:
    with pytest.raises(ScenarioError) as caught:
        loads(text, "l.yaml")
    return str(caught.value)


def test_a_beat_predicting_a_stage_a_student_can_predict_loads():
    assert len(loads(BASE + "lesson:\n  - {step: softmax, row: b, predict: row}\n").lesson.beats)


def test_a_beat_predicting_the_mask_is_refused_at_its_predict():
    assert error(BASE + "lesson:\n  - {step: mask, row: b, predict: row}\n") == (
        f"l.yaml:6:26: lesson beat 1: the mask stage is not one to predict {PREDICTABLE}; "
        "give one of them as its step:"
    )


def test_a_beat_left_at_the_mask_by_an_earlier_beat_says_so():
    assert error(BASE + "lesson:\n  - {step: mask}\n  - {row: b, predict: row}\n") == (
        f"l.yaml:7:14: lesson beat 2: the mask stage is not one to predict {PREDICTABLE}; "
        "it is at step mask from an earlier beat: give one of them as its step:"
    )


def test_an_edit_that_overflows_is_refused_at_its_beat():
    text = HUGE_KEY + "lesson:\n  - {step: score, edit: {matrix: Q, row: a, col: d1, to: 1e200}}\n"
    assert error(text) == (
        "l.yaml:6:19: lesson beat 1: with this beat, the score (a, a) overflows float64 (inf); "
        "use smaller numbers"
    )


def test_the_beats_are_played_in_order_so_the_first_that_overflows_is_named():
    fine = "  - {step: score, edit: {matrix: Q, row: a, col: d1, to: 2}}\n"
    huge = "  - {step: score, edit: {matrix: Q, row: a, col: d1, to: 1e200}}\n"
    assert error(HUGE_KEY + "lesson:\n" + fine + huge).startswith("l.yaml:7:19: lesson beat 2:")
    # a later beat that would set it back does not save the beat before it
    assert error(HUGE_KEY + "lesson:\n" + huge + fine).startswith("l.yaml:6:19: lesson beat 1:")


def test_a_scale_a_beat_sets_is_checked_against_the_numbers_then():
    text = HUGE_KEY + "scale: false\nlesson:\n  - {step: score, set: {scale: 1e-300}}\n"
    assert error(text) == (
        "l.yaml:7:19: lesson beat 1: with this beat, a scaled score overflows float64 (scores "
        "up to 1.000e+200, divided by 1e-300); use a larger scale"
    )
