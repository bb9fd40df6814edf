"""The teacher's side of a class's answers (``serve LESSON --follow``): every message the
followers send, checked against the lesson's predict beats, counted per beat
(``core.classroom.tally``), appended to ``--responses`` and shown on the teacher's screen.

Who a message is from is the id its connection said hello with (a served app's is its
browser's). A connection that has not said hello is nobody: its names and answers are refused.
The counts are of the students following now (an id with a connection open): one who leaves is
no longer counted, and is again, with their answer, if they come back under the same id (a
reloaded page), so the screen's "N answered of M following" never has N above M, however many
ids a client makes up by reconnecting. A message that is not an answer to one of the lesson's
predict beats is refused and counted; it moves nothing and nobody else."""

from __future__ import annotations

from collections.abc import Callable

from attn_tui.core.classroom import wire
from attn_tui.core.classroom.beats import predict_beats, refusal
from attn_tui.core.classroom.log import ResponseLog
from attn_tui.core.classroom.tally import BeatTally, Counts
from attn_tui.core.model.scenario import Scenario

MAX_STUDENTS = 10_000  # ids remembered in a class (each is one app that said hello)


class ClassDesk:
    """The class's answers as they arrive. ``arrived()`` is called after each accepted answer
    (the screen coalesces its repaints). With ``record_names``, each line of the log carries the
    first name the student gave (--names --record-names)."""

    def __init__(
        self,
        scenario: Scenario,
        responses: str | None = None,
        names: bool = False,
        arrived: Callable[[], None] = lambda: None,
        record_names: bool = False,
    ) -> None:
        self.beats = predict_beats(scenario)
        self.tallies = {number: BeatTally(beat) for number, beat in self.beats.items()}
        self.log = ResponseLog(responses) if responses else None
        self.log_problem: str | None = None
        self.asks_names = names
        self.record_names = names and record_names
        self.names: dict[str, str] = {}
        self.named_here: set[object] = set()  # connections that gave a name (one each)
        self.students: dict[object, str] = {}  # connection → the id it said hello with
        self.present: dict[str, int] = {}  # id → its connections open now (a browser's tabs)
        self.refused = 0
        self.last_refusal = ""
        self.arrived = arrived

    def heard(self, connection: object, message: wire.Message | None) -> None:
        """One message from a follower's connection (None: it left)."""
        if message is None:
            return self._left(connection)
        if isinstance(message, wire.Refused):
            return self.refuse(message.why)
        if isinstance(message, wire.Hello):
            if connection in self.students:
                return self.refuse("a second hello")
            if message.student not in self.present and len(self.present) >= MAX_STUDENTS:
                return self.refuse("more students than a class holds")
            self.students[connection] = message.student
            self.present[message.student] = self.present.get(message.student, 0) + 1
            self.arrived()
            return None
        student = self.students.get(connection)
        if student is None:
            return self.refuse("a message before hello (from nobody following)")
        if isinstance(message, wire.Name):
            if not self.asks_names:
                return self.refuse("a name, and this class asks for none")
            if connection in self.named_here:
                return self.refuse("a second name")
            if len(self.names) >= MAX_STUDENTS:
                self._forget_absent(self.names)
                if len(self.names) >= MAX_STUDENTS:
                    return self.refuse("more names than a class holds")
            self.names[student] = message.name  # (a reloaded page's app may give it anew)
            self.named_here.add(connection)
            self.arrived()
            return None
        why = refusal(self.beats, message)
        if why is not None:
            return self.refuse(why)
        tally = self.tallies[message.beat]
        if not tally.beat.collected:
            return self.refuse(f"beat {message.beat}'s row is wider than the channel carries")
        if tally.latest.get(student) == message.guess:
            return None  # the same answer again: nothing to count or log
        if student not in tally.latest and len(tally.latest) >= MAX_STUDENTS:
            self._forget_absent(tally.latest)
            if len(tally.latest) >= MAX_STUDENTS:
                return self.refuse("more students than a class holds")
        tally.add(student, message.guess)
        if self.log is not None:
            name = self.names.get(student) if self.record_names else None
            try:
                self.log.write(student, tally.beat, message, name=name, named=self.record_names)
            except OSError as error:  # (a full disk): the class goes on, the screen says so
                self.log_problem = f"{self.log.path}: {error.strerror or error}"
        self.arrived()
        return None

    def _left(self, connection: object) -> None:
        student = self.students.pop(connection, None)
        self.named_here.discard(connection)
        if student is None:
            return
        left = self.present[student] - 1
        if left:
            self.present[student] = left
        else:
            del self.present[student]
        self.arrived()

    def _forget_absent(self, by_student: dict) -> None:
        """Room in a full class: what students who are not following now gave is forgotten."""
        for student in [student for student in by_student if student not in self.present]:
            del by_student[student]

    def refuse(self, why: str) -> None:
        """A message or a connection refused: counted, and why said on the teacher's screen."""
        self.refused += 1
        self.last_refusal = why

    def counts(self, beat: int) -> Counts | None:
        """The counts at ``beat`` (from 1) of the students following now, None if it predicts
        nothing."""
        tally = self.tallies.get(beat)
        return None if tally is None else tally.counts(self.present)

    def named(self, beat: int) -> list[tuple[str, str]]:
        """With --names: (first name, verdict words) of each named student following now who
        answered at ``beat``."""
        tally = self.tallies.get(beat)
        if tally is None or not self.asks_names:
            return []
        return sorted(
            (self.names[student], tally.verdict(student).words)
            for student in tally.latest
            if student in self.names and student in self.present
        )

    def close(self) -> None:
        if self.log is not None:
            self.log.close()
