"""Edits as small values: set one input cell, or change an option. Each knows its inverse,
so the undo history is a list of edits and undoing restores the old value exactly, and its own
part of being made in a session (``apply_in``)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Protocol, Union

from attn_tui.core.files.yaml_text import yaml_number
from attn_tui.core.model.labels import input_labels
from attn_tui.core.model.scenario import Scenario
from attn_tui.core.text import visible

NUDGE = 0.1


class Workspace(Protocol):
    """What an edit asks of the session it is made in (``core.editing.session.Session``). The
    session owns the edited arrays, the engine and the checks, which core/model may not import;
    each edit says which of them it needs. Every method sees ``scenario`` as it was before the
    edit, and one that raises has changed nothing."""

    scenario: Scenario

    def cell_written(self, edit: SetCell) -> Scenario:
        """The scenario with the cell set in the session's own copy, its tiles updated and what
        it made stale forgotten; ``NumericError`` (a value too large) puts the cell back."""
        ...

    def inputs_replaced(self, edit: SetInputs, scenario: Scenario) -> None:
        """Whole matrices replaced by ``scenario``'s: the heads' inputs and attention rebuilt."""
        ...

    def check_scores_fit(self, scenario: Scenario) -> None:
        """``NumericError`` if ``scenario``'s scaling would let a score overflow."""
        ...

    def check_lesson_keeps(self, stage: str) -> None:
        """``NotApplicable`` if the scenario's lesson shows ``stage``."""
        ...

    def options_changed(self, scenario: Scenario) -> None:
        """Every attention computed afresh under ``scenario``'s options."""
        ...

    def steps_changed(self, scenario: Scenario) -> None:
        """A step came or went: attention computed afresh, predictions following the steps."""
        ...


@dataclass(frozen=True)
class SetCell:
    """``matrix[row, col] = value`` (it was ``old``); ``head`` picks one head of a 3-D input."""

    matrix: str
    row: int
    col: int
    value: float
    old: float
    head: int | None = None

    def apply(self, scenario: Scenario) -> Scenario:
        return scenario.with_cell(self.matrix, self.row, self.col, self.value, self.head)

    def inverse(self) -> SetCell:
        return SetCell(self.matrix, self.row, self.col, self.old, self.value, self.head)

    def apply_in(self, session: Workspace) -> Scenario:
        """Written in place, not copied: one key's edit must not cost a copy of the matrix."""
        return session.cell_written(self)

    def describe(self, scenario: Scenario) -> str:
        rows, columns = input_labels(scenario, self.matrix)
        if self.head is None:
            head = ""
        elif self.matrix in ("K", "V") and scenario.kv_heads != scenario.heads:  # a key/value head
            head = f" (kv head {self.head + (0 if scenario.head_names[0] == 'head 0' else 1)})"
        else:
            head = f" ({visible(scenario.head_names[self.head])})"
        return (
            f"{self.matrix}{head}[{rows[self.row]}, {columns[self.col]}] = "
            f"{yaml_number(self.value)} (was {yaml_number(self.old)})"
        )


@dataclass(frozen=True)
class SetOption:
    """An option (``causal`` or ``scale``) set to ``value`` (it was ``old``)."""

    name: str
    value: bool | float
    old: bool | float

    def apply(self, scenario: Scenario) -> Scenario:
        return scenario.with_options(**{self.name: self.value})

    def inverse(self) -> SetOption:
        return SetOption(self.name, self.old, self.value)

    def apply_in(self, session: Workspace) -> Scenario:
        """A smaller divisor can make a finite score overflow: the scale is checked first."""
        scenario = self.apply(session.scenario)
        if self.name == "scale":
            session.check_scores_fit(scenario)
        session.options_changed(scenario)
        return scenario

    def describe(self, scenario: Scenario) -> str:
        if self.name == "causal":
            return "causal mask on" if self.value else "causal mask off"
        return (
            f"scaling: {scenario.with_options(scale=self.value).options.scale_text(scenario.d_k)}"
        )


