"""Check my implementation: each named mistake, made by a buggy implementation written here,
is recognised from its output alone; a correct implementation passes."""

from __future__ import annotations

import json

import numpy as np
import pytest

from attn_tui.core import loads
from attn_tui.core.teaching.compare import compare
from attn_tui.tui.cli import main

RNG = np.random.RandomState(3)
T, D = 5, 4
Q, K, V = RNG.randn(T, D), RNG.randn(T, D), RNG.randn(T, D)


def softmax(x, axis=-1):
    x = x - np.nanmax(x, axis=axis, keepdims=True)
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def student(bug=None, causal=True):
    """A student's attention, right or with one classic bug."""
    k = {"mask_hides_self": 0, "mask_sees_ahead": 2}.get(bug, 1)
    scores = (K @ Q.T) if bug == "transposed" else Q @ K.T
    divisor = {"unscaled": 1.0, "divided_by_d_k": D}.get(bug, np.sqrt(D))
    scaled = scores / divisor
    mask = np.triu(np.ones((T, T)), k=k).astype(bool)
    masked = scaled.copy()
    if causal and bug not in ("no_mask", "mask_after_softmax"):
        masked[mask] = -np.inf
    with np.errstate(invalid="ignore"):
        weights = softmax(masked, axis=0 if bug == "softmax_axis" else -1)
    if bug == "mask_after_softmax":
        weights = np.where(mask, 0.0, weights)
    output = weights @ (K if bug == "k_as_v" else V)
    return {"scores": scores, "scaled": scaled, "weights": weights, "output": output}


def scenario_with(stages: dict, causal=True, folder=None):
    def rows(matrix):
        return "[" + ", ".join("[" + ", ".join(_yaml(v) for v in row) + "]" for row in matrix) + "]"

    expect = "".join(f"  {name}: {rows(values)}\n" for name, values in stages.items())
    text = (
        f"Q: {rows(Q)}\nK: {rows(K)}\nV: {rows(V)}\ncausal: {str(causal).lower()}\n"
        f"expect:\n{expect}"
    )
    return loads(text, str(folder / "s.yaml") if folder else "<test>")


def _yaml(value):
    if np.isnan(value):
        return ".nan"
    if np.isinf(value):
        return "-.inf" if value < 0 else ".inf"
    return repr(float(value))


@pytest.mark.parametrize(
    "bug",
    [
        "unscaled",
        "divided_by_d_k",
        "no_mask",
        "mask_hides_self",
        "mask_sees_ahead",
        "mask_after_softmax",
        "softmax_axis",
        "k_as_v",
        "transposed",
    ],
)
@pytest.mark.parametrize("given", ["all", "output only"])
def test_each_mistake_is_named(bug, given):
    stages = student(bug)
    if given == "output only":
        stages = {"output": stages["output"]}
    comparison = compare(scenario_with(stages))
    assert not comparison.ok
    assert comparison.diagnosis is not None and comparison.diagnosis.key == bug


def test_a_correct_implementation_matches_everywhere():
    comparison = compare(scenario_with(student()))
    assert comparison.ok and comparison.diagnosis is None
    assert [s.stage for s in comparison.stages] == ["scores", "scaled", "weights", "output"]


def test_an_unknown_mistake_is_reported_without_a_name():
    stages = student()
    stages["weights"] = stages["weights"].copy()
    stages["weights"][2, 1] += 0.01
    comparison = compare(scenario_with(stages))
    assert comparison.first_difference.stage == "weights" and comparison.diagnosis is None
    assert (
        comparison.first_difference.differs.sum() == 1 and comparison.first_difference.differs[2, 1]
    )


def test_cells_left_out_are_not_compared():
    text = (
        "Q: [[1, 0], [0, 1]]\nK: [[1, 0], [0, 1]]\nV: [[1, 0], [0, 1]]\n"
        "expect:\n  weights: [[1, 0], [~, ~]]\n"
    )
    assert compare(loads(text)).ok


def test_check_exit_statuses_and_the_message(tmp_path, capsys):
    path = tmp_path / "s.yaml"
    stages = student("unscaled")
    scenario_with(stages)  # (validates the text)

    def rows(m):
        return "[" + ", ".join("[" + ", ".join(repr(float(v)) for v in r) + "]" for r in m) + "]"

    path.write_text(
        f"Q: {rows(Q)}\nK: {rows(K)}\nV: {rows(V)}\nexpect:\n  weights: {rows(stages['weights'])}\n"
    )
    assert main(["--check", str(path)]) == 1
    out = capsys.readouterr().out
    assert "weights: ✗" in out and "the scores were not divided by √d_k" in out
    assert "Fix: divide the scores by np.sqrt(d_k) before the softmax." in out
    path.write_text(
        f"Q: {rows(Q)}\nK: {rows(K)}\nV: {rows(V)}\n"
        f"expect:\n  weights: {rows(student()['weights'])}\n"
    )
    assert main(["--check", str(path)]) == 0
    assert "weights: ✓ matches" in capsys.readouterr().out
    path.write_text(f"Q: {rows(Q)}\nK: {rows(K)}\nV: {rows(V)}\nexpect:\n  weights: [[1, 2]]\n")
    assert main(["--check", str(path)]) == 2
    assert "expect weights is 1×2 but that stage is 5×5" in capsys.readouterr().err


def test_json_adds_the_comparison(tmp_path, capsys):
    np.savez(
        tmp_path / "mine.npz",
        weights=student("no_mask")["weights"],
        output=student("no_mask")["output"],
    )

    def rows(m):
        return "[" + ", ".join("[" + ", ".join(repr(float(v)) for v in r) + "]" for r in m) + "]"

    path = tmp_path / "s.yaml"
    path.write_text(
        f"Q: {rows(Q)}\nK: {rows(K)}\nV: {rows(V)}\nexpect_npz: mine.npz\nexpect_tolerance: 1e-9\n"
    )
    assert main(["--json", str(path)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["comparison"]["ok"] is False
    assert data["comparison"]["first_difference"] == "weights"
    assert data["comparison"]["diagnosis"]["mistake"] == "no_mask"


def test_a_students_nan_row_is_compared_not_refused(tmp_path):
    stages = student("mask_hides_self")  # row 0 can see nothing: NaN, as numpy gives
    assert np.isnan(stages["weights"][0]).all()
    comparison = compare(scenario_with({"weights": stages["weights"]}))
    assert comparison.diagnosis.key == "mask_hides_self"
