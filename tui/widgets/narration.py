"""NarrationBar: what the lesson says at this beat — its number, the teacher's words, the
question and (once shown) its answer — and whether a lesson is being recorded or a class
followed. The lines come from ``core.lesson.narration``; every text is the file's, shown
literally (made visible, never markup)."""

from __future__ import annotations

from textual.content import Content
from textual.widgets import Static

from attn_tui.core.text import visible


class NarrationBar(Static):
    COMPONENT_CLASSES = {"narration--beat", "narration--say", "narration--ask", "narration--answer",
                         "narration--note"}

    DEFAULT_CSS = """
    NarrationBar {
        height: auto;
        max-height: 8;
        padding: 0 1;
        background: $boost;
        display: none;
    }
    NarrationBar.-shown { display: block; }
    NarrationBar > .narration--beat { color: $text-accent; text-style: bold; }
    NarrationBar > .narration--say { color: $text; }
    NarrationBar > .narration--ask { color: $text-warning; text-style: bold; }
    NarrationBar > .narration--answer { color: $text-success; }
    NarrationBar > .narration--note { color: $text-muted; }
    """

    def show(self, lines: list[tuple[str, str]]) -> None:
        """``lines`` as (kind, text): the beat number opens the first line, the rest follow."""
        if lines == getattr(self, "_lines", None):
            return
        self._lines = lines
        self.set_class(bool(lines), "-shown")
        parts: list = []
        for index, (kind, text) in enumerate(lines):
            style = self.get_visual_style(f"narration--{kind}", partial=True)
            separator = "  " if index == 1 and lines[0][0] == "beat" else "\n" if index else ""
            parts += [separator, (visible(text, multiline=True), style)]
        content = Content.assemble(*parts)
        width = self.content_region.width
        height = content.get_height(self.styles, width) if width else None
        # the same number of lines: no need to lay the screen out again (a beat's cost)
        same = height is not None and height == getattr(self, "_height", None) and self.display
        self._height = height
        self.update(content, layout=not same)
