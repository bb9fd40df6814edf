"""Recording a lesson in core: moves and changes fold into beats, which are written into the
file's ``lesson:`` keeping its comments, read back, and played as they were recorded."""

from __future__ import annotations

import pytest

from attn_tui.core import load, loads
from attn_tui.core.editing.lesson_player import LessonPlayer
from attn_tui.core.editing.lesson_recording import (
    FOLD_SECONDS,
    Recorder,
    recording_refusal,
    recording_start,
)
from attn_tui.core.editing.lesson_writer import with_beats, write_lesson
from attn_tui.core.editing.save import render
from attn_tui.core.editing.session import Session
from attn_tui.core.errors import SaveError
from attn_tui.core.model.edits import SetCell, SetOption
from attn_tui.core.model.lesson import Beat, CellEdit, Position
from tests.conftest import SCENARIOS

CAT_SAT = (SCENARIOS / "cat_sat.yaml").read_text()
SAT, CAT = 2, 1


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now

    def wait(self, seconds: float = FOLD_SECONDS + 0.5) -> None:
        self.now += seconds


def at(step: str, row: int = SAT, column: int = 0, head: int = 0) -> Position:
    return Position(step, row, column, head)


def test_quick_moves_fold_into_one_beat_and_a_pause_starts_the_next():
    clock = Clock()
    recorder = Recorder(at("score"), after=at("score"), clock=clock)
    for step in ("scale", "mask", "softmax"):  # → → → in quick succession
        clock.wait(0.2)
        recorder.moved(at(step))
    clock.wait()
    recorder.moved(at("softmax", CAT))
    clock.wait()
    recorder.moved(at("weighted_sum", CAT))
    clock.wait(0.3)
    recorder.moved(at("weighted_sum", SAT))
    assert recorder.finish() == (
        Beat(step="softmax"),
        Beat(row=CAT),
        Beat(step="weighted_sum", row=SAT),
    )


def test_changes_fold_into_their_net_effect_and_undoing_one_drops_it():
    clock = Clock()
    recorder = Recorder(at("softmax"), after=at("score"), clock=clock)
    for value in (1.1, 1.2, 1.3):  # + + + on one cell
        clock.wait(0.3)
        recorder.changed(SetCell("Q", SAT, 0, value, round(value - 0.1, 12)), at("softmax"))
    clock.wait()
    recorder.changed(SetOption("causal", False, True), at("softmax"))
    clock.wait(0.5)
    recorder.changed(SetOption("causal", True, False), at("softmax"))  # u, straight away
    clock.wait()
    recorder.changed(SetOption("scale", False, True), at("softmax"))
    assert recorder.finish() == (
        Beat(step="softmax", edits=(CellEdit("Q", SAT, 0, 1.3),)),  # moved there before recording
        Beat(options=(("scale", False),)),  # the causal toggle and its undo: nothing, dropped
    )


def test_recorded_beats_are_written_into_the_file_keeping_its_comments(tmp_path):
    path = tmp_path / "cat_sat.yaml"
    path.write_text(CAT_SAT)
    scenario = load(path)
    beats = (
        Beat(step="softmax", row=CAT),
        Beat(edits=(CellEdit("Q", SAT, 0, 5.0),)),
        Beat(options=(("causal", False), ("scale", False))),
    )
    write_lesson(scenario, beats)
    text = path.read_text()
    assert text.startswith(CAT_SAT)  # every comment and number as it was
    assert text[len(CAT_SAT) :] == (
        "lesson:\n"
        "  # recorded with ctrl+r: add say: (and ask:, answer:) to each beat\n"
        "  - step: softmax\n"
        '    row: "cat"\n'
        '  - edit: {matrix: Q, row: "sat", col: 1, to: 5}\n'
        "  - set: {causal: false, scale: false}\n"
    )
    assert load(path).lesson.beats == beats


