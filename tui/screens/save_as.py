"""SaveAsScreen: ask for the path to save the scenario to."""

from __future__ import annotations

import os

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label, Static

from attn_tui.tui.text import plain


class SaveAsScreen(ModalScreen[str | None]):
    """Dismisses with the path typed (relative to the current folder), or None on Esc."""

    DEFAULT_CSS = """
    SaveAsScreen { align: center middle; }
    SaveAsScreen > Vertical {
        width: 72; max-width: 100%; height: auto; padding: 1 2;
        border: thick $accent; background: $surface;
    }
    SaveAsScreen #problem { color: $error; height: auto; }
    """

    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, suggestion: str) -> None:
        super().__init__()
        self.suggestion = suggestion

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label("Save the scenario as (Enter saves, Esc cancels):")
            yield Input(self.suggestion, id="path", select_on_focus=False)
            yield Static("", id="problem")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        path = os.path.expanduser(event.value.strip())
        problem = ""
        if not path:
            problem = "Type a file name, such as my_scenario.yaml"
        elif os.path.isdir(path):
            problem = f"{path} is a folder; add a file name"
        elif not os.path.isdir(os.path.dirname(os.path.abspath(path))):
            problem = f"the folder {os.path.dirname(path)} does not exist"
        if problem:
            self.query_one("#problem", Static).update(plain(problem))
            return
        self.dismiss(path)

    def action_cancel(self) -> None:
        self.dismiss(None)
