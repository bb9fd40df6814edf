"""ExplanationView: the core's explanation of the current step and row, coloured by role.

It draws its own lines (wrapped once per change of text or width), so a new explanation on
every key repaints this pane alone: no layout of the rest of the screen is redone.
"""

from __future__ import annotations

from rich.cells import cell_len
from textual.content import Content
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip

from attn_tui.core.engine.explanation import Explanation, Line
from attn_tui.core.text import visible
from attn_tui.tui.scrolling import set_virtual_size

ROLES = ("text", "token", "number", "result", "masked", "note", "bar")


def wrap_offsets(text: str, width: int) -> list[int]:
    """Where to cut ``text`` into lines of at most ``width`` cells: after the last space that
    fits (the greedy wrap every editor does), or mid-word when a word is longer than a line; but
    where that space is inside a term of a sum or a list ("(1.006 ×⏎0.399)" reads badly), or
    after an operator, between two terms instead (before " + " or " − ", after ", ") where one
    falls in the line's second half. One pass over the text, far less than wrapping styled text."""
    offsets = []
    start = depth = 0  # depth: the brackets open where the line starts
    while len(text) - start > width:
        end = start + width + 1
        cut = text.rfind(" ", start, end)
        inside = depth + _depth(text, start, cut) > 0 or text[cut - 1 : cut] in ("+", "−", "×")
        terms = max(
            text.rfind(" + ", start, end + 2),
            text.rfind(" − ", start, end + 2),
            text.rfind(", ", start, end) + 1,
        )  # (the space they are cut at fits the line)
        if inside and terms > start + width // 2:
            cut = terms
        cut = start + width if cut <= start else cut + 1
        offsets.append(cut)
        depth += _depth(text, start, cut)
        start = cut
    return offsets


def _depth(text: str, start: int, end: int) -> int:
    """The brackets opened and not closed in text[start:end]."""
    piece = text[start:end]
    return piece.count("(") + piece.count("[") - piece.count(")") - piece.count("]")


class ExplanationView(ScrollView, can_focus=False):
    """A scrollable pane holding one Explanation; the cursor's line has a background."""

    COMPONENT_CLASSES = {f"why--{role}" for role in ROLES} | {"why--title", "why--selected"}

    DEFAULT_CSS = """
    ExplanationView {
        border: round $panel-lighten-2;
        border-title-color: $text-muted;
        padding: 0 1;
        scrollbar-size: 1 1;
        overflow-y: scroll;  /* always there: a scrollbar coming and going would redo the layout */
        overflow-x: hidden;
    }
    ExplanationView > .why--title { text-style: bold underline; }
    ExplanationView > .why--token { color: $text-accent; text-style: bold; }
    ExplanationView > .why--result { color: $text-warning; text-style: bold; }
    ExplanationView > .why--masked { color: $text-error; text-style: bold; }
    ExplanationView > .why--note { color: $text-muted; text-style: italic; }
    ExplanationView > .why--bar { color: $text-success; }
    ExplanationView > .why--selected { background: $boost; }
    """

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.border_title = "Why"
        self.explanation: Explanation | None = None
        self.extra: list[Line] = []
        self._title = ""
        self._wrapped: list[Content] | None = None
        self._selected_at: int | None = None  # the first wrapped line of the cursor's line

    def show(
        self, explanation: Explanation | None, extra: list[Line] = (), title: str = ""
    ) -> None:
        """Show an explanation (or, with None, only ``extra``: e.g. before a predicted row is
        revealed) followed by ``extra`` lines (a student's values against ours)."""
        self.explanation = explanation
        self.extra = list(extra)
        self._title = title
        self._lay_out()

    def on_resize(self) -> None:
        self._wrapped = None
        self._lay_out()
        self.refresh()

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._wrapped = None
        self._base = None

    def _lines(self) -> list[tuple[Content, bool, int]]:
        """Each line, whether it is the cursor's, and where its closing note (the words set apart
        after a formula: "how relevant is "the" to "sat"?") starts (0: none)."""
        style = {role: self.get_visual_style(f"why--{role}") for role in ROLES}
        explanation = self.explanation
        lines = [
            (
                Content.styled(
                    visible(explanation.title if explanation else self._title),
                    self.get_visual_style("why--title"),
                ),
                False,
                0,
            )
        ]
        for line in [*(explanation.lines if explanation else ()), *self.extra]:
            texts = [visible(span.text) for span in line.spans]
            content = Content.assemble(
                *(
                    (text, style.get(span.role, style["text"]))
                    for text, span in zip(texts, line.spans)
                )
            )
            # (a note set apart by two spaces or more: a gloss, not the rest of a sentence)
            note = (
                len(line.spans) - 1
                if line.spans and line.spans[-1].role == "note" and texts[-1].startswith("  ")
                else 0
            )
            lines.append((content, line.selected, sum(map(len, texts[:note])) if note else 0))
        return lines

    def _lay_out(self) -> None:
        """Wrap the lines to the width there is, and make that the scrollable size."""
        width = self.scrollable_content_region.width
        if (
            width <= 0
        ):  # not laid out yet: wrapped to one column, the first frame showed no word whole
            self._wrapped = None  # (render_line wraps them to the width it draws)
            return
        selected_style = self.get_visual_style("why--selected", partial=True)  # the background only
        wrapped: list[Content] = []
        self._selected_at = None
        for content, selected, note in self._lines():
            if selected:
                if self._selected_at is None:
                    self._selected_at = len(wrapped)
                content = content.stylize(selected_style)
            plain = content.plain
            if not plain:
                wrapped.append(Content(""))
            elif cell_len(plain) == len(plain):  # one cell a character: the quick greedy wrap
                if len(plain) > width and note:
                    # too long: the note goes on a line of its own (indented by its own spaces),
                    # not cut mid-phrase with the formula's end
                    formula, words = content.divide([note])
                    wrapped += formula.divide(wrap_offsets(formula.plain, width))
                    wrapped += words.divide(wrap_offsets(words.plain, width))
                else:
                    wrapped += content.divide(wrap_offsets(plain, width))
            else:  # wide characters (日本語): Textual's own wrap counts cells
                wrapped += content.wrap(width)
        before, self._wrapped = self._wrapped, wrapped
        set_virtual_size(self, Size(width, len(wrapped)))
        if before is None or len(before) != len(wrapped):
            self.refresh()
        else:  # repaint only the lines that read or look different (most stay as they were)
            for y, (old, new) in enumerate(zip(before, wrapped)):
                if old.plain != new.plain or old.spans != new.spans:
                    self.refresh_line(y)
        height = self.scrollable_content_region.height
        if (
            self._selected_at is not None
            and height
            and not (self.scroll_y <= self._selected_at < self.scroll_y + height)
        ):
            # keep the cursor's line in view (long sums unfolded run to a thousand lines)
            self.scroll_to(y=max(0, self._selected_at - 3), animate=False, immediate=True)

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        if self._wrapped is None:
            self._lay_out()
            if self._wrapped is None:  # (no width yet)
                return Strip.blank(width)
        if getattr(self, "_base", None) is None:  # rich_style walks the DOM: once per style change
            self._base = (self.rich_style, self.get_visual_style())
        base, style = self._base
        index = int(self.scroll_y) + y
        if index >= len(self._wrapped):
            return Strip.blank(width, base)
        segments = self._wrapped[index].render_segments(style)
        return Strip(segments).extend_cell_length(width, base).crop(0, width)

    @property
    def plain(self) -> str:
        lines = [self.explanation.plain()] if self.explanation else []
        return "\n".join(lines + [line.plain() for line in self.extra])
