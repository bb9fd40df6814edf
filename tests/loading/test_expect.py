"""core/loading/expect.py: a student's own numbers (``expect:``), their tolerance, and the stages
to ``predict:``, as read, and each mistake as one line at its place (columns counted by hand).
The stages a one-head scenario without projections has: scores, scaled, weights, output."""

from __future__ import annotations

import math

import numpy as np
import pytest

from attn_tui.core import ScenarioError, load, loads

BASE = """\
tokens: [a, b]
causal: false
Q: [[1, 0], [0, 1]]
K: [[1, 0], [0, 1]]
V: [[1, 2], [3, 4]]
"""
STAGES = "scores, scaled, weights, output"


def error(extra: str) -> str:
    with pytest.raises(ScenarioError) as caught:
        loads(BASE + extra, "e.yaml")
    return str(caught.value)


def test_a_students_values_with_a_cell_left_out():
    expected = loads(BASE + "expect: {weights: [[0.5, 0.5], [null, 1]]}\n").expect["weights"]
    assert expected.given.tolist() == [[True, True], [False, True]]
    assert expected.values[0].tolist() == [0.5, 0.5] and expected.values[1, 1] == 1.0


def test_a_students_nan_or_infinity_is_kept_to_be_judged():
    """Their code's bug is what the check is for: it is not refused as the file's own would be."""
    values = loads(BASE + "expect: {weights: [[.nan, .inf], [0, 1]]}\n").expect["weights"].values
    assert math.isnan(values[0, 0]) and values[0, 1] == math.inf


def test_a_students_values_from_a_npy_file(tmp_path):
    np.save(tmp_path / "w.npy", np.array([[0.25, 0.75], [1.0, 0.0]]))
    (tmp_path / "s.yaml").write_text(BASE + "expect: {weights: {npy: w.npy}}\n")
    assert load(tmp_path / "s.yaml").expect["weights"].values.tolist() == [[0.25, 0.75], [1, 0]]


def test_the_tolerance_defaults_to_a_millionth_and_must_be_positive():
    assert loads(BASE).expect_tolerance == 1e-6
    assert loads(BASE + "expect_tolerance: 0.01\n").expect_tolerance == 0.01
    assert error("expect_tolerance: 0\n") == "e.yaml:6:19: expect_tolerance must be positive, not 0"


def test_predict_keeps_each_stage_once_in_order():
    assert loads(BASE + "predict: [weights, scores, weights]\n").predict == ("weights", "scores")
    assert loads(BASE + "predict: output\n").predict == ("output",)


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ("expect: {output: [[1, 2]]}\n", "e.yaml:6:18: expect output is 1×2 but that stage is 2×2"),
        (
            "expect: {wieghts: [[1, 0], [0, 1]]}\n",
            "e.yaml:6:10: unknown key 'wieghts' in expect; did you mean 'weights'?",
        ),
        (
            "expect: {projected: [[1, 0], [0, 1]]}\n",
            f"e.yaml:6:10: expect projected: this scenario has no Project step; give {STAGES}",
        ),
        (
            "predict: weight\n",
            "e.yaml:6:10: predict: 'weight' is not a stage one can predict here "
            f"({STAGES}); did you mean 'weights'?",
        ),
        (
            "predict: [projected]\n",
            "e.yaml:6:11: predict: 'projected': this scenario has no Project step; "
            f"predict {STAGES}",
        ),
        (
            "predict: [mask]\n",
            f"e.yaml:6:11: predict: 'mask' is not a stage one can predict here ({STAGES})",
        ),
    ],
)
def test_each_mistake_is_one_line_at_its_place(extra, message):
    assert error(extra) == message
