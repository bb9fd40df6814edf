"""Lessons and the class with tiles and decoding (found attacking issue 22): a step the lesson
shows stays on, recording writes the keys of a step turned on in the app into the lesson, refused
before it starts where the file cannot take beats; the answer key of a row that sees nothing; the
teacher's terminal closed ends the class, and a teacher leading one does not record."""

from __future__ import annotations

import os
import signal

import pytest

from attn_tui.core import load, loads
from tests.engine.test_online_softmax_and_decoding_against_the_papers import BASE, run

# ---- a step the lesson shows --------------------------------------------------------------------

LESSON = BASE + (
    "decode: true\ntiles: {queries: 2, keys: 2}\nlesson:\n  - {step: score}\n"
    "  - {step: decode, say: the cache}\n  - {step: online}\n"
)


async def test_a_step_the_lesson_shows_stays_on(write):
    """d, or the palette's "Online softmax off", in a lesson that shows the step, then n: the app
    crashed (ValueError: 'decode' is not in list); and saved, the file would not load."""
    from attn_tui.core.engine.stages import online
    from attn_tui.tui.app import AttnApp

    path = write(LESSON)
    app = AttnApp(load(path), remember=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("d")
        app.screen.changes.switch_stage("online", None)
        await pilot.pause()
        assert set(app.screen.session.scenario.stage_settings) == {"decode", "online"}
        assert any(
            "The lesson shows the Decode step (beat 2)" in note.message
            for note in app._notifications
        )
        await pilot.press("n")
        assert app.screen.stage == "decode"
        await pilot.press("n")
        assert app.screen.stage == "online"
        app.screen.changes.switch_stage(
            "online", online.reader.TilesSetting(4, 4)
        )  # other tiles are fine: the step stays
        await pilot.pause()
        assert app.screen.session.scenario.stage_settings["online"].keys == 4
        app.screen.session.save()
    assert load(path).stage_settings["online"].keys == 4


async def test_recording_a_step_turned_on_in_the_app_writes_its_key(write):
    """ctrl+r, d, ↑, ctrl+r: the beat shows the Decode step, which the file had not; writing it
    failed at every ctrl+r ("step 'decode' is not a stage of this scenario"), for ever."""
    from attn_tui.tui.app import AttnApp

    path = write(BASE + "decode: false   # not yet\n")
    app = AttnApp(load(path), remember=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("ctrl+r", "d", "up", "ctrl+r")
        await pilot.pause()
        assert app.screen.lessons.recorder is None, [note.message for note in app._notifications]
    text = path.read_text()
    assert "decode: true   # not yet\n" in text and "step: decode" in text
    scenario = load(path)
    assert "decode" in scenario.stage_settings and scenario.lesson.beats[-1].step == "decode"


def test_recorded_beats_into_a_lesson_get_the_tiles_they_show(write):
    from attn_tui.core.editing.lesson_writer import with_beats
    from attn_tui.core.engine.stages import online
    from attn_tui.core.model.lesson import Beat

    path = write(BASE + "lesson:   # the walk\n  - {step: score}\n")
    scenario = load(path)
    scenario = online.tiled(scenario, 2, 2).apply(scenario)
    text = with_beats(scenario, (Beat(step="online"),))
    assert "tiles: {queries: 2, keys: 2}\nlesson:   # the walk\n" in text
    assert loads(text, str(path)).lesson.beats[-1].step == "online"


def test_recorded_beats_go_into_an_anchored_lesson_at_its_items_indentation():
    """lesson: &beats: the list's column is its anchor's, and the beats were written 8 spaces in,
    which did not load ("did not find expected key"), at every ctrl+r."""
    from attn_tui.core.editing.lesson_writer import with_beats
    from attn_tui.core.model.lesson import Beat

    scenario = loads(BASE + "lesson: &beats\n  - step: score\n", "a.yaml")
    text = with_beats(scenario, (Beat(step="softmax"),))
    assert text.endswith(
        "lesson: &beats\n  - step: score\n  # recorded with ctrl+r: add say: (and ask:, "
        "answer:) to each beat\n  - step: softmax\n"
    )


async def test_recording_is_refused_before_it_starts_when_the_file_cannot_take_beats(write):
    """A file written as one flow mapping takes no recorded beats: that was said at the second
    ctrl+r, after the recording, which was then lost (each ctrl+r failed the same way)."""
    from attn_tui.tui.app import AttnApp

    path = write("{tokens: [a, b], Q: [[1], [0]], K: [[1], [1]], V: [[1], [2]]}\n")
    app = AttnApp(load(path), remember=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("ctrl+r")
        assert app.screen.lessons.recorder is None
        assert any(
            note.message.startswith("Cannot record now: the file is written as one flow mapping")
            for note in app._notifications
        )


def test_the_answer_key_of_a_row_that_sees_nothing_has_no_weights(write, capsys):
    """--markdown --lesson --answers printed a padded first token's predicted weights as eight
    0.000, where the app and --json say it has none (—, null)."""
    path = write(
        BASE + "padding: [1, 0, 0, 0]\nlesson:\n  - {step: softmax, row: 1, predict: row}\n"
    )
    code, out, _ = run(capsys, "--markdown", "--lesson", "--answers", str(path))
    assert (
        code == 0
        and "| a   |   — |   — |   — |   — |" in out
        and "0.000" not in out.split("## Beat 1")[1]
    )


# ---- the class ----------------------------------------------------------------------------------


@pytest.mark.tmux
@pytest.mark.skipif(__import__("shutil").which("tmux") is None, reason="needs tmux on PATH")
async def test_closing_the_teachers_terminal_ends_the_class(tmp_path):
    """The teacher's terminal closed (SIGHUP) ended the teacher's app without its finally: the
    class's server went on serving, every student's app waiting for a teacher who had gone, and
    kept the port and the channel's folder."""
    import asyncio
    import sys

    from tests.serve.test_lesson_browser import Terminal, class_processes
    from tests.serve.test_serve_browser import free_port

    port, folder = free_port(), tmp_path / "class"
    teacher = Terminal(tmp_path)
    teacher.start(
        [
            sys.executable,
            "-m",
            "attn_tui",
            "--serve",
            "cat_sat_lesson",
            "--follow",
            "--port",
            str(port),
            "--serve-dir",
            str(folder),
        ]
    )
    try:
        await teacher.wait_for("Leading the class: 0 apps following your beats", timeout=30)
        assert class_processes(folder)  # the server
        teacher("kill-server")  # the terminal goes: SIGHUP
        for _ in range(400):
            if not class_processes(folder):
                break
            await asyncio.sleep(0.05)
        assert class_processes(folder) == []
    finally:
        teacher.stop()
        for pid in class_processes(folder):  # (only this test's own server and apps, by its folder)
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


async def test_the_teacher_leading_a_class_does_not_record(write):
    """ctrl+r while leading wrote beats the students' apps, which read the lesson when they
    started, do not have: at the first of them every student stopped following ("not one of this
    lesson's beats")."""
    from attn_tui.tui.app import AttnApp
    from attn_tui.tui.classroom import Classroom
    from attn_tui.tui.follow import Leader, channel_socket

    listener, channel = channel_socket()
    leader = Leader(listener, channel)
    path = write(open("scenarios/cat_sat_lesson.yaml").read())
    app = AttnApp(load(path), remember=False, classroom=Classroom(leader=leader))
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.press("ctrl+r")
            assert app.screen.lessons.recorder is None
            assert any("while leading a class" in note.message for note in app._notifications)
    finally:
        leader.close()
