"""After any edits, the session's attention — computed on demand, block by block, its caches
invalidated edit by edit — equals a fresh computation of the same numbers, bit for bit.

Every value is computed in blocks of the same rows (and projections in tiles of the same rows
and head columns), whatever asked for it; so an edit that left a stale block behind would show
here as a difference, and undoing back to the file gives the file's numbers to the last bit.
Against a plain dense ``Q @ K.T`` the agreement is to about 1e-15 relative (BLAS adds in
another order for a block than for the whole).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from attn_tui.core import Scenario, compute, load
from attn_tui.core.editing.session import Session
from attn_tui.core.engine.attention import Attention
from attn_tui.core.engine.trace import trace
from attn_tui.core.model.heads import HeadInputs
from attn_tui.core.model.scenario import Options, bits_equal
from attn_tui.core.reading.qk_norm import QKNormSetting
from tests.conftest import SCENARIOS

finite = st.floats(-20, 20, allow_nan=False)
STAGES = ("scores", "scaled", "masked", "row_max", "row_sum", "weights", "output")


@st.composite
def sessions_and_edits(draw):
    T, d_k, d_v = draw(st.integers(1, 40)), draw(st.integers(1, 5)), draw(st.integers(1, 5))
    heads = draw(st.sampled_from([1, 1, 2, 3]))
    kv_heads = draw(st.sampled_from([g for g in (1, heads) if heads % g == 0]))
    projection = draw(st.booleans())
    if projection:
        d_model = draw(st.integers(1, 4))
        inputs = {
            "X": draw(arrays(np.float64, (T, d_model), elements=finite)),
            "Wq": draw(arrays(np.float64, (d_model, heads * d_k), elements=finite)),
            "Wk": draw(arrays(np.float64, (d_model, kv_heads * d_k), elements=finite)),
            "Wv": draw(arrays(np.float64, (d_model, kv_heads * d_v), elements=finite)),
        }
    else:
        per = (heads,) if heads > 1 else ()
        kv = (kv_heads,) if heads > 1 else ()
        inputs = {
            "Q": draw(arrays(np.float64, (*per, T, d_k), elements=finite)),
            "K": draw(arrays(np.float64, (*kv, T, d_k), elements=finite)),
            "V": draw(arrays(np.float64, (*kv, T, d_v), elements=finite)),
        }
    options = Options(
        causal=draw(st.booleans()),
        scale=draw(st.sampled_from([True, False, 3.0])),
        mask_value=draw(st.sampled_from([-math.inf, -1e9])),
    )
    # QK-norm: per head, or over the whole projection (every head changes with one head's edit)
    style = draw(st.sampled_from([None, None, "qwen3", "gemma3", "llama4", "olmo2"]))
    settings_ = {}
    if style is not None and (style != "olmo2" or heads == kv_heads):
        width = d_k * heads if style == "olmo2" else d_k
        gains = st.lists(finite, min_size=width, max_size=width).map(tuple)
        weights = (None, None) if style == "llama4" else (draw(gains), draw(gains))
        settings_["qk_norm"] = QKNormSetting(style, *weights)
    scenario = Scenario(
        title="edits",
        tokens=tuple(f"t{i}" for i in range(T)),
        inputs=inputs,
        options=options,
        heads=heads,
        kv_heads=kv_heads,
        stage_settings=settings_,
    )
    edits = []
    for _ in range(draw(st.integers(1, 12))):
        name = draw(st.sampled_from(sorted(inputs)))
        *head, rows, cols = inputs[name].shape
        which = draw(st.integers(0, head[0] - 1)) if head else None
        edits.append(
            (
                name,
                which,
                draw(st.integers(0, rows - 1)),
                draw(st.integers(0, cols - 1)),
                draw(finite),
                draw(st.sampled_from(["set", "set", "look", "undo", "causal"])),
            )
        )
    return scenario, edits


def assert_matches_fresh(session: Session) -> None:
    """The session's numbers equal a fresh Attention's, bit for bit, every head, and a dense
    reference's to 1e-12 of the scores' size."""
    fresh_attention = Attention(session.scenario)
    for h in range(session.scenario.heads):
        got, fresh = trace(session.attention, h), trace(fresh_attention, h)
        for name in STAGES:
            assert np.array_equal(
                getattr(got, name).view(np.int64), getattr(fresh, name).view(np.int64)
            ), (h, name)
    got = trace(session.attention)
    if "qk_norm" in session.scenario.stage_settings:
        return
    dense = session.scenario.Q @ session.scenario.K.T
    size = max(1.0, float(np.abs(dense).max()))
    assert np.allclose(got.scores, dense, rtol=1e-12, atol=1e-12 * size)
    assert (got.weights[got.blocked] == 0).all()


@pytest.mark.slow
@settings(max_examples=300)
@given(sessions_and_edits())
def test_any_sequence_of_edits_equals_a_fresh_computation_bit_for_bit(case):
    scenario, edits = case
    session = Session(scenario)
    for name, head, row, col, value, kind in edits:
        if kind == "undo":
            session.undo()
        elif kind == "causal":
            session.toggle_causal()
        elif kind == "look":  # fill some blocks' caches, so that an edit must invalidate them
            trace(session.attention)
        else:
            session.set_cell(name, row, col, value, head)
        assert_matches_fresh(session)


def test_a_q_edit_changes_only_its_row():
    rng = np.random.RandomState(1)
    scenario = Scenario(
        title="q",
        tokens=tuple("abcdef"),
        inputs={"Q": rng.randn(6, 3), "K": rng.randn(6, 3), "V": rng.randn(6, 2)},
    )
    session = Session(scenario)
    before = trace(session.attention)
    session.set_cell("Q", 3, 1, 2.5)
    after = trace(session.attention)
    for name in ("scores", "weights", "output"):
        old, new = getattr(before, name), getattr(after, name)
        assert np.array_equal(np.delete(new, 3, axis=0), np.delete(old, 3, axis=0)), name
        assert not np.array_equal(new[3], old[3]), name


def test_a_k_edit_changes_one_score_column_and_the_rows_that_see_it():
    rng = np.random.RandomState(2)
    scenario = Scenario(
        title="k",
        tokens=tuple("abcdef"),
        inputs={"Q": rng.randn(6, 3), "K": rng.randn(6, 3), "V": rng.randn(6, 2)},
    )  # causal
    session = Session(scenario)
    before = trace(session.attention)
    session.set_cell("K", 4, 0, 9.0)
    after = trace(session.attention)
    moved = after.scores != before.scores
    assert moved[:, 4].all() and not np.delete(moved, 4, axis=1).any()
    assert np.array_equal(after.weights[:4], before.weights[:4])  # rows 0–3 cannot see key 4
    assert not np.array_equal(after.weights[4:], before.weights[4:])


def test_undoing_back_to_the_file_gives_its_numbers_to_the_bit():
    rng = np.random.RandomState(4)
    scenario = Scenario(
        title="undo",
        tokens=tuple(f"t{i}" for i in range(70)),
        inputs={
            "X": rng.randn(70, 8),
            "Wq": rng.randn(8, 4),
            "Wk": rng.randn(8, 4),
            "Wv": rng.randn(8, 4),
        },
    )
    session = Session(scenario)
    for i in range(20):
        name = ("X", "Wq", "Wk", "Wv")[i % 4]
        rows, cols = scenario.inputs[name].shape
        session.set_cell(name, (7 * i) % rows, i % cols, float(rng.randn()))
        trace(session.attention)
    while session.history.can_undo:
        session.undo()
    fresh = compute(scenario)
    got = trace(session.attention)
    for name in STAGES:
        assert np.array_equal(getattr(got, name), getattr(fresh, name)), name


def test_an_edit_remeasures_the_decimals_of_what_it_changed():
    """cat_sat's Q, K, V are integers or halves: a Q cell of 0.25 makes Q need two decimals, a
    K cell of 1.5 makes K need one, and V stays as it was."""
    session = Session(load(SCENARIOS / "cat_sat.yaml"))
    decimals = session.attention.decimals
    before = {name: decimals(name) for name in "QKV"}
    assert before == {"Q": 0, "K": 0, "V": 1}
    session.set_cell("Q", 0, 0, 0.25)
    assert (decimals("Q"), decimals("K"), decimals("V")) == (2, 0, 1)
    session.set_cell("K", 1, 1, 1.5)
    assert (decimals("Q"), decimals("K"), decimals("V")) == (2, 1, 1)
    session.undo()
    session.undo()
    assert {name: decimals(name) for name in "QKV"} == before


def _projected_session(rope: str = "") -> Session:
    rng = np.random.RandomState(11)

    def rows(m):
        return (
            "[" + ", ".join("[" + ", ".join(repr(float(v)) for v in row) + "]" for row in m) + "]"
        )

    X, Wq, Wk, Wv = rng.randn(70, 4), rng.randn(4, 4), rng.randn(4, 4), rng.randn(4, 4)
    from attn_tui.core import loads

    return Session(
        loads(f"heads: 2\nX: {rows(X)}\nWq: {rows(Wq)}\nWk: {rows(Wk)}\nWv: {rows(Wv)}\n{rope}")
    )


@pytest.mark.parametrize("rope", ["", "rope: {base: 10000}\n"])
def test_an_array_someone_holds_never_changes_under_them(rope):
    """Edits write a head's Q, K, V in place only when nothing else holds them (a view, the
    overview's thread): what was handed out keeps its numbers."""
    session = _projected_session(rope)
    inputs = session.attention.inputs
    held = [inputs.Q(1), inputs.K(0), inputs.V(1), inputs.Q_before_rotation(0)]
    kept = [array.copy() for array in held]
    session.set_cell("X", 40, 2, 9.0)
    for before, array in zip(kept, held):
        assert bits_equal(before, array)
    assert not bits_equal(inputs.Q(1), held[0]) and not bits_equal(inputs.V(1), held[2])
    fresh = HeadInputs(session.scenario)
    for h in range(2):
        assert bits_equal(inputs.Q(h), fresh.Q(h)) and bits_equal(inputs.K(h), fresh.K(h))
        assert bits_equal(inputs.V(h), fresh.V(h))


