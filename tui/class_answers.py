"""A class's answers on the screens of ``serve LESSON --follow``.

A student's app (``AnswerSender``) sends its guesses of the beat's predicted row to the
teacher's when the student reveals it (r), and again when they change a guess after that, at
most one message each ``SEND_DELAY`` (the latest guesses); the teacher's R reveals the row in
every follower at that beat. The teacher's app (``LeadAnswers``) counts what arrives
(``tui.class_desk``) and shows it under the narration at a predict beat, repainted at most
every ``SHOW_DELAY``; D shows it on the projector (no names there), R reveals it to everyone.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from attn_tui.core.classroom import wire
from attn_tui.core.engine.stages import column_labels, stage_named
from attn_tui.core.model.labels import token_labels
from attn_tui.tui.class_desk import ClassDesk
from attn_tui.tui.follow import RATE
from attn_tui.tui.text import tell
from attn_tui.tui.widgets.class_answers import ClassAnswers, answer_lines

if TYPE_CHECKING:
    from attn_tui.tui.controllers.lessons import Lessons

# seconds: a row's guesses typed in a burst after r go as one message, and never more often
# than the teacher's app reads a follower's messages (past that, it drops the follower)
SEND_DELAY = 1 / RATE
# seconds: 40 answers in a burst are one repaint, and a storm of them four a second
SHOW_DELAY = 0.25


def _predict_place(lessons: Lessons):
    """(beat from 1, position) of the current beat if it asks for a prediction, else None."""
    player = lessons.player
    if player is None or player.beat is None or not player.current.predict:
        return None
    return player.beat + 1, player.position()


def names_said(classroom) -> str:
    """What the teacher is told as a class with --names starts: where the names go."""
    where = (
        f"and written into {classroom.responses} with each answer (--record-names)"
        if classroom.record_names
        else "not written into the log of answers (--record-names would)"
        if classroom.responses
        else "and kept nowhere"
    )
    return f"First names: each student may give one; shown on this screen only, {where}"


class AnswerSender:
    """A student's side: the guesses of the current predict beat, to the teacher."""

    def __init__(self, lessons: Lessons) -> None:
        self.lessons = lessons
        self._timer = None
        self.sent: bytes | None = None  # the last message sent (tests read it)

    def start(self) -> None:
        """As the app opens: the student's first name, given (--join --name) or asked (--names)."""
        classroom, follower = self.lessons.classroom, self.lessons.follower
        if classroom.name is not None:
            follower.name = classroom.name
        elif classroom.names:
            from attn_tui.tui.screens.name_prompt import NamePromptScreen

            self.lessons.screen.app.push_screen(
                NamePromptScreen(recorded=classroom.record_names), self._named
            )

    def _named(self, name: str | None) -> None:
        follower = self.lessons.follower
        if name is None or follower is None:
            return
        follower.name = name  # (sent on every connection from now on, and now if connected)
        follower.send(wire.name_line(name))

    def changed(self) -> None:
        """After a reveal or a guess: send the row if it is revealed (soon, once)."""
        if self.lessons.follower is None or self._timer is not None or self._row() is None:
            return
        self._timer = self.lessons.screen.set_timer(SEND_DELAY, self._send)

    def _row(self):
        found = _predict_place(self.lessons)
        predictions = self.lessons.session.predictions
        if found is None or predictions is None:
            return None
        beat, where = found
        if not predictions.predicts(where.step) or not predictions.is_revealed(
            where.step, where.head, where.row
        ):
            return None
        return beat, where, predictions.guesses_of(where.step, where.head).row(where.row)

    def _send(self) -> None:
        self._timer = None
        found, follower = self._row(), self.lessons.follower
        if found is None or follower is None:
            return
        beat, where, guesses = found
        if all(value != value for value in guesses):
            return  # revealed without a guess: nothing to tell
        try:
            line = wire.answer_line(beat, where.row, guesses)
        except ValueError:  # wider than the channel carries, or a number no guess is
            return
        if line != self.sent and follower.send(line):
            self.sent = line

    def revealed(self, beat: int) -> None:
        """The teacher revealed ``beat``'s row to everyone: shown here too, if this app is at that
        beat."""
        found = _predict_place(self.lessons)
        if found is None or found[0] != beat:
            return
        screen, where = self.lessons.screen, found[1]
        predictions = self.lessons.session.predictions
        if (
            predictions is None
            or not predictions.predicts(where.step)
            or predictions.is_revealed(where.step, where.head, where.row)
        ):
            return
        if screen.lesson_position == where or (screen.stage, screen.row, screen.head) == (
            where.step,
            where.row,
            where.head,
        ):
            screen.action_reveal()
        else:  # exploring elsewhere: the row is revealed all the same, and shown when they go back
            predictions.reveal(where.step, where.head, where.row, self.lessons.session.attention)
            screen.update_keys()
            self.lessons.show()
        tell(screen, "The teacher revealed the answer", timeout=4)


