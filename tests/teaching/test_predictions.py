"""core/teaching/predictions.py: predict, then reveal. What a predicted stage hides until a row
is revealed, a guess judged close within 0.05 of the value it was about, a guess kept with the
state it was made in, the score, and the guesses as ``expect:``. The weights are worked out by
hand: row a scores [1, 0] ÷ √2 against the keys, so its weights are 1/(1 + e^(−1/√2)) and the
rest; with Q[a] = 0 they are ½ and ½."""

from __future__ import annotations

import math

import numpy as np
import pytest

from attn_tui.core import loads
from attn_tui.core.editing.session import Session
from attn_tui.core.teaching.predictions import CLOSE_ENOUGH, OFF, UNKNOWN, Rows

PREDICTED = """\
tokens: [a, b]
causal: false
Q: [[1, 0], [0, 1]]
K: [[1, 0], [0, 1]]
V: [[1, 2], [3, 4]]
predict: [weights]
"""

ROW_A = 1 / (1 + math.exp(-1 / math.sqrt(2)))  # 0.66976…: row a's weight on a


def session() -> Session:
    return Session(loads(PREDICTED), keep_recovery=False)


def actual(session: Session, row: int) -> np.ndarray:
    return session.attention.values("softmax", 0, range(row, row + 1), range(2))


def test_rows_hold_only_the_rows_written():
    rows = Rows((4, 3))
    rows.set(2, 1, 0.5)
    rows.set_row(0, [1.0, 2.0, 3.0])
    assert rows.written() == [0, 2]
    assert rows.row(2)[1] == 0.5 and np.isnan(rows.row(2)[[0, 2]]).all()
    assert np.isnan(rows.row(3)).all()
    np.testing.assert_array_equal(
        rows.block(range(1, 3), range(0, 2)), [[np.nan] * 2, [np.nan, 0.5]]
    )
    rows.set_row(0, np.nan)  # a row of nothing is forgotten
    assert rows.written() == [2]


def test_a_predicted_stage_and_what_is_computed_from_it_hide_every_row_until_revealed():
    predictions = session().predictions
    assert predictions.stages == ("softmax",)
    assert predictions.hidden_rows("score").tolist() == [False, False]  # worked from: shown
    assert predictions.hidden_rows("softmax").tolist() == [True, True]
    assert predictions.hidden_rows("weighted_sum").tolist() == [True, True]
    assert predictions.hiding("weighted_sum", 0, 1) == ["softmax"]
    assert predictions.anything_hidden()


def test_a_revealed_row_judges_each_guess_within_five_hundredths():
    s = session()
    predictions = s.predictions
    predictions.guess("softmax", 0, 0, 0, 0.65, s.attention)  # 0.0198 from ROW_A: close
    predictions.guess("softmax", 0, 0, 1, 0.2, s.attention)  # 0.130 from 1 − ROW_A: off
    before = predictions.verdict("softmax", 0, range(1), range(2), actual(s, 0))
    assert before.tolist() == [[UNKNOWN, UNKNOWN]]  # not revealed: nothing judged yet
    predictions.reveal("softmax", 0, 0, s.attention)
    assert predictions.answers[("softmax", 0)].row(0) == pytest.approx(
        [ROW_A, 1 - ROW_A], rel=1e-14
    )
    verdict = predictions.verdict("softmax", 0, range(1), range(2), actual(s, 0))
    assert verdict.tolist() == [[CLOSE_ENOUGH, OFF]]
    assert predictions.score() == (1, 2)
    assert predictions.hidden_rows("softmax").tolist() == [False, True]


def test_a_guess_is_judged_against_the_numbers_it_was_about_never_others():
    s = session()
    predictions = s.predictions
    predictions.guess("softmax", 0, 0, 0, 0.5, s.attention)  # off for ROW_A, right for ½
    predictions.reveal("softmax", 0, 0, s.attention)
    assert predictions.score() == (0, 1)
    s.set_cell("Q", 0, 0, 0.0)  # row a's weights become ½ and ½
    assert not predictions.current_state("softmax", 0, 0, s.attention)
    assert predictions.verdict("softmax", 0, range(1), range(2), actual(s, 0)).tolist() == [
        [UNKNOWN, UNKNOWN]
    ]
    assert predictions.score() == (0, 1)  # still about ROW_A
    s.undo()
    assert predictions.current_state("softmax", 0, 0, s.attention)
    assert predictions.verdict("softmax", 0, range(1), range(1), actual(s, 0)[:, :1]).tolist() == [
        [OFF]
    ]


def test_guesses_in_a_new_state_start_afresh_and_the_old_are_kept():
    s = session()
    predictions = s.predictions
    predictions.guess("softmax", 0, 0, 0, 0.67, s.attention)
    s.set_cell("Q", 0, 0, 0.0)
    predictions.guess("softmax", 0, 0, 1, 0.5, s.attention)
    shown = predictions.guesses_of("softmax", 0).row(0)
    assert np.isnan(shown[0]) and shown[1] == 0.5  # this state's guess alone
    s.undo()
    shown = predictions.guesses_of("softmax", 0).row(0)
    assert shown[0] == 0.67 and np.isnan(shown[1])  # the first state's, kept


def test_the_guesses_become_expect_with_the_cells_left_out_not_given():
    s = session()
    s.predictions.guess("softmax", 0, 1, 0, 0.25, s.attention)
    expect = s.predictions.as_expect()
    assert list(expect) == ["weights"]
    assert expect["weights"].given.tolist() == [[False, False], [True, False]]
    assert expect["weights"].values[1, 0] == 0.25
