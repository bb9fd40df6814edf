"""A lesson as data: a teacher's walk through a scenario, beat by beat.

A beat says what to look at (a stage, a query row, a key column, a head), what to change (cells
set as a user sets them, options as the keys set them), what to say, and what to ask. A beat's
state is cumulative: where the beats up to it leave the position, the cells and the options.
A Scenario holds its Lesson (this module is in the model layer for that); the reader
(``core.lessons.reader``) checks every beat against the scenario when it is loaded, so a Lesson
in a Scenario is always playable, and ``core.editing.lesson_player`` plays it against a Session.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Iterator, Union

import numpy as np

if TYPE_CHECKING:
    from attn_tui.core.model.scenario import Scenario

MAX_BEATS = 1000  # a lesson longer than this is refused at load (a class has tens)
MAX_EDITS_PER_BEAT = 64  # cells one beat may set
MAX_TEXT = 2000  # characters of one say:, ask: or answer:

OptionValue = Union[bool, float]


@dataclass(frozen=True)
class CellEdit:
    """One input cell a beat sets: ``matrix[row, col] = value`` (of ``head``, in a 3-D input)."""

    matrix: str
    row: int
    col: int
    value: float
    head: int | None = None

    @property
    def cell(self) -> tuple[str, int | None, int, int]:
        return (self.matrix, self.head, self.row, self.col)


@dataclass(frozen=True)
class Beat:
    """One step of a lesson; a field left None keeps what the beats before it set."""

    say: str = ""
    step: str | None = None  # a stage's name (core.engine.stages)
    row: int | None = None  # a query row, from 0
    column: int | None = None  # a key column, from 0
    head: int | None = None  # a head, from 0
    edits: tuple[CellEdit, ...] = ()
    options: tuple[tuple[str, OptionValue], ...] = ()  # ("causal", False), ("scale", False), …
    predict: bool = False  # the student guesses the row before the lesson goes on
    ask: str = ""
    answer: str = ""
    line: int = field(default=0, compare=False)  # where the beat is written (0: not in a file)

    @property
    def moves(self) -> bool:
        return any(value is not None for value in (self.step, self.row, self.column, self.head))

    @property
    def changes(self) -> bool:
        return bool(self.edits or self.options)


@dataclass(frozen=True)
class Position:
    """Where the app looks: a stage by name, a query row, a key column and a head (from 0)."""

    step: str
    row: int
    column: int = 0
    head: int = 0


@dataclass(frozen=True)
class Lesson:
    beats: tuple[Beat, ...]

    def __len__(self) -> int:
        return len(self.beats)

    def position(self, index: int, start: Position) -> Position:
        """Where beat ``index`` (from 0) looks: each of step, row, column and head as the latest
        beat up to it set it, else as at ``start``."""
        found = dataclasses.asdict(start)
        for beat in self.beats[: index + 1]:
            for name in ("step", "row", "column", "head"):
                value = getattr(beat, name)
                if value is not None:
                    found[name] = value
        return Position(**found)

    def cells(self, index: int) -> dict[tuple[str, int | None, int, int], float]:
        """The cells the beats up to ``index`` set, each to the value the latest of them gave."""
        found: dict[tuple[str, int | None, int, int], float] = {}
        for beat in self.beats[: index + 1]:
            for edit in beat.edits:
                found[edit.cell] = edit.value
        return found

    def options(self, index: int) -> dict[str, OptionValue]:
        found: dict[str, OptionValue] = {}
        for beat in self.beats[: index + 1]:
            found.update(beat.options)
        return found

    def touched_cells(self) -> set[tuple[str, int | None, int, int]]:
        return {edit.cell for beat in self.beats for edit in beat.edits}

    def touched_options(self) -> set[str]:
        return {name for beat in self.beats for name, _ in beat.options}

    def scenarios(self, scenario: Scenario) -> Iterator[Scenario]:
        """``scenario`` (as loaded, before any beat) with the cells and options of each beat in
        turn, without a copy of every input per beat (1,000 beats on 16,384 tokens took minutes
        and gigabytes): a matrix the beats edit is one working copy whose cells are set as the
        beats go, the others are ``scenario``'s. Each scenario shares that copy, so use it
        before taking the next."""
        working: dict[str, np.ndarray] = {}
        for index, beat in enumerate(self.beats):
            for edit in beat.edits:
                matrix, head, row, col = edit.cell
                if matrix not in working:
                    working[matrix] = np.array(scenario.inputs[matrix])
                working[matrix].flags.writeable = True
                working[matrix][(row, col) if head is None else (head, row, col)] = edit.value
            for array in working.values():  # (read-only: the Scenario shares it, copies none)
                array.flags.writeable = False
            options = dataclasses.replace(scenario.options, **self.options(index))
            yield dataclasses.replace(
                scenario, inputs={**scenario.inputs, **working}, options=options
            )