@dataclass(frozen=True, eq=False)
class SetStageSetting:
    """A stage's setting (``Scenario.stage_settings[name]``) turned on or changed to ``value``,
    or off (None); it was ``old``: the app's online-softmax tiles and decoding."""

    name: str
    value: object | None
    old: object | None

    def apply(self, scenario: Scenario) -> Scenario:
        settings = {
            key: setting for key, setting in scenario.stage_settings.items() if key != self.name
        }
        if self.value is not None:
            settings[self.name] = self.value
        return dataclasses.replace(scenario, stage_settings=settings)

    def inverse(self) -> SetStageSetting:
        return SetStageSetting(self.name, self.old, self.value)

    def apply_in(self, session: Workspace) -> Scenario:
        """A step the lesson shows stays on; one that comes or goes changes the steps."""
        if self.value is None:
            session.check_lesson_keeps(self.name)
        scenario = self.apply(session.scenario)
        session.steps_changed(scenario)
        return scenario

    def describe(self, scenario: Scenario) -> str:
        return (
            f"{self.value.describe()} on"
            if self.value is not None
            else f"{self.old.describe()} off"
        )


@dataclass(frozen=True, eq=False)
class SetExpect:
    """The student's values (``expect:``) and their tolerance replaced, e.g. by predictions."""

    value: dict
    old: dict
    tolerance: float
    old_tolerance: float

    def apply(self, scenario: Scenario) -> Scenario:
        return dataclasses.replace(scenario, expect=self.value, expect_tolerance=self.tolerance)

    def inverse(self) -> SetExpect:
        return SetExpect(self.old, self.value, self.old_tolerance, self.tolerance)

    def apply_in(self, session: Workspace) -> Scenario:
        """The student's values change no number attention computes: nothing goes stale."""
        return self.apply(session.scenario)

    def describe(self, scenario: Scenario) -> str:
        return "predictions kept as expect:"


@dataclass(frozen=True, eq=False)
class SetInputs:
    """Whole input matrices replaced (``values``: name → array; they were ``old``): what training
    learned, kept in the scenario as one edit, undone as one."""

    values: dict
    old: dict
    why: str = "learned"

    def apply(self, scenario: Scenario) -> Scenario:
        return dataclasses.replace(scenario, inputs={**scenario.inputs, **self.values})

    def inverse(self) -> SetInputs:
        return SetInputs(self.old, self.values, f"{self.why}, undone")

    def apply_in(self, session: Workspace) -> Scenario:
        """Whole matrices change: everything computed from the inputs is made afresh."""
        scenario = self.apply(session.scenario)
        session.inputs_replaced(self, scenario)
        return scenario

    def describe(self, scenario: Scenario) -> str:
        return f"{', '.join(self.values)} {self.why}"


Edit = Union[SetCell, SetOption, SetStageSetting, SetExpect, SetInputs]


def nudged(value: float, direction: int) -> float:
    """``value`` moved by ±0.1, rounded to 12 decimals so that 0.1 + 0.2 reads 0.3."""
    return round(value + direction * NUDGE, 12)


def scale_cycle(scenario: Scenario, original: Scenario) -> bool | float:
    """The next scaling in the cycle ÷√d_k → none → (the file's own divisor, if it has one)."""
    cycle: list[bool | float] = [True, False]
    if not isinstance(original.options.scale, bool):
        cycle.append(original.options.scale)
    current = scenario.options.scale
    index = next(
        (
            i
            for i, option in enumerate(cycle)
            if option is current
            or (
                not isinstance(option, bool) and option == current and not isinstance(current, bool)
            )
        ),
        -1,
    )
    return cycle[(index + 1) % len(cycle)]


class History:
    """Undo and redo over a list of edits."""

    def __init__(self) -> None:
        self._done: list[Edit] = []
        self._undone: list[Edit] = []

    def push(self, edit: Edit) -> None:
        self._done.append(edit)
        self._undone.clear()

    def undo(self) -> Edit | None:
        """The edit that reverses the latest one (None when there is nothing to undo)."""
        if not self._done:
            return None
        edit = self._done.pop()
        self._undone.append(edit)
        return edit.inverse()

    def redo(self) -> Edit | None:
        if not self._undone:
            return None
        edit = self._undone.pop()
        self._done.append(edit)
        return edit

    @property
    def done(self) -> list[Edit]:
        """The edits that made the current state, oldest first."""
        return list(self._done)

    @property
    def can_undo(self) -> bool:
        return bool(self._done)

    @property
    def can_redo(self) -> bool:
        return bool(self._undone)

    def __len__(self) -> int:
        return len(self._done)
