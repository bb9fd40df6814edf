"""InputMatrix: a MatrixView the user edits in place, with the habits of VisiData and sc-im.

Arrows move the cell cursor; Enter or ``e`` (or typing a digit) opens an editor in the cell;
Enter commits, Esc cancels, Tab commits and moves right; ``+``/``-`` nudge by 0.1. Text that
is not a finite number is refused in place and stays in the editor, so nothing typed is lost.
"""

from __future__ import annotations

from textual import events
from textual.binding import Binding
from textual.message import Message

from core.numbers import parse_number, yaml_number
from tui.widgets.matrix import MatrixView

START_KEYS = set("0123456789.")


class InputMatrix(MatrixView, can_focus=True):
    """An editable input matrix (Q, K, V, or X and the W's); edits go up as messages."""

    BINDINGS = [
        Binding("up", "move(-1, 0)", "Cell ↑", show=False),
        Binding("down", "move(1, 0)", "Cell ↓", show=False),
        Binding("left", "move(0, -1)", "Cell ←", show=False),
        Binding("right", "move(0, 1)", "Cell →", show=False),
        Binding("pageup", "move(-10, 0)", show=False),
        Binding("pagedown", "move(10, 0)", show=False),
        Binding("enter", "enter", "Edit/commit"),
        Binding("e", "open_editor", "Edit", show=False),
        Binding("escape", "cancel", "Cancel"),
        Binding("tab", "commit_and_move(1)", "Commit →", show=False),
        Binding("shift+tab", "commit_and_move(-1)", "Commit ←", show=False),
        Binding("plus", "nudge(1)", "+0.1"),
        Binding("minus", "nudge(-1)", "−0.1"),
    ]

    class CellEdited(Message):
        """The user committed ``value`` (typed as ``text``) into a cell."""

        def __init__(self, matrix: InputMatrix, row: int, col: int, value: float, text: str) -> None:
            super().__init__()
            self.matrix = matrix
            self.row = row
            self.col = col
            self.value = value
            self.text = text

        @property
        def control(self) -> InputMatrix:
            return self.matrix

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

    def __init__(self, name: str, title: str = "", **kwargs) -> None:
        super().__init__(title or name, **kwargs)
        self.matrix_name = name
        self.cursor = (0, 0)

    @property
    def editing(self) -> bool:
        return self._editor is not None

    @property
    def editor_text(self) -> str | None:
        return self._editor[0] if self._editor else None

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("cancel", "commit_and_move"):
            return self.editing
        if action in ("move", "nudge", "open_editor"):
            return not self.editing
        return True

    # ---- actions ----------------------------------------------------------------------------

    def action_move(self, rows: int, columns: int) -> None:
        total_rows, total_columns = self.shape
        row, col = self.cursor
        self.set_cursor((max(0, min(total_rows - 1, row + rows)), max(0, min(total_columns - 1, col + columns))))

    def action_enter(self) -> None:
        if self.editing:
            self.commit()
        else:
            self.action_open_editor()

    def action_open_editor(self, text: str | None = None) -> None:
        row, col = self.cursor
        if text is None:
            text = yaml_number(float(self.grid.values[row, col]))
        self._editor = (text, len(text), False)
        self.border_subtitle = "Enter commit · Esc cancel · Tab next"
        self.refresh()

    def action_cancel(self) -> None:
        self.close_editor()

    def action_commit_and_move(self, direction: int) -> None:
        if self.commit():
            rows, columns = self.shape
            row, col = self.cursor
            index = max(0, min(rows * columns - 1, row * columns + col + direction))
            self.set_cursor(divmod(index, columns))

    def action_nudge(self, direction: int) -> None:
        self.post_message(self.Nudged(self, *self.cursor, direction))

    # ---- the editor -------------------------------------------------------------------------

    def commit(self) -> bool:
        """Parse the editor's text: post it up if it is a finite number, else refuse in place."""
        text = self._editor[0]
        try:
            value = parse_number(text)
        except ValueError as error:
            self.refuse(text, str(error))
            return False
        self.close_editor()
        self.post_message(self.CellEdited(self, *self.cursor, value, text))
        return True

    def refuse(self, text: str, message: str) -> None:
        """Show ``text`` back in the cell's editor, marked refused, with the reason."""
        self._editor = (text, len(text), True)
        self.border_subtitle = f"[b]✗[/b] {message}"
        self.refresh()

    def close_editor(self) -> None:
        self._editor = None
        self.border_subtitle = ""
        self.refresh()

    def on_key(self, event: events.Key) -> None:
        if not self.editing:
            if event.character is not None and event.character in START_KEYS:
                self.action_open_editor(event.character)
                self._swallow(event)
            return
        text, caret, _ = self._editor
        key = event.key
        if key in ("enter", "escape", "tab", "shift+tab"):
            return  # the bindings commit, cancel or move
        if key == "backspace":
            text, caret = text[: max(0, caret - 1)] + text[caret:], max(0, caret - 1)
        elif key == "delete":
            text = text[:caret] + text[caret + 1:]
        elif key == "left":
            caret = max(0, caret - 1)
        elif key == "right":
            caret = min(len(text), caret + 1)
        elif key == "home":
            caret = 0
        elif key == "end":
            caret = len(text)
        elif event.is_printable and event.character:
            text, caret = text[:caret] + event.character + text[caret:], caret + 1
        elif key.startswith("ctrl+"):
            return  # save, quit and the like still work while a cell is open
        self._editor = (text, caret, False)
        self.refresh()
        self._swallow(event)

    def on_paste(self, event: events.Paste) -> None:
        if self.editing:
            text, caret, _ = self._editor
            pasted = event.text.replace("\n", " ")
            self._editor = (text[:caret] + pasted + text[caret:], caret + len(pasted), False)
            self.refresh()
            event.stop()

    @property
    def shows_cursor(self) -> bool:
        return self.has_focus or self.editing

    def on_blur(self) -> None:
        if self.editing and not self._editor[2]:
            self.commit()
        self.refresh()

    def on_matrix_view_cell_clicked(self, event: MatrixView.CellClicked) -> None:
        if not self.editing:
            self.set_cursor((event.row, event.col))
        self.focus()

    @staticmethod
    def _swallow(event: events.Key) -> None:
        event.stop()
        event.prevent_default()
