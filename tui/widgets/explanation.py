"""ExplanationView: the core's explanation of the current step and row, coloured by role."""

from __future__ import annotations

from rich.text import Text
from textual.containers import VerticalScroll
from textual.widgets import Static

from attn_tui.core.explanation import Explanation, Line

ROLE_STYLES = {
    "text": "",
    "token": "bold cyan",
    "number": "",
    "result": "bold yellow",
    "masked": "bold magenta",
    "note": "italic grey62",
    "bar": "green",
}
SELECTED = "on #2a3350"


class ExplanationView(VerticalScroll, can_focus=False):
    """A scrollable pane holding one Explanation; the cursor's line has a background."""

    DEFAULT_CSS = """
    ExplanationView {
        border: round $panel-lighten-2;
        border-title-color: $text-muted;
        padding: 0 1;
        scrollbar-size: 1 1;
    }
    ExplanationView > Static { width: 100%; }
    """

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.border_title = "Why"
        self.explanation: Explanation | None = None
        self.extra: list[Line] = []

    def compose(self):
        yield Static(id="explanation-text")

    def show(self, explanation: Explanation | None, extra: list[Line] = (), title: str = "") -> None:
        """Show an explanation (or, with None, only ``extra``: e.g. before a predicted row is
        revealed) followed by ``extra`` lines (a student's values against ours)."""
        self.explanation = explanation
        self.extra = list(extra)
        text = Text()
        text.append((explanation.title if explanation else title) + "\n", "bold underline")
        selected_at = None
        for number, line in enumerate([*(explanation.lines if explanation else ()), *extra], 1):
            if line.selected and selected_at is None:
                selected_at = number
            start = len(text)
            for span in line.spans:
                text.append(span.text, ROLE_STYLES.get(span.role, ""))
            if line.selected:
                text.stylize(SELECTED, start, len(text))
            text.append("\n")
        self.query_one("#explanation-text", Static).update(text)
        if selected_at is not None and selected_at >= self.size.height - 1:
            # keep the cursor's line in view (long sums unfolded run to a thousand lines)
            self.call_after_refresh(self.scroll_to, y=max(0, selected_at - 3), animate=False)

    @property
    def plain(self) -> str:
        lines = [self.explanation.plain()] if self.explanation else []
        return "\n".join(lines + [line.plain() for line in self.extra])
