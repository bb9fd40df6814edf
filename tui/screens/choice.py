"""ChoiceScreen: a question with a few answers (Save / Discard / Cancel and the like)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from attn_tui.tui.text import plain

HINT = "←/→ choose · Enter confirms · a letter picks · Esc {escape}"


class ChoiceScreen(ModalScreen[str]):
    """Dismisses with the key of the chosen answer; Esc answers ``cancel``.

    Each answer's first letter is its shortcut (``s`` Save, ``d`` Discard, …). A question that
    comes unasked (edits to restore, as the app opens) ``settle``s first: for that long no key
    answers it, so that keys typed for the debugger (d, r) do not discard or restore unseen.
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
        Binding("up", "move(-1)", "Previous", show=False),
        Binding("down", "move(1)", "Next", show=False),
        Binding("left", "move(-1)", "Previous", show=False),
        Binding("right", "move(1)", "Next", show=False),
    ]

    def __init__(
        self,
        question: str,
        answers: list[tuple[str, str]],
        default: str | None = None,
        settle: float = 0.0,
        escape: str = "cancels",
    ) -> None:
        super().__init__()
        self.question = question
        self.answers = answers
        self.default = default or answers[0][0]
        self.settle = settle
        self.hint = HINT.format(escape=escape)  # (what Esc does: the asker's "cancel" may do more)
        self.armed = settle <= 0

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(plain(self.question, multiline=True), id="question")
            with Horizontal():
                for key, label in self.answers:
                    variant = "primary" if key == self.default else "default"
                    yield Button(
                        f"[u]{label[0]}[/u]{label[1:]}", id=f"answer-{key}", variant=variant
                    )
            yield Static(
                self.hint
                if self.armed
                else "(a moment: keys typed as this came up are not answers)",
                id="hint",
            )

    def on_mount(self) -> None:
        if self.armed:
            self.arm()
        else:  # nothing focused meanwhile: Enter presses no button
            self.set_timer(self.settle, self.arm)

    def arm(self) -> None:
        self.armed = True
        self.query_one("#hint", Static).update(self.hint)
        self.query_one(f"#answer-{self.default}", Button).focus()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return self.armed or action not in ("move", "choose")

    def action_move(self, direction: int) -> None:
        if direction > 0:
            self.focus_next()
        else:
            self.focus_previous()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id.removeprefix("answer-"))

    def on_key(self, event) -> None:
        if not self.armed:
            event.stop()
            self.app.bell()  # typed before the question could be read: not an answer
            return
        for key, label in self.answers:
            if event.character and event.character.lower() == label[0].lower():
                event.stop()
                self.dismiss(key)
                return

    def action_choose(self, key: str) -> None:
        self.dismiss(key)
