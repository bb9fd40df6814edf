"""StageView: the current stage's matrix, and where a student types predictions.

At a stage the scenario asks to predict, its cells start hidden; typing a digit (or Enter)
opens the editor in the cursor's cell, Tab commits and moves to the next key. The arrows keep
stepping and choosing the row, as everywhere in the stage view.
"""

from __future__ import annotations

from textual import events
from textual.message import Message

from attn_tui.core.numbers import yaml_number
from attn_tui.tui.widgets.editable_matrix import EditableMatrix


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
        if self.predicting and self.cursor is not None and (
                self.starts_editing(event) or event.key in ("enter", "e")):
            row, col = self.cursor
            guessed = self.grid.predicted[row, col] if self.grid.predicted is not None else float("nan")
            typed = event.character if self.starts_editing(event) else ""
            self.open_editor(typed or ("" if guessed != guessed else yaml_number(float(guessed))))
            self.swallow(event)

    def commit_and_move(self, direction: int) -> bool:
        if not self.commit():
            return False
        self.post_message(self.Advance(direction))
        return True
