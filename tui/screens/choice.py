"""ChoiceScreen: a question with a few answers (Save / Discard / Cancel and the like)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from attn_tui.tui.text import plain


class ChoiceScreen(ModalScreen[str]):
    """Dismisses with the key of the chosen answer; Esc answers ``cancel``.

    Each answer's first letter is its shortcut (``s`` Save, ``d`` Discard, …).
    """

    DEFAULT_CSS = """
    ChoiceScreen { align: center middle; }
    ChoiceScreen > Vertical {
        width: 64; max-width: 100%; height: auto; max-height: 100%; padding: 1 2;
        border: thick $warning; background: $surface;
    }
    ChoiceScreen.-narrow > Vertical { padding: 0 0; border: none; }
    ChoiceScreen Static { width: 100%; margin-bottom: 1; }
    ChoiceScreen Horizontal { height: auto; align-horizontal: center; }
    ChoiceScreen.-narrow Horizontal { layout: vertical; }
    ChoiceScreen Button { margin: 0 1; min-width: 12; }
    ChoiceScreen.-narrow Button { width: 100%; margin: 0; }
    ChoiceScreen.-narrow #hint { display: none; }
    ChoiceScreen #hint { color: $text-muted; margin: 1 0 0 0; text-align: center; }
    """

    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (50, "-wide")]  # buttons stack in a small window

    BINDINGS = [
        Binding("escape", "choose('cancel')", "Cancel"),
        Binding("up", "app.focus_previous", "Previous", show=False),
        Binding("down", "app.focus_next", "Next", show=False),
        Binding("left", "app.focus_previous", "Previous", show=False),
        Binding("right", "app.focus_next", "Next", show=False),
    ]

    def __init__(self, question: str, answers: list[tuple[str, str]], default: str | None = None) -> None:
        super().__init__()
        self.question = question
        self.answers = answers
        self.default = default or answers[0][0]

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(plain(self.question, multiline=True), id="question")
            with Horizontal():
                for key, label in self.answers:
                    variant = "primary" if key == self.default else "default"
                    yield Button(f"[u]{label[0]}[/u]{label[1:]}", id=f"answer-{key}", variant=variant)
            yield Static("←/→ choose · Enter confirms · a letter picks · Esc cancels", id="hint")

    def on_mount(self) -> None:
        self.query_one(f"#answer-{self.default}", Button).focus()

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
