"""InputMatrix: a MatrixView the user edits in place, with the habits of VisiData and sc-im.

Arrows move the cell cursor; Enter or ``e`` opens an editor in the cell with the old value
selected (typing replaces it), and typing a digit starts a fresh one; Enter commits, Esc
cancels, Tab commits and moves right; ``+``/``-`` nudge by 0.1. Text that is not a finite
number is refused in place and stays in the editor, so nothing typed is lost.
"""

from __future__ import annotations

from collections.abc import Callable

from textual import events
from textual.binding import Binding
from textual.message import Message

from attn_tui.core.files.yaml_text import yaml_number
from attn_tui.tui.widgets.editable_matrix import EditableMatrix
from attn_tui.tui.widgets.matrix import MatrixView

NAVIGATION = {
    "up": lambda m: m.action_move(-1, 0),
    "down": lambda m: m.action_move(1, 0),
    "left": lambda m: m.action_move(0, -1),
    "right": lambda m: m.action_move(0, 1),
    "pageup": lambda m: m.action_move(-m.page_rows, 0),
    "pagedown": lambda m: m.action_move(m.page_rows, 0),
    "home": lambda m: m.action_move(0, -m.shape[1]),
    "end": lambda m: m.action_move(0, m.shape[1]),
    "ctrl+home": lambda m: m.action_move(-m.shape[0], -m.shape[1]),
    "ctrl+end": lambda m: m.action_move(m.shape[0], m.shape[1]),
    "plus": lambda m: m.action_nudge(1),
    "minus": lambda m: m.action_nudge(-1),
}


class InputMatrix(EditableMatrix, can_focus=True):
    """An editable input matrix (Q, K, V, or X and the W's); edits go up as messages."""

    # Shown in the footer and offered by the palette; the keys themselves are handled in
    # on_key (see there why).
    BINDINGS = [
        Binding("enter", "enter", "Edit/commit"),
        Binding("e", "open_editor", "Edit", show=False),
        Binding("escape", "cancel", "Cancel"),
        Binding("tab", "commit_and_move(1)", "Commit →", show=False),
        Binding("plus", "nudge(1)", "+0.1"),
        Binding("minus", "nudge(-1)", "−0.1"),
    ]

    class Nudged(Message):
        """The user nudged a cell up (+1) or down (−1)."""

        def __init__(self, matrix: InputMatrix, row: int, col: int, direction: int) -> None:
            super().__init__()
            self.matrix = matrix
            self.row = row
            self.col = col
            self.direction = direction

        @property
        def control(self) -> InputMatrix:
            return self.matrix

    def __init__(self, name: str, head: int | None = None, title: str = "", **kwargs) -> None:
        super().__init__(title or name, **kwargs)
        self.matrix_name = name
        self.head = head  # which head of a 3-D input this shows (None: a 2-D input)
        self.cursor = (0, 0)
        # the screen's say over a key before this matrix has it (True: taken), so that a digit
        # typed while a guess is pending opens the guess, not this matrix's cell
        self.take_key: Callable[[events.Key], bool] | None = None

    @property
    def page_rows(self) -> int:
        return max(1, self.scrollable_content_region.height - 2)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("cancel", "commit_and_move"):
            return self.editing
        if action in ("nudge", "open_editor"):
            return not self.editing
        return True

    # ---- actions ----------------------------------------------------------------------------

    def action_move(self, rows: int, columns: int) -> None:
        total_rows, total_columns = self.shape
        row, col = self.cursor
        self.set_cursor(
            (max(0, min(total_rows - 1, row + rows)), max(0, min(total_columns - 1, col + columns)))
        )

    def action_enter(self) -> None:
        if self.editing:
            self.commit()
        else:
            self.action_open_editor()

    def action_open_editor(self, text: str | None = None) -> None:
        row, col = self.cursor
        if text is None:
            self.open_editor(yaml_number(float(self.grid.values[row, col])), selected=True)
        else:
            self.open_editor(text, selected=False)

    def action_cancel(self) -> None:
        self.close_editor()

    def action_commit_and_move(self, direction: int) -> None:
        self.commit_and_move(direction)

    def action_nudge(self, direction: int) -> None:
        self.post_message(self.Nudged(self, *self.cursor, direction))

    def on_key(self, event: events.Key) -> None:
        """Every key of this widget is handled here, in the order it arrives.

        Bindings run only after a key has bubbled up to the app, so a digit typed right after
        Enter could reach this widget before Enter's binding had opened the editor; handling
        the keys here keeps them in order. The bindings remain for the footer and the palette.
        """
        key = event.key
        if not self.editing and self.take_key is not None and self.take_key(event):
            self.swallow(event)  # (a guess's, not this matrix's)
            return
        if self.editing:
            if self.edit_key(event):
                self.swallow(event)
            return
        action = NAVIGATION.get(key)
        if action is not None:
            action(self)
        elif key in ("enter", "e"):
            self.action_open_editor()
        elif key == "escape":
            self.screen.set_focus(self.screen.query_one("#stage"))
        elif self.starts_editing(event):
            self.action_open_editor(event.character)
        else:
            return  # c, s, u, Tab, ctrl+s …: the screen's and the app's keys
        self.swallow(event)

    @property
    def shows_cursor(self) -> bool:
        return self.has_focus or self.editing

    def on_matrix_view_cell_clicked(self, event: MatrixView.CellClicked) -> None:
        if not self.editing:
            self.set_cursor((event.row, event.col))
        self.focus()
