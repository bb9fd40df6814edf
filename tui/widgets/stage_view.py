"""StageView: the current stage's matrix, and where a student types predictions.

At a stage the scenario asks to predict, its cells start hidden. While the cursor's row is
hidden, a digit (or ``.``, ``-``) opens the guess there with that character, Enter (or ``e``)
opens it on the guess already made, and Tab commits and opens the next cell of the row that
takes a guess: a row is typed in one go, ``0.25 Tab 0.25 Tab 0.5``. Elsewhere the digits keep
jumping to steps. The arrows keep stepping and choosing the row.

The editor moves on by itself, in the same key's handler: keys sent at once (a paste, a fast
typist over SSH) arrive before any message could, and each must find the editor open.
"""

from __future__ import annotations

import math

from textual import events
from textual.message import Message

from attn_tui.core.engine.stages import column_labels, row_labels
from attn_tui.core.engine.views import stage_window
from attn_tui.core.files.yaml_text import yaml_number
from attn_tui.tui.widgets.editable_matrix import START_KEYS, EditableMatrix
from attn_tui.tui.widgets.grid import Grid


class StageGrid(Grid):
    """A stage of the session's attention, as the stage view draws it (windows from core)."""

    def __init__(
        self, session, stage, head: int, theirs: bool = False, rule: str | None = None
    ) -> None:
        scenario = session.scenario
        decimals = session.attention.stage_decimals(stage.name, head)
        super().__init__(
            rows=row_labels(scenario, stage),
            columns=column_labels(scenario, stage),
            decimals=decimals,
            palette=stage.display.palette,
            tiny=stage.tiny,
            mask_value=session.attention.options.mask_value,
            blocked_text=stage.display.skipped_text
            if stage.arithmetic.skipped is not None
            else None,
            key=(stage.name, head, theirs, rule),
            kin=(stage.name, theirs, rule),
            version=session.version,
        )
        self.session, self.stage, self.head = session, stage, head
        self.theirs, self.rule = theirs, rule

    def window(self, rows: range, cols: range):
        return stage_window(
            self.session, self.stage.name, self.head, rows, cols, self.theirs, self.rule
        )


GUESS_KEYS = START_KEYS | {"-"}  # the characters that start a guess (a score may be negative)


class StageView(EditableMatrix, can_focus=True):
    class Moved(Message):
        """The guess editor opened in another cell of the row: the screen's key column follows."""

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.predicting = False  # the screen turns this on at a stage to predict

    def on_key(self, event: events.Key) -> None:
        if self.editing:
            if self.edit_key(event):
                self.swallow(event)
            return
        if not self.predicting:
            return
        if event.key in ("enter", "e"):
            opened = self.open_guess(only_here=True)
        elif event.character is not None and event.character in GUESS_KEYS:
            opened = self.open_guess(event.character)
        else:
            return
        if opened:
            self.swallow(event)

    def open_guess(
        self, typed: str | None = None, only_here: bool = False, direction: int = 0
    ) -> bool:
        """Open the guess editor in the cursor's row: on the cursor's cell if it takes a guess
        (with ``direction``, the next one that does that way; else, unless ``only_here``, the
        row's first), with ``typed`` as its text or the guess already made, selected. False if
        no cell of the row takes a guess (the row is revealed)."""
        if self.cursor is None or self.grid is None:
            return False
        row, col = self.cursor
        window = self.grid.window(range(row, row + 1), range(self.grid.shape[1]))
        cells = [] if window.hidden is None else [int(j) for j in window.hidden[0].nonzero()[0]]
        if direction:
            ahead = [j for j in cells if (j - col) * direction > 0]
            target = (min if direction > 0 else max)(ahead, default=None)
        elif col in cells or only_here:
            target = col if col in cells else None
        else:
            target = cells[0] if cells else None
        if target is None:
            return False
        if target != col:
            self.set_cursor((row, target))
            self.post_message(self.Moved())
        if typed is not None:
            self.open_editor(typed, selected=False)
            return True
        guessed = float("nan") if window.guesses is None else float(window.guesses[0, target])
        self.open_editor("" if math.isnan(guessed) else yaml_number(guessed))
        return True

    def commit_and_move(self, direction: int) -> bool:
        if not self.commit():
            return False
        self.open_guess(direction=direction)  # (none left that way: the editor stays closed)
        return True
