"""core/editing/session.py: a Session's edits (apply), undo and redo, what an edit makes stale,
and what it marks unsaved. Every expected number is worked out by hand or by the plain formula
of attention written here, never read back from the program."""

from __future__ import annotations

import math

import numpy as np
import pytest

from attn_tui.core import load, loads
from attn_tui.core.editing.session import NumericError, Session
from attn_tui.core.model.edits import SetCell, SetInputs, SetOption
from tests.reference import softmax

TWO_TOKENS = """\
tokens: [a, b]
causal: false
Q: [[1, 0], [0, 1]]
K: [[1, 0], [0, 1]]
V: [[1, 2], [3, 4]]
"""


def attention_by_formula(Q, K, V, divisor: float, causal: bool) -> np.ndarray:
    """softmax(Q Kᵀ / divisor) V, with a query's future keys at −∞ when causal."""
    scores = np.asarray(Q, float) @ np.asarray(K, float).T / divisor
    if causal:
        scores[np.triu_indices(len(scores), 1)] = -np.inf
    return softmax(scores) @ np.asarray(V, float)


def output(session: Session) -> np.ndarray:
    every = range(session.scenario.T)
    return session.attention.values("weighted_sum", 0, every, range(session.scenario.d_v))


def bits(value: float) -> bytes:
    return np.float64(value).tobytes()


def new_session(text: str = TWO_TOKENS) -> Session:
    return Session(loads(text), keep_recovery=False)


# ---- apply --------------------------------------------------------------------------------------


def test_an_edited_cell_changes_the_number_and_the_attention_computed_from_it():
    session = new_session()
    edit = session.set_cell("Q", 0, 0, 0.0)
    assert edit == SetCell("Q", 0, 0, 0.0, 1.0)
    assert session.cell("Q", 0, 0) == 0.0
    # row a's query is now 0: both scores 0, weights ½ and ½, the mean of V's rows
    assert output(session)[0].tolist() == [2.0, 3.0]
    np.testing.assert_allclose(
        output(session),
        attention_by_formula([[0, 0], [0, 1]], np.eye(2), [[1, 2], [3, 4]], math.sqrt(2), False),
        rtol=1e-14,
    )
    assert session.last_edit is edit


def test_a_cell_set_to_the_value_it_holds_is_no_edit():
    session = new_session()
    assert session.set_cell("Q", 0, 0, 1.0) is None
    assert session.version == 0
    assert not session.history.can_undo
    assert not session.modified


def test_minus_zero_is_another_value_than_zero():
    """Saved as written, −0.0 is not 0.0: the file would differ."""
    session = new_session()
    assert session.set_cell("Q", 0, 1, -0.0) == SetCell("Q", 0, 1, -0.0, 0.0)
    assert bits(session.cell("Q", 0, 1)) == bits(-0.0)


def test_a_nudge_moves_a_cell_by_a_tenth_rounded_to_twelve_decimals():
    session = new_session()
    session.set_cell("V", 0, 0, 0.2)
    session.nudge("V", 0, 0, +1)
    assert bits(session.cell("V", 0, 0)) == bits(0.3)  # not 0.30000000000000004
    session.nudge("V", 0, 0, -1)
    session.nudge("V", 0, 0, -1)
    assert bits(session.cell("V", 0, 0)) == bits(0.1)


def test_toggling_the_causal_mask_hides_each_querys_future():
    session = new_session()
    assert session.toggle_causal() == SetOption("causal", True, False)
    # row a sees only itself: its output is V's row a
    assert output(session)[0].tolist() == [1.0, 2.0]
    weights = session.attention.values("softmax", 0, range(2), range(2))
    assert weights[0, 1] == 0.0
    np.testing.assert_allclose(
        output(session),
        attention_by_formula(np.eye(2), np.eye(2), [[1, 2], [3, 4]], math.sqrt(2), True),
        rtol=1e-14,
    )


def test_the_scale_cycles_from_root_dk_to_none_and_back():
    session = new_session()
    assert session.scenario.options.scale is True
    session.cycle_scale()
    assert session.scenario.options.scale is False
    np.testing.assert_allclose(
        output(session),
        attention_by_formula(np.eye(2), np.eye(2), [[1, 2], [3, 4]], 1.0, False),
        rtol=1e-14,
    )
    session.cycle_scale()
    assert session.scenario.options.scale is True


