"""The teacher's side of a class's answers (``serve LESSON --follow``): every message the
followers send, checked against the lesson's predict beats, counted per beat
(``core.classroom.tally``), appended to ``--responses`` and shown on the teacher's screen.

Who a message is from is its connection's: the id its app said hello with (a served app's is
its browser's), else one made for that connection. A message that is not an answer to one of
the lesson's predict beats is refused and counted; it moves nothing and nobody else."""

from __future__ import annotations

import secrets
from collections.abc import Callable

from attn_tui.core.classroom import wire
from attn_tui.core.classroom.beats import predict_beats, refusal
from attn_tui.core.classroom.log import ResponseLog
from attn_tui.core.classroom.tally import BeatTally, Counts
from attn_tui.core.model.scenario import Scenario

MAX_STUDENTS = 10_000  # ids remembered in a class (each is one app that said hello)


class ClassDesk:
    """The class's answers as they arrive. ``arrived()`` is called after each accepted answer
    (the screen coalesces its repaints)."""

    def __init__(
        self,
        scenario: Scenario,
        responses: str | None = None,
        names: bool = False,
        arrived: Callable[[], None] = lambda: None,
    ) -> None:
        self.beats = predict_beats(scenario)
        self.tallies = {number: BeatTally(beat) for number, beat in self.beats.items()}
        self.log = ResponseLog(responses) if responses else None
        self.log_problem: str | None = None
        self.asks_names = names
        self.names: dict[str, str] = {}
        self.students: dict[object, str] = {}  # connection → student id
        self.refused = 0
        self.last_refusal = ""
        self.arrived = arrived

    def heard(self, connection: object, message: wire.Message | None) -> None:
        """One message from a follower's connection (None: it left)."""
        if message is None:
            self.students.pop(connection, None)
            return
        if isinstance(message, wire.Refused):
            return self._refuse(message.why)
        if isinstance(message, wire.Hello):
            if connection in self.students:
                return self._refuse("a second hello")
            self.students[connection] = message.student
            return None
        student = self._student(connection)
        if isinstance(message, wire.Name):
            if not self.asks_names:
                return self._refuse("a name, and this class asks for none")
            if student in self.names or len(self.names) >= MAX_STUDENTS:
                return self._refuse("a second name")
            self.names[student] = message.name
            self.arrived()
            return None
        why = refusal(self.beats, message)
        if why is not None:
            return self._refuse(why)
        tally = self.tallies[message.beat]
        if not tally.beat.collected:
            return self._refuse(f"beat {message.beat}'s row is wider than the channel carries")
        if student not in tally.latest and len(tally.latest) >= MAX_STUDENTS:
            return self._refuse("more students than a class holds")
        tally.add(student, message.guess)
        if self.log is not None:
            try:
                self.log.write(student, tally.beat, message)
            except OSError as error:  # (a full disk): the class goes on, the screen says so
                self.log_problem = f"{self.log.path}: {error.strerror or error}"
        self.arrived()
        return None

    def _student(self, connection: object) -> str:
        found = self.students.get(connection)
        if found is None:
            found = self.students[connection] = secrets.token_hex(8)
        return found

    def _refuse(self, why: str) -> None:
        self.refused += 1
        self.last_refusal = why

    def counts(self, beat: int) -> Counts | None:
        """The counts at ``beat`` (from 1), None if it predicts nothing."""
        tally = self.tallies.get(beat)
        return None if tally is None else tally.counts()

    def named(self, beat: int) -> list[tuple[str, str]]:
        """With --names: (first name, verdict words) of each named student who answered at
        ``beat``."""
        tally = self.tallies.get(beat)
        if tally is None or not self.asks_names:
            return []
        return sorted(
            (self.names[student], tally.verdict(student).words)
            for student in tally.latest
            if student in self.names
        )

    def close(self) -> None:
        if self.log is not None:
            self.log.close()
