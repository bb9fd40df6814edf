"""A student's backward function (``attention_backward(Q, K, V, dO)`` returning dQ, dK, dV, or
named by ``--backward NAME``), checked against our backward pass (core.engine.backward, with
the scenario's Q, K, V and a fixed dO as ``loss: {grad: …}``) and against central finite
differences of our forward pass (L = Σ O ∘ dO); each wrong gradient named with the mistake
it matches: dV = Pᵀ·dO (not P·dO), the softmax Jacobian (dS = P ∘ (dP − rowsum(P ∘ dP))),
the 1/√d_k of the scale."""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field

import numpy as np

from attn_tui.core.engine.attention import Attention
from attn_tui.core.engine.backward import Backward
from attn_tui.core.engine.trace import trace
from attn_tui.core.model.scenario import Scenario
from attn_tui.grading.calling import CAUSAL_NAMES
from attn_tui.grading.failures import exception_verdict
from attn_tui.grading.runner import Submission

TOLERANCE = 1e-6
FD_TOLERANCE = (
    1e-5  # central differences, eps 1e-6, agree with the formulas to ~1e-8 on these sizes
)
EPS = 1e-6


@dataclass
class BackwardResult:
    ok: bool
    lines: list[str] = field(default_factory=list)
    wrong: dict[str, str] = field(default_factory=dict)  # gradient → the mistake it matches


def reference(scenario: Scenario, dO: np.ndarray) -> dict[str, np.ndarray]:
    """dQ, dK, dV from our backward pass, for the upstream gradient dO."""
    from attn_tui.core import loads

    def rows(matrix):
        return (
            "["
            + ", ".join("[" + ", ".join(repr(float(v)) for v in row) + "]" for row in matrix)
            + "]"
        )

    a = Attention(scenario).inputs
    Q, K, V = a.Q(0), a.K(0), a.V(0)
    text = (
        f"Q: {rows(Q)}\nK: {rows(K)}\nV: {rows(V)}\n"
        f"causal: {str(bool(scenario.options.causal)).lower()}\n"
        f"loss:\n  grad: {rows(dO)}\n"
    )
    head = Backward(Attention(loads(text))).head(0)
    return {"dQ": head["dQ"], "dK": head["dK"], "dV": head["dV"]}


def finite_differences(scenario: Scenario, dO: np.ndarray) -> dict[str, np.ndarray]:
    """dL/dQ, dK, dV by central differences of our forward pass, L = Σ O ∘ dO."""
    a = Attention(scenario).inputs
    inputs = {"Q": np.array(a.Q(0)), "K": np.array(a.K(0)), "V": np.array(a.V(0))}

    def loss(changed: dict) -> float:
        own = dataclasses.replace(
            scenario, inputs=changed, expect={}, stage_settings={}, files={}, random=None
        )
        return float(np.sum(trace(Attention(own))["output"] * dO))

    found = {}
    for name, value in inputs.items():
        gradient = np.zeros_like(value)
        for index in np.ndindex(value.shape):
            up, down = dict(inputs), dict(inputs)
            up[name], down[name] = value.copy(), value.copy()
            up[name][index] += EPS
            down[name][index] -= EPS
            gradient[index] = (loss(up) - loss(down)) / (2 * EPS)
        found[f"d{name}"] = gradient
    return found


def mistakes(scenario: Scenario, dO: np.ndarray) -> dict[str, dict[str, np.ndarray]]:
    """Each gradient computed the known wrong ways, by gradient."""
    correct = trace(Attention(scenario))
    P, Q, K, V = correct["weights"], correct.Q, correct.K, correct.V
    divisor = math.sqrt(Q.shape[1])
    dP = dO @ V.T
    dS = P * (dP - np.sum(P * dP, axis=1, keepdims=True))
    found = {
        "dV": {
            "dV = P·dO (P not transposed: it must be Pᵀ·dO)": P @ dO
            if P.shape[0] == P.shape[1]
            else None,
            "dV = dO (the weights left out: dV = Pᵀ·dO)": dO if dO.shape == V.shape else None,
        },
        "dQ": {
            "the 1/√d_k is missing (dQ = dS·K / √d_k)": dS @ K,
            "the softmax Jacobian is missing (dS = P ∘ (dP − rowsum(P ∘ dP)), not dP)": dP
            @ K
            / divisor,
        },
        "dK": {
            "the 1/√d_k is missing (dK = dSᵀ·Q / √d_k)": dS.T @ Q,
            "the softmax Jacobian is missing (dS = P ∘ (dP − rowsum(P ∘ dP)), not dP)": dP.T
            @ Q
            / divisor,
        },
    }
    return {
        name: {what: value for what, value in ways.items() if value is not None}
        for name, ways in found.items()
    }


def check_backward(submission: Submission, scenario: Scenario) -> BackwardResult:
    info = submission.info
    name = info["backward"]
    a = Attention(scenario).inputs
    arrays = {"Q": np.array(a.Q(0)), "K": np.array(a.K(0)), "V": np.array(a.V(0))}
    dO = np.random.RandomState(43).randn(scenario.T, scenario.d_v)
    arrays["dO"] = dO
    parameters = info.get("backward_parameters", [])
    keywords = {
        p: bool(scenario.options.causal) for p, _, _ in parameters if p.lower() in CAUSAL_NAMES
    }
    answer, returned = submission.call(
        arrays, positional=["Q", "K", "V", "dO"], keywords=keywords, function=name
    )
    title = f"Backward ({name}, dO fixed, seed 43):"
    if not answer.get("ok"):
        return BackwardResult(
            False, [f"{title} ✗ {exception_verdict(answer, submission.path, submission.memory)}"]
        )
    parts = [np.squeeze(part) if part.ndim > 2 else part for part in returned]
    ours, differences = reference(scenario, dO), finite_differences(scenario, dO)
    if len(parts) < 3 or any(
        part.shape != ours[key].shape for part, key in zip(parts, ("dQ", "dK", "dV"))
    ):
        shapes = ", ".join("×".join(map(str, part.shape)) for part in parts) or "nothing"
        return BackwardResult(
            False,
            [
                (
                    f"{title} ✗ returned {shapes}; expected dQ, dK, dV "
                    f"({'×'.join(map(str, ours['dQ'].shape))}, "
                    f"{'×'.join(map(str, ours['dK'].shape))}, "
                    f"{'×'.join(map(str, ours['dV'].shape))})"
                )
            ],
        )
    lines, wrong = [title], {}
    known = mistakes(scenario, dO)
    for key, yours in zip(("dQ", "dK", "dV"), parts[:3]):
        off = float(np.max(np.abs(yours - ours[key]))) if np.all(np.isfinite(yours)) else math.inf
        fd = float(np.max(np.abs(ours[key] - differences[key])))
        if off <= TOLERANCE:
            lines.append(
                f"  {key}: ✓ matches our backward pass "
                f"(and finite differences, within {max(fd, 1e-12):.0e})"
            )
            continue
        named = next(
            (
                what
                for what, value in known[key].items()
                if np.all(np.isfinite(yours)) and np.max(np.abs(yours - value)) <= TOLERANCE
            ),
            None,
        )
        wrong[key] = named or "other"
        said = f" — {named}" if named else ""
        lines.append(
            f"  {key}: ✗ off by up to {off:.3g} from our backward pass "
            f"and from finite differences{said}"
        )
    return BackwardResult(not wrong, lines, wrong)
