"""A guess belongs to the numbers it was made about: a lesson's guesses at beat 4, after its
edit, are not marked ✗ against beat 3's numbers once the teacher goes back."""

from __future__ import annotations

import numpy as np

from attn_tui.core import loads
from attn_tui.core.editing.lesson_player import LessonPlayer
from attn_tui.core.editing.session import Session
from attn_tui.core.engine.views import stage_window
from attn_tui.core.teaching.prediction_lines import prediction_lines
from attn_tui.core.teaching.predictions import CLOSE_ENOUGH, UNKNOWN
from tests.conftest import SCENARIOS

LESSON = (
    (SCENARIOS / "cat_sat.yaml").read_text()
    + """lesson:
  - {step: softmax, row: sat}
  - {edit: {matrix: Q, row: sat, col: 1, to: 10}, predict: row}
"""
)
SAT = 2


def played():
    session = Session(loads(LESSON, "lesson.yaml"), keep_recovery=False)
    return session, LessonPlayer(session, session.scenario.lesson)


def test_guesses_made_after_a_beats_edit_are_judged_against_that_beats_numbers():
    session, player = played()
    player.go(0)
    before = session.attention.values("softmax", 0, range(SAT, SAT + 1), range(3))[0].copy()
    player.go(1)
    after = session.attention.values("softmax", 0, range(SAT, SAT + 1), range(3))[0].copy()
    assert not np.allclose(
        before, after, atol=0.05
    )  # the edit moved the weights past a guess's slack
    predictions = session.predictions
    for col, value in enumerate(np.round(after, 3)):
        predictions.guess("softmax", 0, SAT, col, float(value), session.attention)
    predictions.reveal("softmax", 0, SAT, session.attention)
    assert predictions.score() == (3, 3)
    assert (
        stage_window(session, "softmax", 0, range(SAT, SAT + 1), range(3)).verdict == CLOSE_ENOUGH
    ).all()
    player.go(0)  # back: the edit undone, the numbers are beat 1's
    assert predictions.score() == (3, 3)  # still judged against the numbers they were about
    window = stage_window(session, "softmax", 0, range(SAT, SAT + 1), range(3))
    assert (window.verdict == UNKNOWN).all()  # no ✗ beside numbers the guesses were not about
    text = "\n".join(
        line.plain() for line in prediction_lines(predictions, "softmax", 0, SAT, session.attention)
    )
    assert "was predicted when its numbers were different" in text and "3 close" in text
    assert "✗" not in text


def test_a_guess_in_another_state_starts_the_row_afresh():
    session, player = played()
    player.go(1)
    predictions = session.predictions
    predictions.guess("softmax", 0, SAT, 0, 0.5, session.attention)
    player.go(0)
    predictions.guess("softmax", 0, SAT, 1, 0.25, session.attention)
    guesses = predictions.guesses_of("softmax", 0).row(SAT)
    assert np.isnan(guesses[0]) and guesses[1] == 0.25  # the first guess was about other numbers


def test_a_lesson_on_many_tokens_keeps_only_the_rows_guessed():
    # two dense T × T matrices of guesses at T = 16,384 would be 4 GB and 10 s before the first
    # beat showed; here T = 4,096 would be 268 MB
    import tracemalloc

    text = (
        "title: big\nrandom: {seed: 0, T: 4096, d_k: 2}\n"
        "lesson:\n  - {step: softmax, row: 5, predict: row}\n"
    )
    session = Session(loads(text, "big.yaml"), keep_recovery=False)
    tracemalloc.start()
    player = LessonPlayer(session, session.scenario.lesson)
    player.go(0)
    session.predictions.guess("softmax", 0, 4, 1, 0.5, session.attention)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 20 << 20, peak
    assert session.predictions.guesses_of("softmax", 0).written() == [4]
    window = session.predictions.guesses_of("softmax", 0).block(range(3, 6), range(0, 3))
    assert (
        np.isnan(window[[0, 2]]).all() and np.isnan(window[1, [0, 2]]).all() and window[1, 1] == 0.5
    )


def test_the_score_counts_every_beats_guesses_once():
    # after beat 2's reveal the score so far keeps beat 1's guesses of the same row; a row
    # guessed outside the lesson (predict:) counts too
    text = (
        (SCENARIOS / "cat_sat.yaml").read_text()
        + """predict: [weights]
lesson:
  - {step: softmax, row: sat, predict: row}
  - {step: softmax, row: sat, edit: {matrix: Q, row: sat, col: 1, to: 10}, predict: row}
  - {step: softmax, row: sat}
"""
    )
    session = Session(loads(text, "l.yaml"), keep_recovery=False)
    player = LessonPlayer(session, session.scenario.lesson)
    predictions = session.predictions
    predictions.guess(
        "softmax", 0, SAT, 0, 0.9, session.attention
    )  # outside the lesson: 0.9 vs 0.248
    player.go(0)
    predictions.guess("softmax", 0, SAT, 0, 0.25, session.attention)  # by hand: 0.248, close
    predictions.reveal("softmax", 0, SAT, session.attention)
    player.go(1)
    # q3 = [10, 1]: scores [10, 1, 11]/√2, by hand sat's weight 1/(1 + e^−0.707 + e^−7.07) = 0.669
    predictions.guess("softmax", 0, SAT, 2, 0.67, session.attention)
    predictions.reveal("softmax", 0, SAT, session.attention)
    assert predictions.score() == (2, 2)  # (the unrevealed guess outside the lesson is not judged)
    player.go(2)
    assert predictions.score() == (2, 2)
    player.go(0)
    assert predictions.score() == (2, 2)


def test_masked_cells_are_not_counted_as_cells_to_guess():
    # not "3 of 6 cells guessed" where 3 cells are masked (known: weight 0)
    session = Session(
        loads((SCENARIOS / "cat_sat.yaml").read_text() + "predict: [weights]\n", "p.yaml"),
        keep_recovery=False,
    )
    text = " ".join(
        span.text
        for line in prediction_lines(session.predictions, "softmax", 0, 0, session.attention)
        for span in line.spans
    )
    assert "0 of 1 cells guessed" in text  # "the" sees only itself under the causal mask
