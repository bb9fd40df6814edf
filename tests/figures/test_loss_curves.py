"""``attn-tui figure SCENARIO --train`` (issue 45): the loss curves of a scenario's training
runs, checked against gradient descent on V worked out here (P does not move when only V
learns, so each step is V ← V − lr·Pᵀ(P·V − target) and the loss ½·Σ(P·V − target)²)."""

import math
import xml.etree.ElementTree as ET

import numpy as np

from attn_tui.tui.cli import main
from tests.reference import softmax

SVG = "{http://www.w3.org/2000/svg}"
Q = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
K = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
V = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
TARGET = np.array([[0.0, 1.0], [1.0, 0.0], [0.5, 0.5]])
LR, STEPS = 0.2, 30


def scenario(tmp_path, variants=True, name="scaled"):
    text = (
        "title: Two runs\ntokens: [the, cat, sat]\n"
        f"Q: {Q.tolist()}\nK: {K.tolist()}\nV: {V.tolist()}\n"
        f"loss: {{target: {TARGET.tolist()}}}\ntrain: {{learn: [V], lr: {LR}, steps: {STEPS}}}\n"
    )
    if variants:
        text += f"variants: [{{name: '{name}', scale: true}}, {{name: unscaled, scale: false}}]\n"
    path = tmp_path / "runs.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def descent(scale: bool) -> list[float]:
    scores = Q @ K.T / (math.sqrt(2) if scale else 1.0)
    scores[np.triu_indices(3, 1)] = -np.inf
    P = softmax(scores)
    values, losses = V.copy(), []
    for _ in range(STEPS + 1):
        error = P @ values - TARGET
        losses.append(0.5 * float((error**2).sum()))
        values = values - LR * P.T @ error
    return losses


def curves(root):
    return [line for line in root.iter(SVG + "polyline") if line.get("class") == "curve"]


def test_each_run_s_curve_is_its_losses_from_step_0_to_the_last(tmp_path, capsys):
    assert main(["figure", str(scenario(tmp_path)), "--train"]) == 0
    root = ET.fromstring(capsys.readouterr().out.encode())
    drawn = curves(root)
    assert len(drawn) == 2
    for line, scale in zip(drawn, (True, False)):
        expected = descent(scale)
        assert math.isclose(float(line.get("data-first")), expected[0], rel_tol=1e-12)
        assert math.isclose(float(line.get("data-last")), expected[-1], rel_tol=1e-12)
        points = [tuple(map(float, pair.split(","))) for pair in line.get("points").split()]
        assert len(points) == STEPS + 1
        xs, ys = zip(*points)
        assert list(xs) == sorted(xs)  # step by step, left to right
        # a higher loss is drawn higher (a smaller y): the order of the ys is the order of the
        # losses
        assert np.array_equal(
            np.argsort(ys, kind="stable"), np.argsort(-np.array(expected), kind="stable")
        )
    texts = [t.text for t in root.iter(SVG + "text")]
    assert any(text.startswith("scaled: loss ") for text in texts)
    assert any(text.startswith("unscaled: loss ") for text in texts)
    assert "step" in texts and ("loss" in texts or "loss (log scale)" in texts)


def test_a_loss_that_falls_by_orders_of_magnitude_is_drawn_on_a_log_axis(capsys):
    assert main(["figure", "learning_to_attend", "--train"]) == 0
    root = ET.fromstring(capsys.readouterr().out.encode())
    texts = [t.text for t in root.iter(SVG + "text")]
    assert "loss (log scale)" in texts
    ticks = [t.text for t in root.iter(SVG + "text") if t.get("class") == "tick"]
    assert ticks == ["0.001", "0.01", "0.1", "1", "10"]
    # the course's argument: scaled falls to almost 0, unscaled stalls (docs/scenarios.md)
    first = {line.get("data-first"): float(line.get("data-last")) for line in curves(root)}
    assert len(first) == 2 and min(first.values()) < 0.01 < 10 < max(first.values())


def test_without_variants_the_scenario_s_own_run_and_a_linear_axis(tmp_path, capsys):
    assert main(["figure", str(scenario(tmp_path, variants=False)), "--train"]) == 0
    root = ET.fromstring(capsys.readouterr().out.encode())
    assert len(curves(root)) == 1
    texts = [t.text for t in root.iter(SVG + "text")]
    assert "loss" in texts and "loss (log scale)" not in texts
    assert any(text.startswith("this scenario: loss ") for text in texts)


def test_refusals_are_one_line(tmp_path, capsys):
    assert main(["figure", "cat_sat", "--train"]) == 2
    assert "no train:" in capsys.readouterr().err
    assert main(["figure", str(scenario(tmp_path)), "--train", "--stage", "scores"]) == 2
    assert "--stage goes with a stage's figure, not with --train" in capsys.readouterr().err
    path = scenario(tmp_path)
    path.write_text(path.read_text().replace(f"lr: {LR}", "lr: 1e200"))
    assert main(["figure", str(path), "--train"]) == 2
    err = capsys.readouterr().err
    assert "overflow" in err and err.count("\n") == 1


def test_a_hostile_run_name_stays_text(tmp_path, capsys):
    assert main(["figure", str(scenario(tmp_path, name="<script>&\\e[31m")), "--train"]) == 0
    out = capsys.readouterr().out
    assert "<script>" not in out and "\x1b" not in out
    root = ET.fromstring(out.encode())
    assert any(text.startswith("<script>&") for text in (t.text for t in root.iter(SVG + "text")))
