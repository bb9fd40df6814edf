"""What a lesson's beats show and ask: an ask-only beat offers no cell to guess, and quitting
does not ask to save the lesson's own edits."""

from __future__ import annotations

from attn_tui.tui.screens.choice import ChoiceScreen
from tests.conftest import SCENARIOS
from tests.tui_helpers import debugger, drawn_lines, explanation, post, running

LESSON = (
    (SCENARIOS / "cat_sat.yaml").read_text()
    + """lesson:
  - {step: softmax, row: sat, predict: row}
  - {ask: Why does "sat" look at itself most?, answer: Its query matches its own key best.}
  - {edit: {matrix: Q, row: sat, col: 1, to: 5}, say: A louder query.}
"""
)


def lesson_file(folder):
    path = folder / "lesson.yaml"
    path.write_text(LESSON)
    return path


async def test_an_ask_beat_offers_its_answer_not_a_guess(tmp_path):
    path = lesson_file(tmp_path)
    async with running(path) as (app, pilot):
        screen = debugger(app)
        await pilot.press("r")  # beat 1: reveal the predicted row (no guess typed)
        await pilot.press("n")  # beat 2: a question
        assert screen.stage_view.border_subtitle == "r reveals the beat's answer"
        why = explanation(app)
        assert (
            "revealed without a guess" not in why and "Softmax" in why
        )  # the arithmetic, not the guessing
        await pilot.press("r")
        assert screen.lessons.player.beat in screen.lessons.player.answered
        assert "guesses" not in screen.stage_view.border_subtitle  # nothing is left to guess here


async def test_a_revealed_row_no_longer_offers_a_guess(tmp_path):
    path = lesson_file(tmp_path)
    async with running(path) as (app, pilot):
        screen = debugger(app)
        assert screen.stage_view.border_subtitle == "type a guess, Tab the next, r reveals the row"
        await pilot.press("enter", "1", "enter", "r")  # a guess of 1 for "the", then the row
        assert screen.stage_view.border_subtitle == "0/1 close"  # by hand: "sat" gives "the" 0.25


async def test_quitting_mid_lesson_asks_nothing_for_the_lessons_own_edits(tmp_path):
    path = lesson_file(tmp_path)
    async with running(path) as (app, pilot):
        screen = debugger(app)
        await pilot.press("r", "n", "n")  # beat 3 edits Q
        assert screen.session.modified and screen.session.scenario.inputs["Q"][2, 0] == 5
        await pilot.press("q")
        await pilot.pause()
        assert not isinstance(app.screen, ChoiceScreen) and not app.is_running


async def test_quitting_mid_lesson_still_asks_for_the_students_own_edits(tmp_path):
    path = lesson_file(tmp_path)
    async with running(path) as (app, pilot):
        await pilot.press("r", "n", "n", "tab", "+", "escape", "q")
        await pilot.pause()
        assert isinstance(app.screen, ChoiceScreen)


async def test_a_key_at_its_end_rings_the_bell_and_undo_with_nothing_says_so():
    from tests.tui_helpers import running as plain

    async with plain() as (app, pilot):
        rang = []
        app.bell = lambda: rang.append(True)
        await pilot.press("end", "right")  # past the last step
        await pilot.press("home", "left")  # before the first
        await pilot.press("up", "up", "up")  # "sat" is row 3: two moves, then the top
        assert len(rang) == 3
        await pilot.press("u")
        assert len(rang) == 4 and any(
            "Nothing to undo" in note.message for note in app._notifications
        )


TWICE = (
    (SCENARIOS / "cat_sat.yaml").read_text()
    + """lesson:
  - {step: softmax, row: sat, predict: row}
  - {edit: {matrix: Q, row: sat, col: 1, to: 5}, predict: row, say: Guess again.}
"""
)


