"""Lessons in the app, driven by Pilot as a person drives them: every beat of a built-in
lesson, back and forth, with its edits, predictions and answers; recording one; hostile text."""

from __future__ import annotations

import pytest

from attn_tui.core import load
from attn_tui.core.editing import lesson_recording
from tests.conftest import SCENARIOS
from tests.tui_helpers import debugger, explanation, matrix, running, screen_text, stage_view

SAT, CAT, THE = 2, 1, 0


def told(app) -> str:
    return " ".join(str(n.message) for n in app._notifications)


def narration(app) -> str:
    return str(app.screen.query_one("#narration").render())


def where(app) -> tuple[str, int]:
    screen = debugger(app)
    return screen.stage, screen.row


@pytest.mark.slow
async def test_the_chapters_lesson_beat_by_beat_forth_and_back():
    async with running(SCENARIOS / "cat_sat_lesson.yaml", read_only=True) as (app, pilot):
        assert where(app) == ("score", SAT) and "beat 1/9" in narration(app)
        assert "raw scores are [1, 1, 2]" in narration(
            app
        ) and "raw scores: [1, 1, 2]" in explanation(app)
        await pilot.press("n")
        assert where(app) == ("scale", SAT)
        assert "Question: Why divide by √d_k?" in narration(
            app
        ) and "r shows the answer" in narration(app)
        await pilot.press("r")
        assert "Answer: With larger d_k" in narration(app)
        await pilot.press("n")
        assert where(app) == ("mask", CAT) and "[0.000, 0.707, −∞]" in narration(app)
        await pilot.press("n")  # beat 4 asks for a prediction of "sat"'s weights
        assert where(app) == ("softmax", SAT)
        assert stage_view(app).row_texts(SAT) == ["?", "?", "?"]
        assert stage_view(app).row_texts(CAT) == [
            "0.330",
            "0.670",
            "0.000",
        ]  # only the asked row hides
        await pilot.press("n")  # not before the guess is revealed
        assert "beat 4/9" in narration(app) and "Your turn" in narration(app)
        await pilot.press("enter", *"0.25", "tab", *"0.25", "tab", *"0.4", "enter", "r")
        assert stage_view(app).row_texts(SAT) == ["0.248✓", "0.248✓", "0.503✗"]  # 0.4 is 0.103 off
        await pilot.press("n")
        assert "beat 5/9" in narration(app) and "sum        = 8.169" in explanation(app)
        for _ in range(4):
            await pilot.press("n")
        assert where(app) == ("softmax", THE) and "beat 9/9" in narration(app)
        assert not debugger(app).session.scenario.options.causal  # the last beat turns the mask off
        assert "causal off" in screen_text(app) and "Beat 9/9" in screen_text(
            app
        )  # the footer counts
        # by hand: q1 = [1, 0] scores [1, 0, 1] ÷ √2; exp 2.028, 1, 2.028; sum 5.056
        assert stage_view(app).row_texts(THE) == ["0.401", "0.198", "0.401"]
        for _ in range(8):
            await pilot.press("N")
        assert where(app) == ("score", SAT) and "beat 1/9" in narration(app)
        assert debugger(app).session.scenario.options.causal and not debugger(app).session.modified


@pytest.mark.slow
async def test_the_scaling_lesson_edits_the_query_and_undo_takes_an_edit_back():
    async with running(SCENARIOS / "scaling_lesson.yaml", read_only=True) as (app, pilot):
        session = debugger(app).session
        await pilot.press("n", "n")
        assert session.scenario.inputs["Q"][SAT].tolist() == [5.0, 5.0]
        assert matrix(app, "Q").row_texts(SAT) == ["5", "5"]
        assert stage_view(app).row_texts(SAT) == ["0.028", "0.028", "0.945"]
        await pilot.press("u")  # undo: the beat's edit goes, as any edit would
        assert session.scenario.inputs["Q"][SAT].tolist() == [5.0, 0.0]
        assert stage_view(app).row_texts(SAT) == ["0.493", "0.014", "0.493"]
        await pilot.press("n")  # back to the script: beat 4 (q3 = [10, 10]) and its prediction
        assert session.scenario.inputs["Q"][SAT].tolist() == [10.0, 10.0]
        await pilot.press("r", "n", "n")  # reveal without a guess, on, then no scaling
        assert stage_view(app).row_texts(SAT) == ["0.000", "0.000", "1.000"]
        assert "no scaling" in screen_text(app)
        await pilot.press("N", "N", "N")
        assert session.scenario.inputs["Q"][SAT].tolist() == [5.0, 5.0]
        assert session.scenario.options.scale is True


@pytest.mark.slow
async def test_free_exploration_then_n_returns_to_the_script():
    async with running(SCENARIOS / "cat_sat_lesson.yaml", read_only=True) as (app, pilot):
        await pilot.press("n")  # beat 2: Scale, "sat"
        await pilot.press(
            "right", "right", "up", "c", "s"
        )  # off the script, and changes of one's own
        assert where(app) == ("softmax", CAT)
        await pilot.press("n")
        assert where(app) == ("mask", CAT) and "beat 3/9" in narration(app)
        options = debugger(app).session.scenario.options
        assert options.causal  # the lesson sets the mask (at its last beat): the script's again
        assert options.scale is False  # the lesson never sets the scaling: the student's stays


async def test_a_hostile_lesson_is_shown_inert(tmp_path):
    path = tmp_path / "hostile.yaml"
    path.write_text(
        (SCENARIOS / "cat_sat.yaml").read_text() + "lesson:\n"
        '  - say: "[bold red]x[/] [@click=app.quit]quit[/] \\e]52;c;AAAA\\a \\e[2J"\n'
        '    ask: "[/INST]"\n    answer: "\\u202eevil"\n'
    )
    async with running(path) as (app, pilot):
        text = narration(app)
        assert "[bold red]x[/] [@click=app.quit]quit[/] ␛]52;c;AAAA␇ ␛[2J" in text
        assert "Question: [/INST]" in text
        await pilot.press("r")
        assert "Answer: <U+202E>evil" in narration(app)
        assert app.is_running


