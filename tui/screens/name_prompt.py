"""NamePromptScreen: a student's first name, asked once as a class with ``--names`` opens;
only the teacher's screen shows it (and, with ``--record-names``, the teacher's log of answers
keeps it). The box says what the name is for, and that Esc stays anonymous: a student whose
first keys were meant for the lesson must see at once where they went."""

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
    NamePromptScreen #title { text-style: bold; }
    NamePromptScreen #why { margin-bottom: 1; }
    NamePromptScreen #problem { color: $text-error; height: auto; }
    """

    BINDINGS = [Binding("escape", "cancel", "Stay anonymous")]

    def __init__(self, recorded: bool = False) -> None:
        """``recorded``: the teacher's log of answers keeps the name (--record-names)."""
        super().__init__()
        self.recorded = recorded

    def compose(self) -> ComposeResult:
        kept = (
            ", and in the teacher's record of the class's answers (to credit who took part)"
            if self.recorded
            else "; it is not recorded"
        )
        with Vertical():
            yield Static("Your first name?", id="title")
            yield Static(
                "The teacher asked for first names: yours appears beside your answers on the "
                f"teacher's own screen, never on the projector{kept}.",
                id="why",
            )
            yield Input(placeholder="e.g. Ada", max_length=MAX_NAME, id="name")
            yield Static("Enter: give it · Esc: stay anonymous (your answers still count)")
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
