"""Every backward ``expect:`` key is checked as a forward one is (issue 49:
``expect: {d_output: …}`` was reported to exit 3 with ``KeyError: 'd_output'``): the right numbers
give ✓ and exit 0, one wrong cell gives ✗, that cell and exit 1, on one head, one head with Wo,
and two heads. The right numbers come from the backward pass written here from its formulas, not
from the program: dO = O − target, dV = Pᵀ·dO, dP = dO·Vᵀ, dS = P ∘ (dP − rowsum(dP ∘ P)),
dQ = dS·K/√d_k, dK = dSᵀ·Q/√d_k."""

from __future__ import annotations

import json
import math
import subprocess
import sys

import numpy as np
import pytest

from tests.reference import softmax

Q = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
K = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
V = np.array([[1.0, 0.0], [0.0, 1.0], [0.5, 0.5]])
TARGET = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
SCENARIO = (
    "tokens: [the, cat, sat]\nQ: [[1, 0], [0, 1], [1, 1]]\nK: [[1, 0], [0, 1], [1, 1]]\n"
    "V: [[1, 0], [0, 1], [0.5, 0.5]]\ncausal: true\n"
)


def backward(q, k, v, d_output):
    """One causal head's gradients by their formulas (float64)."""
    visible = np.tril(np.ones((3, 3), dtype=bool))
    P = softmax(np.where(visible, q @ k.T / math.sqrt(2), -math.inf))
    dP = d_output @ v.T
    dS = P * (dP - (dP * P).sum(axis=1, keepdims=True))
    return {
        "d_values": P.T @ d_output,
        "d_weights": dP,
        "d_scores": dS,
        "d_queries": dS @ k / math.sqrt(2),
        "d_keys": dS.T @ q / math.sqrt(2),
    }, P @ v


def one_head():
    _, O = backward(Q, K, V, np.zeros((3, 2)))
    d_output = O - TARGET
    found, _ = backward(Q, K, V, d_output)
    return SCENARIO + f"loss: {{target: {TARGET.tolist()}}}\n", {"d_output": d_output, **found}


def with_wo():
    """Wo = 2·I: the output is 2·O, so dO (of the layer) = 2·O − target and a head's dO = 2·that."""
    _, O = backward(Q, K, V, np.zeros((3, 2)))
    d_output = 2 * O - TARGET
    found, _ = backward(Q, K, V, 2 * d_output)
    return (
        SCENARIO + "Wo: [[2, 0], [0, 2]]\n" + f"loss: {{target: {TARGET.tolist()}}}\n",
        {"d_output": d_output, **found},
    )


def two_heads():
    """Two heads, the second with V doubled: the layer's output is [O₁ | 2·O₁]."""
    _, O = backward(Q, K, V, np.zeros((3, 2)))
    target = np.hstack([TARGET, TARGET])
    d_output = np.hstack([O, 2 * O]) - target
    first, _ = backward(Q, K, V, d_output[:, :2])
    second, _ = backward(Q, K, 2 * V, d_output[:, 2:])
    text = (
        "tokens: [the, cat, sat]\nheads: 2\ncausal: true\n"
        f"Q: {[Q.tolist(), Q.tolist()]}\nK: {[K.tolist(), K.tolist()]}\n"
        f"V: {[V.tolist(), (2 * V).tolist()]}\n"
        f"loss: {{target: {target.tolist()}}}\n"
    )
    return text, {
        "d_output": d_output,
        **{key: np.stack([first[key], second[key]]) for key in first},
    }


CASES = {"one head": one_head, "Wo": with_wo, "two heads": two_heads}
KEYS = ("d_output", "d_values", "d_weights", "d_scores", "d_queries", "d_keys")


def run(tmp_path, text, command):
    path = tmp_path / "s.yaml"
    path.write_text(text)
    return subprocess.run(
        [sys.executable, "-m", "attn_tui", command, str(path)], capture_output=True, text=True
    )


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("key", KEYS)
def test_each_backward_key_is_checked_right_and_wrong(tmp_path, case, key):
    text, correct = CASES[case]()
    values = correct[key]
    right = run(tmp_path, text + f"expect:\n  {key}: {json.dumps(values.tolist())}\n", "check")
    assert right.returncode == 0, right.stdout + right.stderr
    assert "✓ matches" in right.stdout and "✗" not in right.stdout
    wrong = values.copy()
    wrong[(0,) * (wrong.ndim - 2) + (2, 1)] += 0.25  # sat's second column (of the first head)
    text += f"expect:\n  {key}: {json.dumps(wrong.tolist())}\n"
    done = run(tmp_path, text, "check")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "✗ 1 cell differs" in done.stdout and "(sat, " in done.stdout
    assert f"The first stage that differs is {key}" in done.stdout
    exported = run(tmp_path, text, "json")
    assert exported.returncode == 0, exported.stderr
    comparison = json.loads(exported.stdout)["comparison"]
    assert not comparison["ok"] and comparison["first_difference"] == key
    assert [stage["cells"] for stage in comparison["stages"] if not stage["matches"]] == [[[2, 1]]]