@pytest.mark.slow
async def test_a_recorded_lesson_is_written_into_the_file_and_plays_back(tmp_path, monkeypatch):
    clock = [0.0]
    monkeypatch.setattr(lesson_recording, "now", lambda: clock[0])
    path = tmp_path / "cat_sat.yaml"
    original = (SCENARIOS / "cat_sat.yaml").read_text()
    path.write_text(original)

    async def press(pilot, *keys, pause=True):
        await pilot.press(*keys)
        if pause:
            clock[0] += 5  # the teacher talks: the next key starts a beat

    async with running(path) as (app, pilot):
        await press(pilot, "ctrl+r")
        await press(pilot, "right", "right", "right")  # quick presses: one beat, at Softmax
        await press(pilot, "up")
        await pilot.press("tab")  # to Q, onto its cell (sat, d1)…
        await press(pilot, "down", "down", "plus", "plus")  # …nudged twice: one edit, 1 → 1.2
        await press(pilot, "escape", "c")
        assert "recording: 4 beats so far" in narration(app)
        await pilot.press("ctrl+r")
        await pilot.pause()
        assert "4 beats written into" in told(app)
        session = debugger(app).session  # rewound: beat 1, the file's numbers, ready to play
        assert where(app) == ("softmax", SAT) and "beat 1/4" in narration(app)
        assert session.scenario.inputs["Q"][SAT, 0] == 1.0 and not session.modified
        await pilot.press("n", "n")
        assert session.scenario.inputs["Q"][SAT, 0] == 1.2 and matrix(app, "Q").row_texts(SAT) == [
            "1.2",
            "1.0",
        ]
        await pilot.press("N", "N")
        assert not session.modified  # (so no recovery copy is offered below)
    text = path.read_text()
    assert text.startswith(original)
    assert text[len(original) :] == (
        "lesson:\n"
        "  # recorded with ctrl+r: add say: (and ask:, answer:) to each beat\n"
        "  - step: softmax\n"
        '  - row: "cat"\n'
        '  - edit: {matrix: Q, row: "sat", col: 1, to: 1.2}\n'
        "  - set: {causal: false}\n"
    )
    assert load(path).inputs["Q"][SAT, 0] == 1.0
    async with running(path) as (app, pilot):  # and it plays: beat 1 is the recorded Softmax
        assert where(app) == ("softmax", SAT)
        await pilot.press("n", "n", "n")
        assert where(app) == ("softmax", CAT)
        assert debugger(app).session.scenario.inputs["Q"][SAT, 0] == 1.2
        assert not debugger(app).session.scenario.options.causal


async def test_recording_refuses_to_start_on_numbers_of_ones_own(tmp_path):
    path = tmp_path / "cat_sat.yaml"
    path.write_text((SCENARIOS / "cat_sat.yaml").read_text())
    async with running(path) as (app, pilot):
        await pilot.press("c", "ctrl+r")
        await pilot.pause()
        assert "Cannot record now" in told(app)
        assert "recording" not in narration(app)


@pytest.mark.parametrize("key", ["n", "N", "f"])
async def test_lesson_keys_are_off_without_a_lesson(key):
    async with running() as (app, pilot):
        assert (
            debugger(app).check_action(
                {"n": "next_beat", "N": "previous_beat", "f": "follow"}[key], ()
            )
            is False
        )
        await pilot.press(key)
        assert narration(app) == "" and where(app) == ("score", SAT)


async def test_a_lesson_recorded_on_a_built_in_goes_into_a_copy(tmp_path, monkeypatch):
    from textual.widgets import Input

    from attn_tui.tui.screens.save_as import SaveAsScreen

    clock = [0.0]
    monkeypatch.setattr(lesson_recording, "now", lambda: clock[0])
    builtin = SCENARIOS / "cat_sat.yaml"
    before = builtin.read_text()
    copy = tmp_path / "my_lesson.yaml"
    async with running(builtin, read_only=True) as (app, pilot):
        await pilot.press("ctrl+r")
        clock[0] += 5
        await pilot.press("right")
        clock[0] += 5
        await pilot.press("ctrl+r")
        await pilot.pause()
        assert isinstance(app.screen, SaveAsScreen)  # never over the built-in: where to?
        app.screen.query_one(Input).value = str(copy)
        await pilot.press("enter")
        await pilot.pause()
        assert "The lesson is written into a copy" in told(app)
    assert builtin.read_text() == before
    assert copy.read_text().startswith(before) and load(copy).lesson.beats[0].step == "scale"


async def test_a_long_say_is_cut_short_before_it_hides_the_question(tmp_path):
    words = " ".join(f"w{n}" for n in range(400))  # some fifteen lines at this width
    path = tmp_path / "long.yaml"
    path.write_text(
        open(SCENARIOS / "cat_sat.yaml").read()
        + f"lesson:\n  - say: {words}\n    ask: What is the last weight?\n    answer: 0.5\n"
    )
    async with running(path) as (app, pilot):
        await pilot.pause()
        bar = app.screen.query_one("#narration")
        shown = screen_text(app)
        assert "What is the last weight?" in shown and "r shows the answer" in shown
        assert "w0 w1 " in shown and "w399" not in shown and " …" in shown
        assert bar.size.height <= 8
        await pilot.press("r")
        assert "Answer: 0.5" in screen_text(app) and "w0 w1 " in screen_text(app)
