"""ClassPresentScreen: projector mode with the class's answers under the focus row (D on the
teacher's screen at a predict beat): the counts, the mistakes and each column's spread, for
the class to see. No names are shown here, and the correct value is marked only once the
answer is revealed (R, here or on the teacher's screen)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import Footer, Static

from attn_tui.tui.screens.present import PresentScreen
from attn_tui.tui.widgets.class_answers import ClassAnswers
from attn_tui.tui.widgets.explanation import ExplanationView


class ClassPresentScreen(PresentScreen):
    DEFAULT_CSS = """
    ClassPresentScreen #class-projected { margin-top: 1; max-height: 14; }
    """
    BINDINGS = [
        Binding("R", "reveal_class", "Reveal to the class"),
        Binding("p,escape,D", "leave", "Leave projector mode"),
    ]

    class_answers: ClassAnswers | None = None

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(id="present-title")
            yield Horizontal(id="cells")
            yield ClassAnswers(id="class-projected")
            yield ExplanationView(id="present-why")
        yield Footer()

    def on_mount(self) -> None:
        self.class_answers = self.query_one(ClassAnswers)
        super().on_mount()

    def show(self) -> None:
        super().show()
        self.show_class()

    def show_class(self) -> None:
        lead = self.debugger.lessons.lead
        if self.class_answers is not None and lead is not None:
            self.class_answers.show(lead.lines(projector=True))

    def action_reveal_class(self) -> None:
        self.debugger.action_reveal_class()
        self.show()