def test_the_files_own_divisor_joins_the_scale_cycle():
    session = new_session(TWO_TOKENS + "scale: 0.5\n")
    seen = [session.scenario.options.scale]
    for _ in range(3):
        session.cycle_scale()
        seen.append(session.scenario.options.scale)
    assert seen == [0.5, True, False, 0.5]


def test_an_edit_that_would_overflow_float64_changes_nothing():
    """1e200 × 1e200 is past float64's largest number (about 1.8e308)."""
    session = new_session(TWO_TOKENS.replace("K: [[1, 0]", "K: [[1e200, 0]"))
    before = output(session).copy()
    with pytest.raises(NumericError):
        session.set_cell("Q", 0, 0, 1e200)
    assert session.cell("Q", 0, 0) == 1.0
    assert session.version == 0
    assert not session.history.can_undo
    assert not session.modified
    assert not session.numbers_edited
    np.testing.assert_array_equal(output(session), before)


def test_a_smaller_divisor_that_would_overflow_a_score_is_refused():
    """1e154² = 1e308 fits float64 divided by 1, but not divided by 0.5 (2e308)."""
    session = new_session("tokens: [a]\nQ: [[1]]\nK: [[1]]\nV: [[1]]\nscale: 0.5\n")
    session.cycle_scale()  # ÷√1
    session.set_cell("Q", 0, 0, 1e154)
    session.set_cell("K", 0, 0, 1e154)
    session.cycle_scale()  # ÷1
    version = session.version
    with pytest.raises(NumericError):
        session.cycle_scale()  # ÷0.5
    assert session.scenario.options.scale is False
    assert session.version == version


def test_learned_inputs_replace_whole_matrices_as_one_edit():
    session = new_session()
    learned = np.array([[1.0, 0.0], [0.5, 1.0]])  # one cell differs from Q
    session.apply(SetInputs({"Q": learned}, {"Q": session.scenario.inputs["Q"]}))
    assert session.cell("Q", 1, 0) == 0.5
    np.testing.assert_allclose(
        output(session),
        attention_by_formula(learned, np.eye(2), [[1, 2], [3, 4]], math.sqrt(2), False),
        rtol=1e-14,
    )
    assert session.net_edits() == [SetCell("Q", 1, 0, 0.5, 0.0)]  # the one cell that differs
    session.undo()
    assert session.cell("Q", 1, 0) == 0.0
    assert not session.modified


# ---- undo and redo ------------------------------------------------------------------------------


def test_undo_restores_the_old_bits_and_redo_the_new():
    session = new_session()
    session.set_cell("V", 1, 1, 0.1 + 0.2)
    session.undo()
    assert bits(session.cell("V", 1, 1)) == bits(4.0)
    assert output(session)[1].tolist() == pytest.approx(
        attention_by_formula(np.eye(2), np.eye(2), [[1, 2], [3, 4]], math.sqrt(2), False)[1],
        rel=1e-14,
    )
    session.redo()
    assert bits(session.cell("V", 1, 1)) == bits(0.30000000000000004)


def test_undo_and_redo_of_nothing_return_none():
    session = new_session()
    assert session.undo() is None
    assert session.redo() is None
    assert session.version == 0


def test_undo_goes_back_one_edit_at_a_time_and_an_option_too():
    session = new_session()
    session.set_cell("Q", 0, 0, 2.0)
    session.toggle_causal()
    session.set_cell("Q", 0, 0, 3.0)
    assert session.undo() == SetCell("Q", 0, 0, 2.0, 3.0)  # the inverse of the last
    assert session.undo() == SetOption("causal", False, True)
    assert session.scenario.options.causal is False
    assert session.cell("Q", 0, 0) == 2.0
    assert session.undo() == SetCell("Q", 0, 0, 1.0, 2.0)
    assert not session.history.can_undo


def test_a_new_edit_after_an_undo_forgets_what_could_be_redone():
    session = new_session()
    session.set_cell("Q", 0, 0, 2.0)
    session.undo()
    assert session.history.can_redo
    session.set_cell("K", 1, 1, 5.0)
    assert not session.history.can_redo
    assert session.redo() is None
    assert session.cell("Q", 0, 0) == 1.0


def test_the_version_counts_every_change_undo_and_redo_included():
    session = new_session()
    session.set_cell("Q", 0, 0, 2.0)
    session.toggle_causal()
    session.undo()
    session.redo()
    assert session.version == 4


