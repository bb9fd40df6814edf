"""Where the debugger screen is, kept in one place: :class:`DebuggerPosition` (the step, the
row, the key column, the head, and the stage's cursor column), held by one reactive of the
screen (:class:`Positioned`) and made valid where it is set (``validate_position``, as
Textual's DataTable clamps its ``cursor_coordinate``). Every key, click, lesson beat and dialog
that moves the screen sets that one reactive; its watcher tells the panes, and the stage view's
cursor follows it (``Panes.show_marks``), never the other way round.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from textual.reactive import reactive

from attn_tui.core.engine.stages import KEYS, TILES, Stage
from attn_tui.core.model.lesson import Position


@dataclass(frozen=True)
class DebuggerPosition:
    """The debugger screen's position. ``step`` is an index into the screen's stages; ``row``
    a query (or, at a step whose rows are keys, a key); ``column`` the chosen key, kept while
    stepping through stages whose columns are not keys; ``head`` from 0. ``stage_column`` is
    the column of the stage's matrix the cursor is on: at a stage whose columns are keys (or
    tiles of keys), the one the chosen key is in; elsewhere its own, moved by [ and ]."""

    step: int = 0
    row: int = 0
    column: int = 0
    head: int = 0
    stage_column: int = 0


def _clamp(value: int, count: int) -> int:
    return max(0, min(count - 1, value))


def keyed(stage: Stage) -> bool:
    """Whether a stage's columns are keys (or tiles of keys): [ and ] move along them."""
    return stage.arithmetic.columns in (KEYS, TILES)


def span(stage: Stage, scenario) -> int:
    """How many keys one of a stage's columns holds (a tile's; else 1)."""
    return stage.arithmetic.span(scenario) if stage.arithmetic.span is not None else 1


def valid(where: DebuggerPosition, stages: list[Stage], scenario) -> DebuggerPosition:
    """``where`` made a position of these stages of this scenario: each part clamped to what
    exists (the step to the stages, the row to its stage's rows, the column to the keys, the
    head to the heads), and the stage's column worked out from the key where the columns are
    keys, else clamped to the stage's columns."""
    step = _clamp(where.step, len(stages))
    stage = stages[step]
    column = _clamp(where.column, scenario.T_k)
    stage_column = column // span(stage, scenario) if keyed(stage) else where.stage_column
    return DebuggerPosition(
        step,
        _clamp(where.row, stage.row_count(scenario)),
        column,
        _clamp(where.head, scenario.heads),
        _clamp(stage_column, stage.column_count(scenario)),
    )