async def test_a_beats_prediction_is_asked_until_its_row_is_revealed_at_that_beat(tmp_path):
    """Revealing "sat" at beat 1 on a second pass must not show beat 2's row (other numbers)
    with no guess asked because beat 2 had been asked for once already."""
    path = tmp_path / "twice.yaml"
    path.write_text(TWICE)
    async with running(path) as (app, pilot):
        screen = debugger(app)
        predictions = screen.session.predictions

        def revealed() -> bool:
            return predictions.is_revealed("softmax", 0, 2)

        await pilot.press("r", "n")  # revealed at beat 1; beat 2 asks again
        assert screen.lessons.player.beat == 1 and not revealed()
        await pilot.press(
            "N", "r", "n"
        )  # back, revealed at beat 1 again, on to beat 2 (not guessed)
        assert screen.lessons.player.beat == 1 and not revealed()
        await pilot.press("r", "N", "n")  # revealed at beat 2: it stays so, back and forth
        assert screen.lessons.player.beat == 1 and revealed()


async def keys(app, pilot, *typed: str) -> None:
    await post(app, *typed)  # (without Pilot's 60 ms a key)
    await pilot.pause()


TWO_STATES = """title: guess test
tokens: [a, b, c, d]
Q: [[1, 0], [0, 1], [1, 1], [0, 0]]
K: [[1, 0], [0, 1], [1, 0.5], [0, 0]]
V: [[1, 0], [0, 1], [1, 1], [0, 0]]
causal: false
lesson:
  - {step: softmax, row: d, predict: row, say: beat one}
  - {step: softmax, row: d, edit: {matrix: Q, row: d, col: 2, to: 20}, predict: row, say: beat two}
"""


async def test_two_beats_that_predict_one_row_keep_their_own_guesses(tmp_path):
    # beat 1's guesses must not show at beat 2 as its own ("4 of 4 cells guessed") with its r
    # judging nothing, nor beat 2's "2/4 close" stand on the border back at beat 1
    path = tmp_path / "two.yaml"
    path.write_text(TWO_STATES)
    async with running(path) as (app, pilot):
        screen = debugger(app)
        view = screen.stage_view
        guess_row = ("enter", "0", "tab", "1", "tab", "0", "tab", "0", "enter")
        await keys(app, pilot, *guess_row, "r")
        # by hand, beat 1: q_d = [0, 0], every score 0, every weight 0.25: 0 of 4 within 0.05
        assert view.border_subtitle == "0/4 close"
        await keys(app, pilot, "n")
        assert view.row_texts(3) == ["?", "?", "?", "?"]  # nothing guessed at this beat yet
        await keys(app, pilot, *guess_row, "r")
        # beat 2: q_d = [0, 20], scores [0, 20, 10, 0]/√2: weights 0.0000, 0.9992, 0.0008, 0.0000;
        # the score so far counts both beats' guesses: 0 of 4 and 4 of 4
        assert view.border_subtitle == "4/8 close"
        assert view.row_texts(3) == ["0.000✓", "0.999✓", "0.001✓", "0.000✓"]
        await keys(app, pilot, "N")
        assert view.border_subtitle == "4/8 close"
        assert (
            view.row_texts(3) == ["0.250✗"] * 4
        )  # beat 1 as it was left, its marks beside its numbers
        await keys(app, pilot, "n")
        assert view.row_texts(3) == ["0.000✓", "0.999✓", "0.001✓", "0.000✓"]


SAME_STATE = TWO_STATES.replace("edit: {matrix: Q, row: d, col: 2, to: 20}, ", "")


async def test_a_predict_beat_in_the_same_state_shows_its_own_row_not_the_last_beats():
    # with no edit between, beat 2 must not show beat 1's revealed numbers (the answer) while it
    # asks for a guess, nor beat 1 beat 2's typed guess
    import tempfile
    from pathlib import Path

    path = Path(tempfile.mkdtemp()) / "same.yaml"
    path.write_text(SAME_STATE)
    async with running(path) as (app, pilot):
        view = debugger(app).stage_view
        await keys(app, pilot, "enter", "0", ".", "1", "enter", "r")
        assert view.row_texts(3)[0] == "0.250✗"
        await keys(app, pilot, "n")
        assert view.row_texts(3) == ["?"] * 4  # not beat 1's 0.250s
        assert drawn_lines(view)[4].split()[1:] == ["?"] * 4  # and so the screen (it kept beat 1's)
        await keys(app, pilot, "enter", "0", ".", "3", "enter")
        assert view.row_texts(3)[0] == "0.300?"
        await keys(app, pilot, "N")
        assert view.row_texts(3) == ["0.250✗", "0.250", "0.250", "0.250"]
        assert view.border_subtitle == "0/1 close"  # beat 2's guess is not revealed: not judged


