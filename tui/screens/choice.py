"""ChoiceScreen: a question with a few answers (Save / Discard / Cancel and the like)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Static


class ChoiceScreen(ModalScreen[str]):
    """Dismisses with the key of the chosen answer; Esc answers ``cancel``.

    Each answer's first letter is its shortcut (``s`` Save, ``d`` Discard, …).
    """

    DEFAULT_CSS = """
    ChoiceScreen { align: center middle; }
    ChoiceScreen > Vertical {
        width: 64; height: auto; padding: 1 2;
        border: thick $warning; background: $surface;
    }
    ChoiceScreen Static { width: 100%; margin-bottom: 1; }
    ChoiceScreen Horizontal { height: auto; align-horizontal: center; }
    ChoiceScreen Button { margin: 0 1; min-width: 12; }
    """

    BINDINGS = [Binding("escape", "choose('cancel')", "Cancel")]

    def __init__(self, question: str, answers: list[tuple[str, str]]) -> None:
        super().__init__()
        self.question = question
        self.answers = answers

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(self.question, id="question", markup=False)
            with Horizontal():
                for index, (key, label) in enumerate(self.answers):
                    variant = "primary" if index == 0 else "default"
                    yield Button(label, id=f"answer-{key}", variant=variant)

    def on_mount(self) -> None:
        self.query_one(Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id.removeprefix("answer-"))

    def on_key(self, event) -> None:
        for key, label in self.answers:
            if event.character and event.character.lower() == label[0].lower():
                event.stop()
                self.dismiss(key)
                return

    def action_choose(self, key: str) -> None:
        self.dismiss(key)
