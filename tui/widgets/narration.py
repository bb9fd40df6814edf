"""NarrationBar: what the lesson says at this beat — its number, the teacher's words, the
question and (once shown) its answer — and whether a lesson is being recorded or a class
followed. The lines come from ``core.editing.lesson_player.narration``; every text is the file's,
shown literally (made visible, never markup)."""

from __future__ import annotations

from textual.content import Content
from textual.widgets import Static

from attn_tui.core.text import visible


class NarrationBar(Static):
    LINES = 8  # at most; a say: too long for them is cut short before its question is
    COMPONENT_CLASSES = {
        "narration--beat",
        "narration--say",
        "narration--ask",
        "narration--answer",
        "narration--note",
    }

    DEFAULT_CSS = """
    NarrationBar {
        height: auto;
        max-height: 8;  /* LINES */
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

    def on_resize(self) -> None:  # how much of a long say: fits depends on the width
        lines, self._lines = getattr(self, "_lines", None), None
        if lines is not None:
            self.show(lines)

    def show(self, lines: list[tuple[str, str]]) -> None:
        """``lines`` as (kind, text): the beat number opens the first line, the rest follow."""
        if lines == getattr(self, "_lines", None):
            return
        self._lines = lines
        self.set_class(bool(lines), "-shown")
        head: list = []  # the beat's number and what it says…
        tail: list = []  # …and its question, answer and notes, which a long say: must not hide
        for index, (kind, text) in enumerate(lines):
            style = self.get_visual_style(f"narration--{kind}", partial=True)
            separator = "  " if index == 1 and lines[0][0] == "beat" else "\n" if index else ""
            (head if kind in ("beat", "say") and not tail else tail).extend(
                [separator, (visible(text, multiline=True), style)]
            )
        content = Content.assemble(*head, *tail)
        width = self.content_region.width
        height = content.get_height(self.styles, width) if width else None
        if height is not None and height > self.LINES and tail:
            below = Content.assemble(*tail[1:]).get_height(self.styles, width)
            said = Content.assemble(*head).wrap(width)
            room = max(1, self.LINES - below)
            if len(said) > room:
                last = said[room - 1].truncate(width - 2) + " …"
                content = Content("\n").join([*said[: room - 1], last]) + Content.assemble(*tail)
                height = content.get_height(self.styles, width)
        # the same number of lines: no need to lay the screen out again (a beat's cost)
        same = height is not None and height == getattr(self, "_height", None) and self.display
        self._height = height
        self.update(content, layout=not same)
