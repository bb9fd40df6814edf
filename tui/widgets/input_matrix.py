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
NAVIGATION = {
    "up": lambda m: m.action_move(-1, 0), "down": lambda m: m.action_move(1, 0),
    "left": lambda m: m.action_move(0, -1), "right": lambda m: m.action_move(0, 1),
    "pageup": lambda m: m.action_move(-m.page_rows, 0), "pagedown": lambda m: m.action_move(m.page_rows, 0),
    "home": lambda m: m.action_move(0, -m.shape[1]), "end": lambda m: m.action_move(0, m.shape[1]),
    "ctrl+home": lambda m: m.action_move(-m.shape[0], -m.shape[1]),
    "ctrl+end": lambda m: m.action_move(m.shape[0], m.shape[1]),
    "plus": lambda m: m.action_nudge(1), "minus": lambda m: m.action_nudge(-1),
}


class InputMatrix(MatrixView, can_focus=True):
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
    def page_rows(self) -> int:
        return max(1, self.scrollable_content_region.height - 2)

    @property
    def editing(self) -> bool:
        return self._editor is not None

    @property
    def editor_text(self) -> str | None:
        return self._editor[0] if self._editor else None

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
        self.border_subtitle = "Enter commit · Esc cancel · ctrl+u clear"
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
        taken = self.take_edit()
        if taken is not None:
            self.post_message(self.CellEdited(self, *self.cursor, *taken))
        return taken is not None

    def take_edit(self) -> tuple[float, str] | None:
        """Close the editor and return its number and text; None (and refused) if not a number."""
        text = self._editor[0]
        try:
            value = parse_number(text)
        except ValueError as error:
            self.refuse(text, str(error))
            return None
        self.close_editor()
        return value, text

    def refuse(self, text: str, message: str) -> None:
        """Show ``text`` back in the cell's editor, marked refused, with the reason."""
        self._editor = (text, len(text), True)
        self.border_subtitle = f"[b]✗[/b] {message}"
        self.notify(f"{self.matrix_name}: {message}", title="Not a number", severity="warning", timeout=4)
        self.refresh()

    def close_editor(self) -> None:
        self._editor = None
        self.border_subtitle = ""
        self.refresh()

    def on_key(self, event: events.Key) -> None:
        """Every key of this widget is handled here, in the order it arrives.

        Bindings run only after a key has bubbled up to the app, so a digit typed right after
        Enter could reach this widget before Enter's binding had opened the editor; handling
        the keys here keeps them in order. The bindings remain for the footer and the palette.
        """
        key = event.key
        if not self.editing:
            action = NAVIGATION.get(key)
            if action is not None:
                action(self)
            elif key in ("enter", "e"):
                self.action_open_editor()
            elif key == "escape":
                self.screen.set_focus(self.screen.query_one("#stage"))
            elif event.character is not None and event.character in START_KEYS:
                self.action_open_editor(event.character)
            else:
                return  # c, s, u, Tab, ctrl+s …: the screen's and the app's keys
            self._swallow(event)
            return
        text, caret, _ = self._editor
        if key == "enter":
            self.commit()
        elif key == "escape":
            self.close_editor()
        elif key in ("tab", "shift+tab"):
            self.action_commit_and_move(1 if key == "tab" else -1)
        elif key == "backspace":
            self._set_editor(text[: max(0, caret - 1)] + text[caret:], max(0, caret - 1))
        elif key == "delete":
            self._set_editor(text[:caret] + text[caret + 1:], caret)
        elif key in ("left", "right", "home", "end"):
            caret = {"left": max(0, caret - 1), "right": min(len(text), caret + 1),
                     "home": 0, "end": len(text)}[key]
            self._set_editor(text, caret)
        elif key == "ctrl+u":
            self._set_editor("", 0)
        elif event.is_printable and event.character:
            self._set_editor(text[:caret] + event.character + text[caret:], caret + 1)
        elif key.startswith("ctrl+"):
            return  # save and quit still work while a cell is open (they commit it first)
        self._swallow(event)

    def _set_editor(self, text: str, caret: int) -> None:
        self._editor = (text, caret, False)
        self.refresh()

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
