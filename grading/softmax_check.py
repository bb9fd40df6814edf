"""The student's own ``softmax``, when the file defines one: called on rows of small scores and
of scores ~1,000 (where exp overflows unless each row's max is subtracted first), and compared
with the softmax worked out here from its formula."""

from __future__ import annotations

import numpy as np

from attn_tui.core.teaching.mistakes import MISTAKE_NAMED
from attn_tui.grading.failures import exception_verdict
from attn_tui.grading.runner import Submission

ROWS = np.array(
    [[1.0, 2.0, 3.0], [0.5, 0.5, -1.0], [1000.0, 1001.0, 1002.0], [-1000.0, -1001.0, -999.0]]
)
TOLERANCE = 1e-6


def expected() -> np.ndarray:
    shifted = ROWS - ROWS.max(axis=1, keepdims=True)
    e = np.exp(shifted)
    return e / e.sum(axis=1, keepdims=True)


def check_softmax(submission: Submission) -> tuple[bool, str, str]:
    """Whether the student's softmax is right, one line saying so, and the words a class's tally
    counts it under (a named mistake's own, where it is one: core/teaching/mistakes.py)."""
    answer, returned = submission.call({"x": ROWS}, positional=["x"], function="softmax")
    if not answer.get("ok"):
        return (
            False,
            f"softmax: ✗ {exception_verdict(answer, submission.path, submission.memory)}",
            "own softmax: an exception",
        )
    if not returned or returned[0].shape != ROWS.shape:
        shape = f"{ROWS.shape[0]}×{ROWS.shape[1]}"
        return (
            False,
            f"softmax: ✗ softmax of a {shape} array is not {shape}",
            "own softmax: the wrong shape",
        )
    yours, right = returned[0], expected()
    tolerance = TOLERANCE if answer.get("dtypes", ["float64"])[0] == "float64" else 1e-4
    good = np.abs(yours - right) <= tolerance
    if good.all():
        return True, "softmax: ✓ matches, scores of ~1,000 included", "right"
    if good[:2].all():
        nan = "NaN" if np.isnan(yours[2:]).any() else "wrong numbers"
        line = (
            f"softmax: ✗ overflows on scores of ~1,000 (yours gives {nan}): "
            "subtract each row's max before exp"
        )
        return False, line, MISTAKE_NAMED["softmax_overflow"].words
    if np.allclose(
        yours.sum(axis=0), 1, atol=tolerance
    ):  # (all four rows in one array: its columns)
        return (
            False,
            "softmax: ✗ it normalises the columns: sum over axis=-1 (each row sums to 1)",
            MISTAKE_NAMED["softmax_axis"].words,
        )
    return False, "softmax: ✗ softmax([1, 2, 3]) is not [0.090, 0.245, 0.665]", "own softmax: other"