def test_arrays_nobody_holds_are_written_in_place():
    session = _projected_session()
    inputs = session.attention.inputs
    ids = [id(inputs.Q(h)) for h in range(2)] + [id(inputs.V(h)) for h in range(2)]
    session.set_cell("X", 40, 2, 9.0)
    assert ids == [id(inputs.Q(h)) for h in range(2)] + [id(inputs.V(h)) for h in range(2)]
    assert not inputs.Q(0).flags.writeable  # and still read-only to everyone else


@settings(max_examples=30, deadline=None)
@given(
    block=st.sampled_from([1, 2, 3, 4, 5, 8, 16, 32]),
    T=st.integers(2, 40),
    row=st.data(),
    value=finite,
    seed=st.integers(0, 2**16),
)
def test_a_q_edit_drops_only_its_own_block_whatever_the_block_size(block, T, row, value, seed):
    """Issue 28: ``_stale`` compared a row's block with the module's BLOCK, not the Attention's
    own (an ``Attention(block=32)`` kept stale scores after a Q edit), and a Q edit, named by its
    matrix, dropped every block the row-precise path was written to keep."""
    rng = np.random.default_rng(seed)
    Q, K, V = (rng.normal(size=(T, 3)) for _ in range(3))
    scenario = Scenario(
        title="t",
        tokens=tuple(f"t{i}" for i in range(T)),
        inputs={"Q": Q, "K": K, "V": V},
        options=Options(causal=False),
    )
    inputs = HeadInputs(scenario)
    attention = Attention(scenario, inputs=inputs, block=block)
    every = range(T)
    attention.values("score", 0, every, every)
    edited = row.draw(st.integers(0, T - 1))
    Q2 = Q.copy()
    Q2[edited, 1] = value
    changed = Scenario(
        title="t",
        tokens=scenario.tokens,
        inputs={"Q": Q2, "K": K, "V": V},
        options=Options(causal=False),
    )
    changes = inputs.update(changed, "Q", edited, 1, None)
    kept_before = {key for key in attention._kept if key[2] == "score"}
    attention.invalidate(changed, changes, "Q")
    kept_after = {key for key in attention._kept if key[2] == "score"}
    assert {key[1] for key in kept_before - kept_after} == {edited // block}  # its block alone
    assert np.allclose(attention.values("score", 0, every, every), Q2 @ K.T, rtol=1e-12, atol=1e-12)
