"""The lesson keys of one debugger screen: playing a lesson (n, N, and r for an answer),
recording one (ctrl+r) and following a teacher (f). The beats, their states, what the
narration bar says and what a recording writes are core's (``core.editing.lesson_player``,
``core.editing.lesson_recording``, ``lesson_writer``); this module moves the screen to where core
says, feeds the recorder what the screen does, and tells the user what happened."""

from __future__ import annotations

from typing import TYPE_CHECKING

from attn_tui.core.editing.lesson_player import LessonPlayer, follow_line, narration
from attn_tui.core.errors import NumericError, SaveError
from attn_tui.tui.classroom import Classroom
from attn_tui.tui.key_bindings import relabel
from attn_tui.tui.text import tell

if TYPE_CHECKING:
    from attn_tui.core.editing.lesson_recording import Recorder
    from attn_tui.tui.class_answers import AnswerSender, LeadAnswers
    from attn_tui.tui.follow import Follower
    from attn_tui.tui.screens.debugger import DebuggerScreen


class Lessons:
    def __init__(self, screen: DebuggerScreen, classroom: Classroom | None) -> None:
        self.screen = screen
        self.classroom = classroom or Classroom()
        self.player: LessonPlayer | None = None
        self.recorder: Recorder | None = None
        self.follower: Follower | None = None
        self.following = False
        self.teacher_beat: int | None = None
        self.lead: LeadAnswers | None = None  # the class's answers, on the teacher's screen
        self.answers: AnswerSender | None = None  # this student's, to the teacher
        self._fed = None  # the last edit given to the recorder

    @property
    def session(self):
        return self.screen.session

    # ---- starting ---------------------------------------------------------------------------

    def start(self) -> None:
        """Before the screen first shows anything: open at beat 1 of the scenario's lesson (if
        it has one and this app plays lessons), and join or lead a class."""
        screen, lesson = self.screen, self.session.scenario.lesson
        if lesson is not None and self.classroom.play:
            self.player = LessonPlayer(self.session, lesson)
            # the file has the lesson's edits: not the student's
            self.session.journal.lesson = self.player
            try:
                where = self.player.go(0)
            except NumericError as error:  # (a recovery copy restored before it, say)
                tell(screen, str(error), severity="error", timeout=8)
            else:
                screen.place(
                    where, stage_column=where.column
                )  # (nothing shown yet: the key's column)
        leader = self.classroom.leader
        if leader is not None:
            leader.changed = lambda: screen.app.call_later(self.show)
            screen.run_worker(leader.start(), group="lead", exit_on_error=False)
            if self.player is not None and self.player.beat is not None:
                leader.publish(self.player.beat + 1)
            if self.player is not None:
                from attn_tui.tui.class_answers import (
                    LeadAnswers,  # (only in a class: tui.class_keys)
                )

                self.lead = LeadAnswers(self)
        if self.classroom.follow is not None and self.player is not None:
            from attn_tui.tui.class_answers import AnswerSender

            self.answers = AnswerSender(self)
            from attn_tui.tui.follow import Follower  # (a class's channel: only when following)

            self.follower = Follower(
                self.classroom.follow,
                len(self.player),
                self._teacher_moved,
                self._channel_lost,
                self.show,
                self.classroom.student,
                self.answers.revealed,
            )
            self.following = True
            self.answers.start()
            screen.run_worker(self.follower.run(), group="follow", exit_on_error=False)
        screen.watch(screen, "position", self.moved, init=False)
        self.show()

    # ---- playing ----------------------------------------------------------------------------

    def next(self) -> None:
        player = self.player
        waiting = player.waiting_for(self.screen.head)
        if waiting:
            tell(self.screen, waiting[0].upper() + waiting[1:], timeout=5)
            return
        if player.beat is not None and player.beat >= len(player) - 1:
            tell(self.screen, "That was the lesson's last beat", timeout=3)
            self.go(player.beat)  # back to its script, all the same
            return
        self.go(0 if player.beat is None else player.beat + 1)

    def previous(self) -> None:
        player = self.player
        if not player.beat:
            tell(self.screen, "This is the lesson's first beat", timeout=3)
            if player.beat == 0:
                self.go(0)
            return
        self.go(player.beat - 1)

    def go(self, index: int) -> None:
        """Move to beat ``index`` (from 0): its changes through the session (each undoable), then
        its position, with one repaint of what changed."""
        screen, player = self.screen, self.player
        before = self.session.version
        head_before = screen.head
        try:
            where = player.go(index)
        except NumericError as error:
            tell(
                screen,
                f"Beat {index + 1} cannot be shown with your own edits: {error}",
                severity="error",
                timeout=8,
            )
            if self.session.version != before:
                screen.after_change()
            return
        # (a predict beat brings its own guesses back: the stage shows them, even where no number
        # moved)
        changed = self.session.version != before or player.current.predict
        with screen.app.batch_update():
            if changed or where.head != head_before:
                screen.place(where)
                self._fed = self.session.last_edit  # fed below, each of them
                screen.after_change(
                    None if where.head != head_before else _matrices(player.applied)
                )
            else:
                screen.move_to(where)
        if self.recorder is not None:
            for edit in player.applied:
                self.recorder.changed(edit, self.screen.lesson_position)
            self.recorder.moved(self.screen.lesson_position)
        if self.classroom.leader is not None:
            self.classroom.leader.publish(index + 1)
        self.show()

    def answer_first(self) -> bool:
        """Whether r shows the current beat's answer before anything else: the beat asks a
        question and does not ask for a prediction (a predicted row there is not the point)."""
        player = self.player
        return player is not None and player.answer_pending() and not player.current.predict

    def reveal_pending(self) -> bool:
        return self.player is not None and self.player.answer_pending()

    def guessed(self) -> None:
        """After a guess or a reveal: a follower's answer goes to the teacher
        (tui.class_answers)."""
        if self.answers is not None:
            self.answers.changed()

    def reveal_answer(self) -> None:
        self.player.reveal_answer()
        self.show()

    # ---- recording --------------------------------------------------------------------------

    def record(self) -> None:
        from attn_tui.core.editing.lesson_recording import (  # (ctrl+r alone)
            Recorder,
            recording_refusal,
            recording_start,
        )

        screen = self.screen
        if self.recorder is None:
            refusal = recording_refusal(self.session)
            if (
                self.classroom.leader is not None
            ):  # the class's apps read the lesson when they started
                refusal = (
                    "not while leading a class: the students' apps have the lesson as it was "
                    "when they opened, and would stop following at a beat they do not have"
                )
            if refusal:
                tell(screen, f"Cannot record now: {refusal}", severity="warning", timeout=8)
                return
            self.recorder = Recorder(self.screen.lesson_position, recording_start(self.session))
            self._fed = self.session.last_edit
            tell(
                screen,
                "Recording: steps, rows, heads, edits and options become beats (a pause starts the "
                "next); ctrl+r writes them into the file's lesson:",
                timeout=6,
            )
            self.show()
            return
        beats = self.recorder.finish()
        if not beats:
            self.recorder = None
            tell(screen, "Nothing recorded: no move or change since ctrl+r", timeout=4)
            self.show()
            return
        if self.session.read_only:
            self._write_elsewhere(beats)
            return
        try:
            self.session.check_disk()
            from attn_tui.core.editing.lesson_writer import write_lesson

            text = write_lesson(self.session.scenario, beats)
        except SaveError as error:
            self.recorder = Recorder(
                self.screen.lesson_position, self.screen.lesson_position, beats=beats
            )  # ctrl+r tries again
            tell(
                screen,
                f"{error} (still recording: ctrl+r tries again)",
                severity="error",
                timeout=10,
            )
            return
        self.session.lesson_written(text)
        self.recorder = None
        self._replay()
        tell(
            screen,
            f"{len(beats)} beat{'' if len(beats) == 1 else 's'} written into "
            f"{screen.file_name}'s lesson: (add say: lines to them); back at beat 1, n plays them",
            timeout=8,
        )

    def _write_elsewhere(self, beats) -> None:
        """A built-in (or a served file) is never overwritten: the lesson goes into a copy."""
        import os

        from attn_tui.core.editing.lesson_recording import Recorder
        from attn_tui.core.editing.lesson_writer import write_lesson
        from attn_tui.tui.screens.save_as import SaveAsScreen

        screen = self.screen
        path = self.session.scenario.path or "lesson.yaml"
        stem = os.path.splitext(os.path.basename(path))[0]

        def chosen(target: str | None) -> None:
            if not target:
                tell(
                    screen,
                    "Still recording: ctrl+r asks again where to write the lesson",
                    timeout=6,
                )
                self.recorder = Recorder(
                    self.screen.lesson_position, self.screen.lesson_position, beats=beats
                )
                self.show()
                return
            try:
                if os.path.exists(target) and self.session.save_root is None:
                    raise SaveError(f"{target} already exists; give a new name")
                write_lesson(
                    self.session.saved,
                    beats,
                    target,
                    self.session.save_root,
                    self.session.scenario.stage_settings,
                )  # (d, the tiles: their keys too)
            except SaveError as error:
                tell(screen, str(error), severity="error", timeout=10)
                chosen(None)
                return
            self.recorder = None
            tell(
                screen,
                f"The lesson is written into a copy: {target} (the numbers of {stem}, with "
                f"{len(beats)} recorded beats); open it to play it",
                timeout=10,
            )
            self.show()

        screen.app.push_screen(SaveAsScreen(f"{stem}_lesson.yaml"), chosen)

    def _replay(self) -> None:
        """After writing: the file's lesson, now with the recorded beats, from its first beat
        (the tape rewound: the numbers are the file's again, and n plays what was recorded)."""
        self.player = LessonPlayer(self.session, self.session.scenario.lesson)
        self.screen.refresh_bindings()
        self.go(0)

    def moved(self, before, now) -> None:
        """The screen's position changed: a move the recorder keeps (the stage's cursor column
        alone, where the columns are not keys, is no lesson's)."""
        if self.recorder is not None and (before.step, before.row, before.column, before.head) != (
            now.step,
            now.row,
            now.column,
            now.head,
        ):
            self.recorder.moved(self.screen.lesson_position)
            self.show()

    def changed(self) -> None:
        """After the screen applied a change: the recorder gets the edit (once)."""
        edit = self.session.last_edit
        if self.recorder is not None and edit is not None and edit is not self._fed:
            self._fed = edit
            self.recorder.changed(edit, self.screen.lesson_position)
            self.show()
        elif self.player is not None:  # u may have taken a put-back away, or shown a row revealed
            self.show()

    # ---- following a teacher ----------------------------------------------------------------

    def follow(self) -> None:
        self.following = not self.following
        if self.following and self.teacher_beat is not None:
            self.go(self.teacher_beat - 1)
        self.show()

    def _teacher_moved(self, beat: int) -> None:
        self.teacher_beat = beat
        if self.following:
            self.go(beat - 1)
        else:
            self.show()

    def _channel_lost(self, reason: str) -> None:
        self.following = False
        self.follower = None
        tell(self.screen, f"Stopped following: {reason}", severity="warning", timeout=8)
        self.screen.refresh_bindings()
        self.show()

    # ---- what it shows ----------------------------------------------------------------------

    def show(self) -> None:
        screen = self.screen
        if getattr(screen, "narration", None) is None:  # (not composed yet)
            return
        leader = self.classroom.leader
        line = None
        if leader is not None:
            line = follow_line(True, True, True, None, leader.followers, self.classroom.address)
        elif (
            self.follower is not None
            or self.classroom.follow is not None
            and self.player is not None
        ):
            connected = self.follower is not None and self.follower.connected
            line = follow_line(False, connected, self.following, self.teacher_beat)
        recording = len(self.recorder) if self.recorder is not None else None
        screen.narration.show(narration(self.player, screen.head, recording, line))
        screen.after_lesson_shown()
        if self.player is not None and self.player.beat is not None:
            label = f"Beat {self.player.beat + 1}/{len(self.player)}"
            if label != getattr(self, "_label", None):
                self._label = label
                relabel(screen, "next_beat", label)
        if self.lead is not None:
            self.lead.show()


def _matrices(edits) -> tuple[str, ...]:
    return tuple(dict.fromkeys(edit.matrix for edit in edits if hasattr(edit, "matrix")))
