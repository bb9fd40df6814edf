"""The class's answers on the screens, headless, pressing what a teacher and a student press:
the student's r sends the row to the teacher, the teacher's screen counts it live, R reveals
the answer in every follower, D puts the distribution on the projector (no names there)."""

from __future__ import annotations

import asyncio
import json

from textual.widgets import Static

from attn_tui.core import load
from attn_tui.core.classroom import wire
from attn_tui.tui.app import AttnApp
from attn_tui.tui.class_answers import names_said
from attn_tui.tui.class_desk import ClassDesk
from attn_tui.tui.classroom import Classroom
from attn_tui.tui.follow import Follower, Leader, channel_socket
from attn_tui.tui.screens.class_present import ClassPresentScreen
from attn_tui.tui.screens.debugger import DebuggerScreen
from attn_tui.tui.screens.name_prompt import NamePromptScreen
from tests.conftest import SCENARIOS
from tests.serve.test_follow import until
from tests.tui_helpers import stage_view

LESSON = SCENARIOS / "cat_sat_lesson.yaml"
SAT = 2


def panel(app) -> str:
    return app.screen.query_one("#class-answers").text


async def test_the_teachers_screen_counts_the_class_live_and_reveals_to_everyone(tmp_path):
    listener, path = channel_socket()
    leader = Leader(listener, path)
    log = tmp_path / "class.jsonl"
    app = AttnApp(
        load(LESSON),
        read_only=True,
        remember=False,
        classroom=Classroom(leader=leader, responses=str(log), names=True),
    )
    students, tasks, revealed = [], [], []
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.press("n", "n", "n")  # beat 4: "sat"'s weights, predicted
            assert "The class, beat 4" in panel(app) and "0 answered of 0 following" in panel(app)
            for n in range(3):
                student = Follower(
                    path,
                    9,
                    lambda beat: None,
                    lambda why: None,
                    student=f"{n:08x}",
                    revealed=revealed.append,
                )
                student.name = ["Ada", "Grace", "\x1b[31mEve"][n] if n < 2 else None
                students.append(student)
                tasks.append(asyncio.create_task(student.run()))
            await until(lambda: leader.followers == 3)
            students[0].send(wire.answer_line(4, SAT, [0.25, 0.25, 0.5]))
            students[1].send(wire.answer_line(4, SAT, [0.212, 0.212, 0.576]))
            students[2].send(wire.answer_line(4, SAT, [0.9, 0.05, 0.05]))
            students[2].send(b"answer 4 2 nan 1 1\n")
            await until(lambda: "3 answered of 3 following" in panel(app))
            text = panel(app)
            assert "1 right" in text and "1 forgot to divide by √d_k" in text and "1 other" in text
            assert "correct 0.248" in text and "correct 0.503" in text and "median 0.250" in text
            assert "Ada (right)" in text and "Grace (forgot to divide by √d_k)" in text
            assert "1 message refused" in text
            assert (
                len(log.read_text().splitlines()) == 3
                and json.loads(log.read_text().splitlines()[0])["beat"] == 4
            )
            await pilot.press("D")  # the projector: the counts, no names, the answer not marked yet
            assert isinstance(app.screen, ClassPresentScreen)
            projected = app.screen.class_answers.text
            assert (
                "3 answered" in projected and "Ada" not in projected and "correct" not in projected
            )
            await pilot.press(
                "R"
            )  # revealed to everyone: the followers are told, the projector marks it
            await until(lambda: revealed == [4, 4, 4])
            assert "correct 0.248" in app.screen.class_answers.text
            await pilot.press("p")
            assert (
                stage_view(app).row_texts(SAT)[0] == "0.248"
            )  # the teacher's own row revealed too
            await pilot.press("n")  # a beat that predicts nothing: no panel, R and D do nothing
            assert not app.screen.query_one("#class-answers").display
    finally:
        for task in tasks:
            task.cancel()
        leader.close()


async def test_a_students_r_sends_the_row():
    listener, path = channel_socket()
    leader = Leader(listener, path)
    desk = ClassDesk(load(LESSON))
    leader.heard = desk.heard
    await leader.start()
    leader.publish(4)
    app = AttnApp(
        load(LESSON),
        read_only=True,
        remember=False,
        classroom=Classroom(follow=path, student="00000abc"),
    )
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await until(lambda: app.screen.lessons.player.beat == 3)
            await pilot.pause()
            await pilot.press("enter", *"0.212", "tab", *"0.212", "tab", *"0.576", "enter")
            await asyncio.sleep(0.5)
            assert desk.counts(4).answered == 0  # nothing goes before r
            await pilot.press("r")
            await until(lambda: desk.counts(4).answered == 1)
            assert desk.tallies[4].latest == {"00000abc": (0.212, 0.212, 0.576)}
            assert desk.counts(4).mistakes[0][0] == "unscaled"
            # their own marks, as before: |0.212 − 0.248| = 0.036 is within 0.05,
            # |0.576 − 0.503| = 0.073 is not
            assert stage_view(app).row_texts(SAT) == ["0.248✓", "0.248✓", "0.503✗"]
    finally:
        leader.close()