class Positioned:
    """The debugger screen's part that holds its position, and says what is where (the stage,
    how its columns go): a mixin of :class:`~attn_tui.tui.screens.debugger.DebuggerScreen`,
    which has ``stages`` and ``session``."""

    # repaint=False: a change tells the widgets that show it (watch_position); repainting the
    # whole screen (a reactive's default) would cost every key a full frame
    position: reactive[DebuggerPosition] = reactive(DebuggerPosition(), init=False, repaint=False)

    def validate_position(self, where: DebuggerPosition) -> DebuggerPosition:
        return valid(where, self.stages, self.session.scenario)

    def move(self, **parts: int) -> None:
        """Set some parts of the position (``move(row=3)``), the rest as they are: made valid,
        then shown (if anything changed) by the screen's ``watch_position``."""
        self.position = replace(self.position, **parts)

    def put(self, where: DebuggerPosition) -> None:
        """Set the position, made valid, without the watcher (the caller shows it)."""
        self.set_reactive(Positioned.position, self.validate_position(where))

    def place(self, where: Position, stage_column: int | None = None) -> None:
        """Set the whole position to a lesson's ``where`` at once, without the watchers (the
        caller shows it, in one frame). At a stage whose columns are not keys, the stage's
        column stays as it is, or is ``stage_column``."""
        step = self.step_of(where.step)
        if step != self.step:
            self.set_reactive(type(self).mask_rule, None)  # (as a step does: see watch_position)
        self.put(
            DebuggerPosition(
                step,
                where.row,
                where.column,
                where.head,
                self.stage_column if stage_column is None else stage_column,
            )
        )

    def move_to(self, where: Position) -> None:
        """Go to ``where`` (same head, same numbers): the step's redraw if it changed, else the
        marks."""
        before = self.position
        self.move(step=self.step_of(where.step), row=where.row, column=where.column)
        if self.position == before:  # (nothing moved: the marks all the same, as a beat shows them)
            self.panes.show_marks()
            self.update_keys()

    def step_of(self, name: str) -> int:
        return [stage.name for stage in self.stages].index(name)

    @property
    def lesson_position(self) -> Position:
        """The position as a lesson says it: the step by its stage's name, the row, the column,
        the head."""
        return Position(self.stage, self.row, self.column, self.head)

    # ---- its parts, read --------------------------------------------------------------------

    @property
    def step(self) -> int:
        return self.position.step

    @property
    def row(self) -> int:
        return self.position.row

    @property
    def column(self) -> int:
        """The chosen key."""
        return self.position.column

    @property
    def head(self) -> int:
        return self.position.head

    @property
    def stage_column(self) -> int:
        """The current stage's column the cursor is on (where the columns are keys, the one the
        chosen key is in)."""
        return self.position.stage_column

    # ---- what is where ----------------------------------------------------------------------

    @property
    def stage(self) -> str:
        return self.stages[self.step].name

    @property
    def described(self) -> Stage:
        return self.stages[self.step]

    @property
    def keyed(self) -> bool:
        """Whether the current stage's columns are keys (or tiles of keys): [ and ] move along
        them."""
        return keyed(self.described)

    @property
    def span(self) -> int:
        """How many keys one of the current stage's columns holds (a tile's; else 1)."""
        return span(self.described, self.session.scenario)

    @property
    def column_count(self) -> int:
        return self.described.column_count(self.session.scenario)

    # ---- what the student does here ---------------------------------------------------------

    @property
    def predicting(self) -> bool:
        """Whether the current stage is one the scenario asks the student to predict (and the
        lesson's beat does not ask its question first)."""
        predictions = self.session.predictions
        return (
            predictions is not None and predictions.predicts(self.stage) and not self.answer_first()
        )

    def answer_first(self) -> bool:
        """Whether r shows the lesson's beat's answer before anything else
        (``Lessons.answer_first``)."""
        return self.lessons.answer_first()

    def revealable(self) -> bool:
        """Whether r has a row to reveal here (a predicted stage, the row still hidden), so that
        typing guesses it; r itself waits for ``reveal_first``."""
        return self.predicting and not self.session.predictions.is_revealed(
            self.stage, self.head, self.row
        )

    def reveal_first(self) -> list[str]:
        """The earlier predicted stages whose unrevealed row hides this stage's row, by name: r
        waits for them (revealing weights over scores still hidden would give the weights away
        in the Why pane while the grid kept them hidden)."""
        if not self.predicting:
            return []
        hiding = self.session.predictions.hiding(self.stage, self.head, self.row)
        return [name for name in hiding if name != self.stage]

    @property
    def comparing(self) -> bool:
        """Whether the scenario holds the student's own values (expect:) for the current stage
        (and the stage shows them: a stage to predict shows the guesses, and y would do nothing)."""
        predictions = self.session.predictions
        if predictions is not None and predictions.predicts(self.stage):
            return False
        comparison = self.session.comparison
        return (
            comparison is not None
            and comparison.stage(self.described.key, self.compared_head) is not None
        )

    @property
    def compared_head(self) -> int | None:
        """The head a student's values of the current stage belong to (None: the only one)."""
        return (
            self.head
            if self.described.arithmetic.per_head and self.session.scenario.heads > 1
            else None
        )