class LeadAnswers:
    """The teacher's side: the class's answers counted and shown."""

    def __init__(self, lessons: Lessons) -> None:
        self.lessons = lessons
        classroom = lessons.classroom
        self.desk = ClassDesk(
            lessons.session.scenario,
            classroom.responses,
            classroom.names,
            self._arrived,
            record_names=classroom.record_names,
        )
        classroom.leader.heard = self.desk.heard
        # what the channel itself refuses (a flood, a line too long, the class full) is counted
        # with what the desk refuses, so that "last:" is the latest of them all
        classroom.leader.refused = self._refused
        self.panel = ClassAnswers(id="class-answers")
        if classroom.names:  # said once, as the class starts: where the names go
            tell(lessons.screen, names_said(classroom), timeout=12)
        self.projected: set[int] = set()  # beats whose answer the teacher revealed to everyone
        self._timer = None
        screen = lessons.screen
        screen.mount(self.panel, after=screen.narration)

    def _refused(self, why: str) -> None:
        self.desk.refuse(why)
        self._arrived()

    def _arrived(self) -> None:
        if self._timer is None:
            self._timer = self.lessons.screen.set_timer(SHOW_DELAY, self.show)

    def beat(self) -> int | None:
        """The current beat (from 1) if it is one whose answers are counted."""
        found = _predict_place(self.lessons)
        return None if found is None or found[0] not in self.desk.beats else found[0]

    def lines(self, projector: bool = False):
        beat = self.beat()
        if beat is None:
            return None
        counts = self.desk.counts(beat)
        predict = self.desk.beats[beat]
        scenario = predict.scenario
        stage = stage_named(predict.stage)
        what = f'{stage.numbers} of "{token_labels(scenario.row_tokens)[predict.row]}"'
        notes = []
        if not predict.collected:
            notes.append(
                f"this row has {predict.columns} columns, more than the {wire.MAX_CELLS} the "
                "class's apps send: no answers are collected here"
            )
        if self.desk.log_problem and not projector:
            notes.append(f"--responses: {self.desk.log_problem} (answers still counted here)")
        refused = self.desk.refused
        if refused and not projector:
            notes.append(
                f"{refused} message{'' if refused == 1 else 's'} refused "
                f"(last: {self.desk.last_refusal})"
            )
        mark = not projector or beat in self.projected or self._revealed_here(predict)
        return answer_lines(
            counts,
            self.lessons.classroom.leader.followers,
            what,
            column_labels(scenario, stage),
            scenario.precision,
            mark_correct=mark,
            named=None if projector else self.desk.named(beat),
            notes=tuple(notes),
        )

    def _revealed_here(self, predict) -> bool:
        predictions = self.lessons.session.predictions
        return (
            predictions is not None
            and predictions.predicts(predict.stage)
            and predictions.is_revealed(predict.stage, predict.head, predict.row)
        )

    def show(self) -> None:
        self._timer = None
        self.panel.show(self.lines())
        top = self.lessons.screen.app.screen
        if getattr(top, "class_answers", None) is not None:  # the projector, showing them
            top.show_class()

    def reveal_to_class(self) -> None:
        beat = self.beat()
        if beat is None:
            tell(
                self.lessons.screen,
                "R reveals the answer of a predict beat to the class: this beat asks for none",
                timeout=4,
            )
            return
        self.projected.add(beat)
        self.lessons.classroom.leader.reveal(beat)
        screen = self.lessons.screen
        if screen.revealable():
            screen.action_reveal()
        following = self.lessons.classroom.leader.followers
        tell(screen, f"Answer revealed to the class ({following} following)", timeout=4)
        self.show()

    def close(self) -> None:
        self.desk.close()
