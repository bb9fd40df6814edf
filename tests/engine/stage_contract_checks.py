"""The checks of what a stage declares beside its arithmetic (core/engine/stages/contract.py),
written once: for every stage of the registry (tests/engine/test_stage_contract.py) and for a
throwaway stage (tests/engine/test_a_throwaway_stage_is_held_to_its_gradient_and_range_rule.py);
and the small random scenarios they run on.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from attn_tui.core.engine.attention import Attention, Window
from attn_tui.core.engine.backward import gradients
from attn_tui.core.engine.gradient_check import finite_difference
from attn_tui.core.engine.stages import Stage
from attn_tui.core.engine.stages.contract import ChainRule

# ---- small random scenarios -------------------------------------------------------------------

RNG = np.random.default_rng(46)  # one generator for both test modules, as when they were one


def matrix(rows: int, cols: int, size: float = 1.0) -> str:
    return json.dumps(np.round(RNG.normal(scale=size, size=(rows, cols)), 3).tolist())


def qkv(extra: str = "", T: int = 3, d: int = 2) -> str:
    return (
        f"tokens: {json.dumps([f't{i}' for i in range(T)])}\nQ: {matrix(T, d)}\nK: {matrix(T, d)}\n"
        f"V: {matrix(T, d)}\nloss: {{target: {matrix(T, d)}}}\n{extra}"
    )


def projected(extra: str = "") -> str:
    """Two heads of d_k = 2 projected from X, then Wo: Concat and Project."""
    return (
        f"tokens: [a, b, c]\nheads: 2\nX: {matrix(3, 3)}\nWq: {matrix(3, 4)}\nWk: {matrix(3, 4)}\n"
        f"Wv: {matrix(3, 4)}\nWo: {matrix(4, 3)}\nloss: {{target: {matrix(3, 3)}}}\n{extra}"
    )


class Fed(Window):
    """A window whose stage reads ``before`` as the stage before it: its compute and its
    derivative then work on any scores a test chooses."""

    def __init__(self, attention, stage, before: np.ndarray) -> None:
        super().__init__(
            attention, stage, 0, range(before.shape[0]), range(before.shape[1]), keep=False
        )
        self.before = before

    def previous(self, cols=None) -> np.ndarray:
        return self.before


def check_chain_rule(scenario, stage: Stage, eps: float = 1e-6) -> None:
    """The ChainRule against central finite differences of ``compute``: for random scores X and
    a random upstream gradient G, Σ G ∘ ∂compute/∂X_ij measured, cell by cell, is what ``back``
    gives; and ``back`` is G times the ``derivative`` it declares."""
    attention = Attention(scenario)
    X = RNG.normal(scale=2.0, size=(scenario.T, scenario.T_k))
    G = RNG.normal(size=X.shape)
    derived = stage.gradient.back(Fed(attention, stage, X), G)
    said = G * np.broadcast_to(stage.gradient.derivative(Fed(attention, stage, X)), X.shape)
    assert np.allclose(derived, said, rtol=1e-12, atol=0), stage.name
    for i, j in np.ndindex(X.shape):
        up, down = X.copy(), X.copy()
        up[i, j] += eps
        down[i, j] -= eps
        measured = (
            np.sum(G * stage.arithmetic.compute(Fed(attention, stage, up)))
            - np.sum(G * stage.arithmetic.compute(Fed(attention, stage, down)))
        ) / (2 * eps)
        assert measured == pytest.approx(derived[i, j], abs=1e-7, rel=1e-6), (stage.name, i, j)


def check_end_to_end(scenario, label: str) -> None:
    """dL/d every input cell from the backward pass against the loss measured either side of it."""
    found = gradients(scenario).inputs
    for name, values in scenario.inputs.items():
        for index in np.ndindex(values.shape):
            measured = finite_difference(scenario, name, index)
            assert measured == pytest.approx(found[name][index], abs=1e-7, rel=1e-6), (
                label,
                name,
                index,
            )


def check_range_rule(scenario, stage: Stage) -> None:
    """Over random scores before the stage, of sizes from 1e-3 to 1e3: the largest |score| after
    it is at most the rule's bound of the largest before it (to rounding), and so is each cell's
    (a bound on a number is a bound on every number below it), and |derivative| ≤ steepest."""
    attention = Attention(scenario)
    rule = stage.score_range
    for size in (1e-3, 1.0, 30.0, 1e3):
        X = RNG.normal(scale=size, size=(scenario.T, scenario.T_k))
        window = Fed(attention, stage, X)
        after = stage.arithmetic.compute(window)
        shown = (
            ~attention.blocked(window.rows, window.cols)
            if stage.arithmetic.masks
            else np.ones(X.shape, bool)
        )
        promised = rule.bound(float(np.abs(X).max()), scenario, attention.options)
        assert float(np.abs(after[shown]).max()) <= promised * (1 + 1e-12), (stage.name, size)
        cellwise = rule.bound(np.abs(X), scenario, attention.options)
        assert (np.abs(after[shown]) <= cellwise[shown] * (1 + 1e-12)).all(), (stage.name, size)
        if isinstance(stage.gradient, ChainRule):
            slope = np.abs(np.broadcast_to(stage.gradient.derivative(window), X.shape))
            assert slope.max() <= rule.steepest(scenario, attention.options) * (1 + 1e-12), (
                stage.name,
                size,
            )