def test_beats_are_added_after_the_lesson_already_there_block_or_flow(tmp_path):
    block = (
        CAT_SAT + "lesson:  # the walk\n  - {say: Scores first, step: score}  # one\n\n# the end\n"
    )
    scenario = loads(block, str(tmp_path / "a.yaml"))
    text = with_beats(scenario, (Beat(step="mask"),))
    assert text == CAT_SAT + (
        "lesson:  # the walk\n  - {say: Scores first, step: score}  # one\n"
        "  # recorded with ctrl+r: add say: (and ask:, answer:) to each beat\n"
        "  - step: mask\n\n# the end\n"
    )
    flow = CAT_SAT + "lesson: [{step: score}]  # short\n"
    text = with_beats(loads(flow, str(tmp_path / "b.yaml")), (Beat(step="mask", row=0),))
    assert text == CAT_SAT + 'lesson: [{step: score}, {step: mask, row: "the"}]  # short\n'


def test_a_file_whose_layout_cannot_take_the_beats_is_not_written(tmp_path):
    path = tmp_path / "flow.yaml"
    path.write_text("{tokens: [a, b], Q: [[1], [2]], K: [[1], [2]], V: [[1], [2]]}\n")
    with pytest.raises(SaveError, match="flow mapping"):
        write_lesson(load(path), (Beat(step="mask"),))
    assert path.read_text().startswith("{tokens")


def test_a_file_written_whole_keeps_its_lesson(tmp_path):
    scenario = loads(
        CAT_SAT + 'lesson:\n  - {say: "Why \\u221ad_k? [b]x[/b]", step: scale, row: 1}\n'
        "  - {edit: {matrix: V, row: sat, col: 2, to: -0.5}, set: {scale: 2}}\n",
        str(tmp_path / "x.yaml"),
    )
    saved = loads(render(scenario).text, str(tmp_path / "y.yaml"))
    assert saved.lesson == scenario.lesson


def test_what_is_recorded_plays_back_to_the_same_numbers(tmp_path):
    path = tmp_path / "cat_sat.yaml"
    path.write_text(CAT_SAT)
    session = Session(load(path), keep_recovery=False)
    clock = Clock()
    recorder = Recorder(at("score"), recording_start(session), clock=clock)
    for change in (lambda: session.set_cell("Q", SAT, 0, 5.0), session.toggle_causal):
        clock.wait()
        recorder.changed(change(), at("softmax"))
    numbers, options = session.scenario.inputs["Q"].copy(), session.scenario.options
    write_lesson(session.scenario, recorder.finish())
    again = Session(load(path), keep_recovery=False)
    player = LessonPlayer(again, again.scenario.lesson)
    for beat in range(len(player)):
        player.go(beat)
    assert (again.scenario.inputs["Q"] == numbers).all() and again.scenario.options == options


def test_recording_starts_only_from_the_numbers_the_lesson_ends_with(tmp_path):
    session = Session(
        loads(
            CAT_SAT + "lesson:\n  - {edit: {matrix: Q, row: sat, col: 1, to: 5}}\n",
            str(tmp_path / "x.yaml"),
        ),
        keep_recovery=False,
    )
    assert recording_refusal(session) is not None  # the lesson ends with q3 = [5, 1]
    player = LessonPlayer(session, session.scenario.lesson)
    player.go(0)
    assert recording_refusal(session) is None
    session.set_cell("K", 0, 0, 2.0)  # an edit of one's own
    assert "save your edits, undo them" in recording_refusal(session)


def test_a_session_keeps_its_unsaved_edits_over_the_lesson_it_wrote(tmp_path):
    path = tmp_path / "cat_sat.yaml"
    path.write_text(CAT_SAT)
    session = Session(load(path), keep_recovery=False)
    session.set_cell("Q", SAT, 0, 5.0)
    text = write_lesson(session.scenario, (Beat(edits=(CellEdit("Q", SAT, 0, 5.0),)),))
    session.lesson_written(text)
    assert session.modified and session.scenario.lesson is not None
    session.save()  # the numbers go into the new text, the lesson stays
    assert (
        load(path).lesson.beats[0].edits[0].value == 5.0 and load(path).inputs["Q"][SAT, 0] == 5.0
    )
