"""Recording a lesson: a teacher's moves and changes become beats, to be written into ``lesson:``.

The app tells the recorder where it looks after every move (step, row, column, head) and every
change it applies (an edit of a cell, an option). Moves and changes that come less than
``FOLD_SECONDS`` apart fold into one beat — three presses of → are one step, and the nudges of
one cell one edit — while a pause (the teacher talking) starts the next beat. A beat keeps
where the app looked last and the net change of every cell and option; a beat that changes
nothing and moves nowhere is dropped. Each beat writes down only what differs from the beat
before it, since a lesson's beats are cumulative.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable

import numpy as np

from attn_tui.core.lessons.lesson import start_position
from attn_tui.core.model.edits import SetCell, SetOption
from attn_tui.core.model.lesson import Beat, CellEdit, Lesson, Position

if TYPE_CHECKING:
    from attn_tui.core.editing.session import Session
    from attn_tui.core.model.edits import Edit

FOLD_SECONDS = 1.0


def now() -> float:
    """The recorder's clock (seconds; a test of the app replaces it)."""
    return time.monotonic()


@dataclass
class _Pending:
    position: Position
    last: float
    cells: dict[tuple[str, int | None, int, int], tuple[float, float]] = field(default_factory=dict)
    options: dict[str, tuple[bool | float, bool | float]] = field(default_factory=dict)


class Recorder:
    """The beats recorded so far. ``after`` is where the lesson stands when the recorded beats
    begin (the end of the file's own lesson, or where playing one starts)."""

    def __init__(
        self,
        position: Position,
        after: Position,
        clock: Callable[[], float] | None = None,
        beats: tuple[Beat, ...] = (),
    ) -> None:
        """``beats``: recorded already (a recording that could not be written, going on)."""
        self.clock = clock or now
        self._beats: list[Beat] = list(beats)
        self._previous = after
        self._pending: _Pending | None = _Pending(position, self.clock())

    def __len__(self) -> int:
        """The beats recorded so far (the one being recorded included, if it holds anything)."""
        return len(self._beats) + (
            self._pending is not None and self._beat(self._pending) is not None
        )

    def moved(self, position: Position) -> None:
        self._touch().position = position

    def changed(self, edit: Edit, position: Position) -> None:
        """An edit the session applied (undo and redo apply edits too); others are not recorded."""
        pending = self._touch()
        pending.position = position
        if isinstance(edit, SetCell):
            key = (edit.matrix, edit.head, edit.row, edit.col)
            before = pending.cells.get(key, (edit.old, edit.old))[0]
            pending.cells[key] = (before, edit.value)
        elif isinstance(edit, SetOption):
            before = pending.options.get(edit.name, (edit.old, edit.old))[0]
            pending.options[edit.name] = (before, edit.value)

    def finish(self) -> tuple[Beat, ...]:
        """Every beat recorded, the last one closed."""
        if self._pending is not None:
            self._close(self._pending)
            self._pending = None
        return tuple(self._beats)

    def _touch(self) -> _Pending:
        now = self.clock()
        pending = self._pending
        if pending is None:
            pending = self._pending = _Pending(self._previous, now)
        elif now - pending.last > FOLD_SECONDS:
            self._close(pending)
            pending = self._pending = _Pending(pending.position, now)
        pending.last = now
        return pending

    def _close(self, pending: _Pending) -> None:
        beat = self._beat(pending)
        if beat is not None:
            self._beats.append(beat)
            self._previous = pending.position

    def _beat(self, pending: _Pending) -> Beat | None:
        where, before = pending.position, self._previous
        moved = {
            name: getattr(where, name)
            for name in ("step", "row", "column", "head")
            if getattr(where, name) != getattr(before, name)
        }
        edits = tuple(
            CellEdit(matrix, row, col, value, head)
            for (matrix, head, row, col), (old, value) in pending.cells.items()
            if not _same(old, value)
        )
        options = tuple(
            (name, value) for name, (old, value) in pending.options.items() if not _same(old, value)
        )
        if not (moved or edits or options):
            return None
        return Beat(edits=edits, options=options, **moved)


def _same(a: bool | float, b: bool | float) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    return np.float64(a).view(np.int64) == np.float64(b).view(np.int64)


def recording_start(session: Session) -> Position:
    """Where the recorded beats continue from: the end of the file's own lesson, else where a
    lesson starts."""
    scenario = session.saved
    start = start_position(scenario)
    lesson = scenario.lesson
    return lesson.position(len(lesson) - 1, start) if lesson is not None else start


def recording_refusal(session: Session) -> str | None:
    """Why recording cannot start now, or None. A recorded beat is played after the file's own
    lesson, on the numbers that lesson ends with: the session must hold exactly those (the
    file's numbers, with the lesson's cells and options at its last beat)."""
    saved = session.saved
    lesson: Lesson | None = saved.lesson
    index = len(lesson) - 1 if lesson is not None else -1
    cells = lesson.cells(index) if lesson is not None else {}
    options = lesson.options(index) if lesson is not None else {}
    for edit in session.net_edits():
        if isinstance(edit, SetCell):
            key = (edit.matrix, edit.head, edit.row, edit.col)
            if key not in cells or not _same(cells[key], edit.value):
                return _REFUSAL
        elif isinstance(edit, SetOption):
            if edit.name not in options or not _same(options[edit.name], edit.value):
                return _REFUSAL
        else:  # the student's values (expect:) are not a lesson's
            return _REFUSAL
    for key, value in cells.items():
        matrix, head, row, col = key
        if not _same(session.cell(matrix, row, col, head), value):
            return _REFUSAL
    for name, value in options.items():
        if not _same(getattr(session.scenario.options, name), value):
            return _REFUSAL
    return _layout_refusal(saved)


def _layout_refusal(scenario) -> str | None:
    """Why the file's text cannot take recorded beats (one flow mapping, a lesson that is an
    alias, …), asked before recording rather than after it, when the beats would be lost."""
    from attn_tui.core.editing.lesson_writer import with_beats
    from attn_tui.core.errors import SaveError

    try:
        with_beats(scenario, (Beat(say="a beat"),))
    except SaveError as error:
        return str(error).replace("; nothing was written", "")
    return None


_REFUSAL = (
    "recording starts from the numbers the file's lesson ends with (or the file's own, "
    "without one): save your edits, undo them, or go to the lesson's last beat first"
)