async def test_the_teachers_reveal_shows_the_row_of_a_student_who_had_not():
    listener, path = channel_socket()
    leader = Leader(listener, path)
    await leader.start()
    leader.publish(4)
    app = AttnApp(load(LESSON), read_only=True, remember=False, classroom=Classroom(follow=path))
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await until(lambda: app.screen.lessons.player.beat == 3)
            await pilot.pause()
            assert stage_view(app).row_texts(SAT) == ["?", "?", "?"]
            leader.reveal(3)  # another beat's reveal: nothing here
            leader.reveal(4)
            await until(lambda: app.screen.session.predictions.is_revealed("softmax", 0, SAT))
            await pilot.pause()
            assert stage_view(app).row_texts(SAT) == ["0.248", "0.248", "0.503"]
    finally:
        leader.close()


async def test_on_the_projector_d_goes_back_and_n_and_n_lead_the_class():
    listener, path = channel_socket()
    leader = Leader(listener, path)
    app = AttnApp(load(LESSON), read_only=True, remember=False, classroom=Classroom(leader=leader))
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.press("n", "n", "n")
            assert leader.beat == 4
            await pilot.press("D")
            assert isinstance(app.screen, ClassPresentScreen)
            await pilot.press("D")  # D again: back to the teacher's screen
            assert isinstance(app.screen, DebuggerScreen)
            await pilot.press("D", "R", "n")  # revealed, so n does not wait for a prediction
            assert isinstance(app.screen, ClassPresentScreen) and leader.beat == 5
            assert not app.screen.class_answers.display  # beat 5 predicts nothing
            await pilot.press("n")  # beat 6: the row of "cat", on the projector and for the class
            assert leader.beat == 6
            assert 'row "cat"' in str(app.screen.query_one("#present-title").render())
            await pilot.press("N")
            assert leader.beat == 5 and isinstance(app.screen, ClassPresentScreen)
    finally:
        leader.close()


async def test_the_name_box_says_what_the_name_is_for_and_esc_stays_anonymous():
    listener, path = channel_socket()
    leader = Leader(listener, path)
    desk = ClassDesk(load(LESSON), names=True)
    leader.heard = desk.heard
    await leader.start()
    for recorded in (False, True):
        app = AttnApp(
            load(LESSON),
            read_only=True,
            remember=False,
            classroom=Classroom(follow=path, names=True, record_names=recorded),
        )
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.pause()
            assert isinstance(app.screen, NamePromptScreen)
            said = " ".join(str(found.render()) for found in app.screen.query(Static))
            assert "Your first name?" in said and "teacher's own screen" in said
            assert "never on the projector" in said and "Esc: stay anonymous" in said
            assert ("teacher's record of the class's answers" in said) is recorded
            assert ("it is not recorded" in said) is not recorded
            await pilot.press("escape")
            assert isinstance(app.screen, DebuggerScreen)
    leader.close()
    assert desk.names == {}


async def test_the_last_refusal_shown_is_the_latest_even_a_flood(tmp_path):
    listener, path = channel_socket()
    leader = Leader(listener, path)
    app = AttnApp(load(LESSON), read_only=True, remember=False, classroom=Classroom(leader=leader))
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.press("n", "n", "n")
            _, first = await asyncio.open_unix_connection(path)
            first.write(wire.hello_line("0000000a") + b"answer 3 2 0.25 0.25 0.5\n")
            await until(lambda: "last: beat 3 asks for no prediction" in panel(app))
            flood_reader, flood = await asyncio.open_unix_connection(path)
            flood.write(
                wire.hello_line("0000000b") + wire.answer_line(4, SAT, (0.25, 0.25, 0.5)) * 50
            )
            await until(lambda: "2 messages refused" in panel(app))
            assert "last: more than 2 messages a second (a flood" in panel(app)
            first.close()
            flood.close()
    finally:
        leader.close()


def test_the_teacher_is_told_where_the_names_go():
    told = names_said
    assert "not written into the log" in told(Classroom(names=True, responses="class.jsonl"))
    assert "written into class.jsonl with each answer" in told(
        Classroom(names=True, responses="class.jsonl", record_names=True)
    )


async def test_the_stage_says_what_to_do_with_the_row_the_cursor_moves_to():
    """At a predict beat the stage's bottom line asks for a guess of the hidden row only: moving
    off it (↑) said so until something else repainted the screen (a class joining, a timer)."""
    app = AttnApp(load(LESSON), read_only=True, remember=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("n", "n", "n")
        view = app.screen.stage_view
        assert "r reveals the row" in str(view.border_subtitle)  # "sat", to predict
        await pilot.press("up")
        assert "r reveals the row" not in str(view.border_subtitle)  # "cat", shown
        await pilot.press("down")
        assert "r reveals the row" in str(view.border_subtitle)