async def test_the_lessons_own_edits_are_not_unsaved_work(tmp_path):
    # beat 3's edit must not put "● modified" in the title nor into the recovery copy (which the
    # next start would offer to restore, and quitting ask to save)
    from attn_tui.core import load
    from attn_tui.core.editing.session import Session

    path = lesson_file(tmp_path)
    async with running(path) as (app, pilot):
        screen = debugger(app)
        await pilot.press("r", "n", "n")  # beat 3 edits Q
        await pilot.pause()
        assert screen.session.modified and "modified" not in str(screen.header.render())
        screen.session.journal.flush()
        assert Session(load(path)).journal.pending() is None  # nothing to offer back
        await pilot.press("tab", "+")  # the student's own edit: that is unsaved work
        await pilot.pause()
        screen.session.journal.flush()
        assert "modified" in str(screen.header.render())
        assert Session(load(path)).journal.pending() is not None


async def test_saving_and_the_recovery_copy_leave_the_lessons_own_edits_out(tmp_path):
    # ctrl+s at beat 3 must not write its edit (Q[sat, d1] = 5) into the teacher's file, nor the
    # recovery copy keep it beside the student's own edit (restoring it at beat 1 would show
    # beat 3's numbers there)
    from attn_tui.core import load
    from attn_tui.core.editing.session import Session

    path = lesson_file(tmp_path)
    async with running(path) as (app, pilot):
        screen = debugger(app)
        await pilot.press("r", "n", "n")  # beat 3 sets Q[sat, d1] = 5
        await pilot.press("tab", "+")  # the student's own: Q[the, d1] 1 -> 1.1
        await pilot.pause()
        screen.session.journal.flush()
        found = Session(load(path)).journal.pending()
        assert [(edit.matrix, edit.row, edit.col, edit.value) for edit in found.edits] == [
            ("Q", 0, 0, 1.1)
        ]
        await pilot.press("escape", "ctrl+s")
        await pilot.pause()
        saved = load(path)
        assert (
            saved.inputs["Q"][0, 0] == 1.1 and saved.inputs["Q"][2, 0] == 1
        )  # the file's own 1, not 5
        assert saved.lesson is not None and len(saved.lesson) == 3
        assert screen.session.scenario.inputs["Q"][2, 0] == 5  # still beat 3's, on screen
        assert "modified" not in str(screen.header.render())
        await pilot.press("N", "N")  # beat 1: the file's numbers again
        assert screen.session.scenario.inputs["Q"][2, 0] == 1


async def test_y_is_not_offered_where_the_stage_shows_the_guesses(tmp_path):
    # a stage to predict with expect: must not offer "y Yours/ours", which would do nothing
    from tests.tui_helpers import screen_text

    path = tmp_path / "cy.yaml"
    path.write_text(
        (SCENARIOS / "cat_sat.yaml").read_text()
        + "predict: [weights]\nexpect: {weights: [[1, 0, 0], [0.5, 0.5, 0], [0.2, 0.2, 0.6]]}\n"
        + "expect_tolerance: 0.01\n"
    )
    async with running(path) as (app, pilot):
        await pilot.press("4", "r")
        await pilot.pause()
        assert "Yours/ours" not in screen_text(app)
    path.write_text(
        (SCENARIOS / "cat_sat.yaml").read_text()
        + "expect: {weights: [[1, 0, 0], [0.5, 0.5, 0], [0.2, 0.2, 0.6]]}\n"
    )
    async with running(path) as (app, pilot):  # without predict:, y shows them
        await pilot.press("4")
        await pilot.pause()
        assert "Yours/ours" in screen_text(app)
