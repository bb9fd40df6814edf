"""NamePromptScreen: a student's first name, asked once as a class with ``--names`` opens;
only the teacher's screen shows it. Esc stays anonymous."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from attn_tui.core.classroom.wire import MAX_NAME, clean_name
from attn_tui.tui.text import plain


class NamePromptScreen(ModalScreen[str | None]):
    """Dismisses with the first name (cleaned), or None on Esc."""

    DEFAULT_CSS = """
    NamePromptScreen { align: center middle; }
    NamePromptScreen > Vertical {
        width: 64; max-width: 100%; height: auto; padding: 1 2;
        border: thick $accent; background: $surface;
    }
    NamePromptScreen #problem { color: $text-error; height: auto; }
    """

    BINDINGS = [Binding("escape", "cancel", "Stay anonymous")]

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static("Your first name, for the teacher's screen only (Esc: stay anonymous):")
            yield Input(placeholder="e.g. Ada", max_length=MAX_NAME, id="name")
            yield Static("", id="problem")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        name = clean_name(event.value)
        if name is None:
            self.query_one("#problem", Static).update(
                plain(
                    f"A first name is letters (spaces, - or ' between them), up to {MAX_NAME}; "
                    "Esc stays anonymous"
                )
            )
            return
        self.dismiss(name)

    def action_cancel(self) -> None:
        self.dismiss(None)
