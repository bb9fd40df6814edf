"""StageView: the current stage's matrix, and where a student types predictions.

At a stage the scenario asks to predict, its cells start hidden; Enter (or ``e``) opens the
editor in the cursor's cell, Tab commits and moves to the next key, and the digits keep jumping
to stages as everywhere. The arrows keep stepping and choosing the row.
"""

from __future__ import annotations

from textual import events
from textual.message import Message

from attn_tui.core.engine.stages import column_labels, row_labels
from attn_tui.core.files.yaml_text import yaml_number
from attn_tui.core.engine.views import stage_window
from attn_tui.tui.widgets.editable_matrix import EditableMatrix
from attn_tui.tui.widgets.grid import Grid


class StageGrid(Grid):
    """A stage of the session's attention, as the stage view draws it (windows from core)."""

    def __init__(self, session, stage, head: int, theirs: bool = False, rule: str | None = None) -> None:
        scenario = session.scenario
        decimals = session.attention.stage_decimals(stage.name, head)
        super().__init__(rows=row_labels(scenario, stage), columns=column_labels(scenario, stage),
                         decimals=decimals, palette=stage.palette, tiny=stage.tiny,
                         mask_value=session.attention.options.mask_value,
                         blocked_text=stage.skipped_text if stage.skipped is not None else None,
                         key=(stage.name, head, theirs, rule), kin=(stage.name, theirs, rule),
                         version=session.version)
        self.session, self.stage, self.head = session, stage, head
        self.theirs, self.rule = theirs, rule

    def window(self, rows: range, cols: range):
        return stage_window(self.session, self.stage.name, self.head, rows, cols, self.theirs, self.rule)


class StageView(EditableMatrix, can_focus=True):
    class Advance(Message):
        """After a prediction was committed with Tab: move the cursor on (or back)."""

        def __init__(self, direction: int) -> None:
            super().__init__()
            self.direction = direction

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.predicting = False  # the screen turns this on at a stage to predict

    def on_key(self, event: events.Key) -> None:
        if self.editing:
            if self.edit_key(event):
                self.swallow(event)
            return
        if self.predicting and self.cursor is not None and event.key in ("enter", "e"):
            row, col = self.cursor
            window = self.grid.window(range(row, row + 1), range(col, col + 1))
            if window.hidden is None or not window.hidden[0, 0]:
                return  # a revealed or masked cell takes no guess
            guessed = float("nan") if window.guesses is None else float(window.guesses[0, 0])
            self.open_editor("" if guessed != guessed else yaml_number(guessed))
            self.swallow(event)

    def commit_and_move(self, direction: int) -> bool:
        if not self.commit():
            return False
        self.post_message(self.Advance(direction))
        return True
