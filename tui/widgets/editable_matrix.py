"""EditableMatrix: a MatrixView with an editor that opens in a cell.

The editor is the one both the input matrices (to change a number) and the stage view (to
type a prediction) use. It opens with the old value selected, so typing replaces it (``-1.5``
gives −1.5); Enter commits, Esc cancels, Tab commits and moves right, ctrl+u clears, the arrows
move the caret. Text that is not a finite number is refused in place and stays in the editor,
so nothing typed is lost.
"""

from __future__ import annotations

from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.message import Message

from attn_tui.core.numbers import parse_number
from attn_tui.core.text import visible
from attn_tui.tui.text import set_titles, tell
from attn_tui.tui.widgets.matrix import MatrixView

START_KEYS = set("0123456789.")


class EditableMatrix(MatrixView):
    """Subclasses decide when typing opens the editor (:meth:`starts_editing`) and where the
    cursor goes; a committed value goes up as :class:`CellEdited`."""

    _selected = False  # the editor's text is selected: the next key typed replaces it
    refused_reason = (
        ""  # why the editor's text was refused, until it closes (the Why pane says it whole)
    )

    class Refused(Message):
        """The editor's text was refused for ``reason``, or (``reason`` empty) the editor that
        held a refused text closed."""

        def __init__(self, matrix: EditableMatrix, reason: str) -> None:
            super().__init__()
            self.matrix = matrix
            self.reason = reason

        @property
        def control(self) -> EditableMatrix:
            return self.matrix

    class CellEdited(Message):
        """The user committed ``value`` (typed as ``text``) into a cell."""

        def __init__(
            self, matrix: EditableMatrix, row: int, col: int, value: float, text: str
        ) -> None:
            super().__init__()
            self.matrix = matrix
            self.row = row
            self.col = col
            self.value = value
            self.text = text

        @property
        def control(self) -> EditableMatrix:
            return self.matrix

    @property
    def editing(self) -> bool:
        return self.editor is not None

    @property
    def editor_text(self) -> str | None:
        return self.editor[0] if self.editor else None

    def starts_editing(self, event: events.Key) -> bool:
        """Whether this key, when no cell is open, opens the editor (a digit, by default)."""
        return event.character is not None and event.character in START_KEYS

    def open_editor(self, text: str = "", selected: bool = True) -> None:
        """Open the editor on ``text`` (selected: the first key typed replaces it)."""
        self.editor = (text, len(text), False)
        self._selected = selected and bool(text)
        set_titles(self, subtitle="Enter commit · Esc cancel · ctrl+u clear")
        self.refresh()

    def close_editor(self) -> None:
        self.editor = None
        set_titles(self, subtitle="")
        self.refresh()
        if self.refused_reason:
            self.refused_reason = ""
            self.post_message(self.Refused(self, ""))

    def refuse(self, text: str, message: str, title: str = "Not a number") -> None:
        """Show ``text`` back in the cell's editor, marked refused, with the reason."""
        self.editor = (text, len(text), True)
        self._selected = False
        set_titles(self, subtitle=f"✗ {message}")
        # the border may cut the reason off (a 60-column pane does): the Why pane says it
        # whole until the editor closes, and the bar for a moment
        self.refused_reason = message
        self.post_message(self.Refused(self, message))
        tell(self, message, title=title, severity="warning", timeout=4)
        self.refresh()

    def take_edit(self) -> tuple[float, str] | None:
        """Close the editor and return its number and text; None (and refused) if not a number."""
        text = self.editor[0]
        try:
            value = parse_number(text)
        except ValueError as error:
            self.refuse(text, str(error))
            return None
        self.close_editor()
        return value, text

    def commit(self) -> bool:
        """Post the editor's number up, or refuse it in place; True if it was a number."""
        taken = self.take_edit()
        if taken is not None:
            self.post_message(self.CellEdited(self, *self.cursor, *taken))
        return taken is not None

    def commit_and_move(self, direction: int) -> bool:
        """Commit, then step the cursor to the next (or previous) cell, row after row."""
        if not self.commit():
            return False
        rows, columns = self.shape
        row, col = self.cursor
        index = max(0, min(rows * columns - 1, row * columns + col + direction))
        self.set_cursor(divmod(index, columns))
        return True

    def edit_key(self, event: events.Key) -> bool:
        """Handle a key while the editor is open; True if it was the editor's."""
        text, caret, _ = self.editor
        key = event.key
        if self._selected:  # the old value is selected: typing replaces it, a move keeps it
            self._selected = False
            if key in ("backspace", "delete"):
                self._set_editor("", 0)
                return True
            if event.is_printable and event.character:
                text, caret = "", 0
        if key == "enter":
            self.commit()
        elif key == "escape":
            self.close_editor()
        elif key in ("tab", "shift+tab"):
            self.commit_and_move(1 if key == "tab" else -1)
        elif key == "backspace":
            self._set_editor(text[: max(0, caret - 1)] + text[caret:], max(0, caret - 1))
        elif key == "delete":
            self._set_editor(text[:caret] + text[caret + 1 :], caret)
        elif key in ("left", "right", "home", "end"):
            caret = {
                "left": max(0, caret - 1),
                "right": min(len(text), caret + 1),
                "home": 0,
                "end": len(text),
            }[key]
            self._set_editor(text, caret)
        elif key == "ctrl+u":
            self._set_editor("", 0)
        elif event.is_printable and event.character and event.character.isprintable():
            self._set_editor(text[:caret] + event.character + text[caret:], caret + 1)
        elif key.startswith("ctrl+"):
            return False  # save and quit still work while a cell is open (they commit it first)
        return True

    def _set_editor(self, text: str, caret: int) -> None:
        self.editor = (text, caret, False)
        self._selected = False
        self.refresh()

    def editor_segments(self, room: int) -> list[Segment]:
        if not getattr(self, "_selected", False):
            return super().editor_segments(room)
        text = self.editor[0][: room - 2]
        style = self.get_component_rich_style("matrix--editing")
        return [
            Segment(" ", style),
            Segment(text, style + Style(reverse=True)),
            Segment(" " * (room - 1 - len(text)), style),
        ]

    def on_paste(self, event: events.Paste) -> None:
        if self.editing:
            text, caret, _ = self.editor
            if self._selected:
                text, caret = "", 0
            pasted = visible(event.text.replace("\n", " "))[:256]
            self._set_editor(text[:caret] + pasted + text[caret:], caret + len(pasted))
            event.stop()

    def on_blur(self) -> None:
        if self.editing and not self.editor[2]:
            self.commit()
        self.refresh()

    @staticmethod
    def swallow(event: events.Key) -> None:
        event.stop()
        event.prevent_default()
