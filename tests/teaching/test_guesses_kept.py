"""Guesses are not lost: undo or redo across a lesson's edit keeps the
guesses made in the other state; guesses typed under the scenario's own ``predict:`` are the
ones a beat predicting the same row shows, in the same state; a beat that puts the student's
edited cells back to the lesson's values says so in the narration bar."""

from __future__ import annotations

import numpy as np

from attn_tui.core import loads
from attn_tui.core.editing.lesson_player import LessonPlayer, narration
from attn_tui.core.editing.session import Session
from tests.conftest import SCENARIOS

CAT = (SCENARIOS / "cat_sat.yaml").read_text()
SAT = 2


def test_undo_and_redo_across_a_lessons_edit_keep_the_guesses_of_each_state():
    text = CAT + (
        "lesson:\n  - {step: softmax, row: sat, edit: {matrix: Q, row: sat, col: 1, to: 10}, "
        "predict: row}\n"
    )
    session = Session(loads(text, "l.yaml"), keep_recovery=False)
    player = LessonPlayer(session, session.scenario.lesson)
    player.go(0)
    predictions = session.predictions
    predictions.guess("softmax", 0, SAT, 0, 0.5, session.attention)  # about Q[sat, 1] = 10
    assert session.undo() is not None  # the beat's edit undone: other numbers
    predictions.guess("softmax", 0, SAT, 1, 0.25, session.attention)
    assert session.redo() is not None  # Q[sat, 1] = 10 again
    predictions.guess("softmax", 0, SAT, 2, 0.125, session.attention)
    guesses = predictions.guesses_of("softmax", 0).row(SAT)
    assert guesses[0] == 0.5 and np.isnan(guesses[1]) and guesses[2] == 0.125
    session.undo()
    predictions.guess("softmax", 0, SAT, 2, 0.75, session.attention)
    guesses = predictions.guesses_of("softmax", 0).row(SAT)
    assert np.isnan(guesses[0]) and guesses[1] == 0.25 and guesses[2] == 0.75


def test_a_beat_predicting_a_row_of_the_scenarios_predict_shows_the_guesses_typed_there():
    # beat 1 must not set the guesses typed under predict: aside and start empty: back at the
    # other beat, the row shown is the row r scores
    text = (
        CAT
        + """predict: [weights]
lesson:
  - {step: softmax, row: sat, predict: row}
  - {step: softmax, row: sat}
"""
    )
    session = Session(loads(text, "l.yaml"), keep_recovery=False)
    player = LessonPlayer(session, session.scenario.lesson)
    predictions = session.predictions
    predictions.guess("softmax", 0, SAT, 0, 0.9, session.attention)  # before the lesson
    player.go(0)
    guesses = predictions.guesses_of("softmax", 0).row(SAT)
    assert guesses[0] == 0.9 and np.isnan(guesses[1:]).all()  # the same numbers: the same guesses
    predictions.guess("softmax", 0, SAT, 0, 0.25, session.attention)  # typed over
    predictions.reveal("softmax", 0, SAT, session.attention)
    player.go(1)
    guesses = predictions.guesses_of("softmax", 0).row(SAT)
    assert guesses[0] == 0.25 and predictions.is_revealed("softmax", 0, SAT)
    assert predictions.score() == (1, 1)  # 0.25 against 0.248 by hand; 0.9 was typed over
    player.go(0)
    assert predictions.guesses_of("softmax", 0).row(SAT)[0] == 0.25 and predictions.score() == (
        1,
        1,
    )


def test_a_beat_putting_a_students_cell_back_says_so():
    text = (
        CAT
        + """lesson:
  - {step: softmax, row: sat}
  - {step: softmax, row: sat, edit: {matrix: Q, row: sat, col: 1, to: 10}}
  - {step: softmax, row: sat}
"""
    )
    session = Session(loads(text, "l.yaml"), keep_recovery=False)
    player = LessonPlayer(session, session.scenario.lesson)
    player.go(0)
    player.go(1)  # the lesson's own edit: nothing of the student's undone
    assert not any("back to the lesson's values" in line for _, line in narration(player))
    session.set_cell("Q", SAT, 0, 3.0)  # the student's own value
    player.go(2)  # beat 3 keeps beat 2's Q[sat, 1] = 10: over the student's 3
    notes = [line for kind, line in narration(player) if kind == "note"]
    assert any("put Q row 3 col 1 back to the lesson's values" in line for line in notes), notes
    assert session.cell("Q", SAT, 0) == 10.0
    session.undo()  # u: the student's 3 is back
    assert session.cell("Q", SAT, 0) == 3.0
    session.redo()
    player.go(1)  # 10 is what the lesson had: nothing of the student's undone
    assert not any("back to the lesson's values" in line for _, line in narration(player))
    player.go(0)  # back before the edit: the lesson's own 10 undone, not the student's
    assert not any("back to the lesson's values" in line for _, line in narration(player))


def test_the_put_back_notice_goes_when_undo_takes_the_put_back_away():
    # after u the bar must not still say "put … back" beside the student's value
    text = (
        CAT
        + """lesson:
  - {step: softmax, row: sat}
  - {step: softmax, row: sat, edit: {matrix: Q, row: sat, col: 1, to: 10}}
"""
    )
    session = Session(loads(text, "l.yaml"), keep_recovery=False)
    player = LessonPlayer(session, session.scenario.lesson)
    player.go(1)
    session.set_cell("Q", SAT, 0, 3.0)  # the student's own value
    player.go(0)  # beat 1 has the file's Q[sat, 1]: the student's 3 put back

    def told() -> bool:
        return any("back to the lesson's values" in line for _, line in narration(player))

    assert session.cell("Q", SAT, 0) != 3.0 and told()
    session.undo()
    assert session.cell("Q", SAT, 0) == 3.0 and not told()
    session.redo()
    assert told()
