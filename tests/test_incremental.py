"""The incremental update after an edit equals a full recomputation.

Bit for bit where the same operations run on the same numbers (masking, softmax row by row,
the output after a V edit). Where a matrix product is redone for a block of rows or columns
(scores after a Q or K edit, output rows after a weight change), BLAS sums a block's dot
products in another order than the whole product's, so a score may differ in its last bit;
softmax turns an absolute error in a score into a relative error of the same size in the
weights. The tolerance is therefore 1e-12 relative to the scores' magnitude: 1e-12 × max|score|
for the score stages, and that times max|V| for the output.
"""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings, strategies as st
from hypothesis.extra.numpy import arrays

from attn_tui.core import Scenario, compute
from attn_tui.core.scenario import Options
from attn_tui.core.session import Session

finite = st.floats(-20, 20, allow_nan=False)
STAGES = ("scores", "scaled", "masked", "row_max", "row_sum", "exp", "weights", "output")


@st.composite
def sessions_and_edits(draw):
    T, d_k, d_v = draw(st.integers(1, 9)), draw(st.integers(1, 5)), draw(st.integers(1, 5))
    projection = draw(st.booleans())
    if projection:
        d_model = draw(st.integers(1, 4))
        inputs = {"X": draw(arrays(np.float64, (T, d_model), elements=finite)),
                  "Wq": draw(arrays(np.float64, (d_model, d_k), elements=finite)),
                  "Wk": draw(arrays(np.float64, (d_model, d_k), elements=finite)),
                  "Wv": draw(arrays(np.float64, (d_model, d_v), elements=finite))}
    else:
        inputs = {"Q": draw(arrays(np.float64, (T, d_k), elements=finite)),
                  "K": draw(arrays(np.float64, (T, d_k), elements=finite)),
                  "V": draw(arrays(np.float64, (T, d_v), elements=finite))}
    options = Options(causal=draw(st.booleans()), scale=draw(st.sampled_from([True, False, 3.0])),
                      mask_value=draw(st.sampled_from([-math.inf, -1e9])))
    scenario = Scenario(title="edits", tokens=tuple(f"t{i}" for i in range(T)), inputs=inputs,
                        options=options)
    edits = []
    for _ in range(draw(st.integers(1, 12))):
        name = draw(st.sampled_from(sorted(inputs)))
        rows, cols = inputs[name].shape
        edits.append((name, draw(st.integers(0, rows - 1)), draw(st.integers(0, cols - 1)),
                      draw(finite), draw(st.sampled_from(["set", "set", "undo", "causal"]))))
    return scenario, edits


def assert_matches_full(session: Session, exact: bool) -> None:
    full = compute(session.scenario)
    trace = session.trace
    assert np.array_equal(trace.blocked, full.blocked)
    for name in STAGES:
        got, want = getattr(trace, name), getattr(full, name)
        if exact:
            assert np.array_equal(got.view(np.int64), want.view(np.int64)), name
        else:
            size = max(1.0, float(np.abs(full.scores).max()), float(np.abs(full.scaled).max()))
            if name == "output":
                size *= max(1.0, float(np.abs(full.V).max()))
            assert np.allclose(got, want, rtol=1e-12, atol=1e-12 * size), name
            assert np.array_equal(np.isinf(got), np.isinf(want)), name
    assert (trace.weights[trace.blocked] == 0).all()


@settings(max_examples=300)
@given(sessions_and_edits())
def test_any_sequence_of_edits_equals_a_full_recomputation(case):
    scenario, edits = case
    session = Session(scenario)
    for name, row, col, value, kind in edits:
        if kind == "undo":
            session.undo()
        elif kind == "causal":
            session.toggle_causal()
        else:
            session.set_cell(name, row, col, value)
        assert_matches_full(session, exact=False)


@settings(max_examples=200)
@given(sessions_and_edits())
def test_value_edits_are_bit_for_bit(case):
    scenario, edits = case
    if "V" not in scenario.inputs:
        return
    session = Session(scenario)
    for _, row, col, value, _ in edits:
        session.set_cell("V", row % scenario.T, col % scenario.d_v, value)
        assert_matches_full(session, exact=True)


def test_a_q_edit_touches_only_its_row():
    rng = np.random.RandomState(1)
    scenario = Scenario(title="q", tokens=tuple("abcdef"), inputs={
        "Q": rng.randn(6, 3), "K": rng.randn(6, 3), "V": rng.randn(6, 2)})
    session = Session(scenario)
    before = {name: getattr(session.trace, name).copy() for name in ("scores", "weights", "output")}
    session.set_cell("Q", 3, 1, 2.5)
    for name, old in before.items():
        new = getattr(session.trace, name)
        assert np.array_equal(np.delete(new, 3, axis=0), np.delete(old, 3, axis=0)), name
        assert session.changed[name][3].any() and not np.delete(session.changed[name], 3, axis=0).any()


def test_a_k_edit_changes_one_score_column_and_the_rows_that_see_it():
    rng = np.random.RandomState(2)
    scenario = Scenario(title="k", tokens=tuple("abcdef"), inputs={
        "Q": rng.randn(6, 3), "K": rng.randn(6, 3), "V": rng.randn(6, 2)})  # causal
    session = Session(scenario)
    session.set_cell("K", 4, 0, 9.0)
    changed = session.changed
    assert changed["scores"][:, 4].all() and not np.delete(changed["scores"], 4, axis=1).any()
    assert not changed["weights"][:4].any() and changed["weights"][4:].any()  # rows 0–3 cannot see key 4


def test_undoing_back_to_the_file_gives_its_trace_to_the_bit():
    rng = np.random.RandomState(4)
    scenario = Scenario(title="undo", tokens=tuple("abcde"), inputs={
        "Q": rng.randn(5, 8), "K": rng.randn(5, 8), "V": rng.randn(5, 8)})
    session = Session(scenario)
    for i in range(20):
        session.set_cell("QKV"[i % 3], i % 5, i % 8, float(rng.randn()))
    while session.history.can_undo:
        session.undo()
    fresh = compute(scenario)
    for name in STAGES:
        assert np.array_equal(getattr(session.trace, name), getattr(fresh, name)), name