# ---- what goes stale ----------------------------------------------------------------------------


def forty_tokens() -> str:
    """40 tokens (three blocks of 16 query rows), Q, K and V made by a rule of their own."""
    rows = range(40)
    q = [[(i % 7) / 7, (i % 3) / 3] for i in rows]
    k = [[(i % 5) / 5, (i % 4) / 4] for i in rows]
    v = [[i / 40, 1 - i / 40] for i in rows]
    tokens = ", ".join(f"t{i}" for i in rows)
    return f"tokens: [{tokens}]\ncausal: false\nQ: {q}\nK: {k}\nV: {v}\n"


def kept_score_blocks(session: Session) -> set[int]:
    return {key[1] for key in session.attention._kept if key[2] == "score"}


def test_an_edit_of_a_query_row_forgets_its_block_alone_and_the_values_are_current():
    session = new_session(forty_tokens())
    scenario = session.scenario
    Q, K, V = (scenario.inputs[name].copy() for name in "QKV")
    output(session)
    assert kept_score_blocks(session) == {0, 1, 2}
    session.set_cell("Q", 20, 1, 9.0)  # row 20 is in the block of rows 16 … 31
    assert kept_score_blocks(session) == {0, 2}
    Q[20, 1] = 9.0
    np.testing.assert_allclose(
        output(session), attention_by_formula(Q, K, V, math.sqrt(2), False), rtol=1e-12
    )


def test_an_edit_of_a_key_forgets_every_block_of_the_scores():
    session = new_session(forty_tokens())
    scenario = session.scenario
    Q, K, V = (scenario.inputs[name].copy() for name in "QKV")
    output(session)
    session.set_cell("K", 3, 0, -2.0)
    assert kept_score_blocks(session) == set()
    K[3, 0] = -2.0
    np.testing.assert_allclose(
        output(session), attention_by_formula(Q, K, V, math.sqrt(2), False), rtol=1e-12
    )


def test_an_edit_of_a_value_keeps_the_scores():
    """V is read after the weights: the scores do not depend on it."""
    session = new_session(forty_tokens())
    scenario = session.scenario
    Q, K, V = (scenario.inputs[name].copy() for name in "QKV")
    output(session)
    session.set_cell("V", 39, 1, 7.0)
    assert kept_score_blocks(session) == {0, 1, 2}
    V[39, 1] = 7.0
    np.testing.assert_allclose(
        output(session), attention_by_formula(Q, K, V, math.sqrt(2), False), rtol=1e-12
    )


# ---- save marks ---------------------------------------------------------------------------------


def test_a_cell_set_back_to_its_saved_value_is_no_longer_unsaved():
    session = new_session()
    session.set_cell("Q", 0, 0, 2.0)
    assert session.modified and session.numbers_edited
    session.set_cell("Q", 0, 0, 1.0)  # by hand, not by undo
    assert not session.modified
    assert not session.numbers_edited
    assert session.net_edits() == []


def test_an_option_toggled_twice_is_no_longer_unsaved():
    session = new_session()
    session.toggle_causal()
    assert session.modified and not session.numbers_edited
    session.toggle_causal()
    assert not session.modified


def test_the_net_edits_set_each_changed_cell_from_the_saved_value_outright():
    session = new_session()
    for value in (2.0, 3.0, 4.0):
        session.set_cell("Q", 0, 0, value)
    session.set_cell("V", 1, 0, -1.0)
    session.cycle_scale()
    session.undo()
    session.redo()
    assert sorted(session.net_edits(), key=str) == sorted(
        [
            SetCell("Q", 0, 0, 4.0, 1.0),
            SetCell("V", 1, 0, -1.0, 3.0),
            SetOption("scale", False, True),
        ],
        key=str,
    )


def test_a_save_makes_the_current_numbers_the_saved_ones(write):
    path = write(TWO_TOKENS)
    session = Session(load(path), keep_recovery=False)
    session.set_cell("V", 0, 1, 2.5)
    assert session.modified
    session.save()
    assert not session.modified
    assert load(path).inputs["V"].tolist() == [[1.0, 2.5], [3.0, 4.0]]
    # undo still works after a save, and takes the numbers away from the file's
    assert session.undo() == SetCell("V", 0, 1, 2.0, 2.5)
    assert session.modified
    assert session.net_edits() == [SetCell("V", 0, 1, 2.0, 2.5)]
