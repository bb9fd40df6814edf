"""HelpScreen: every key, what it does, and where it works (made from ``tui.keys``)."""

from __future__ import annotations

import textwrap

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static

from attn_tui.tui.key_lists import help_text

READING = (
    "Heat map: weights from the theme's low colour (0) to its high colour (1); scores and inputs "
    "one colour below 0 and another above. −∞ marks a masked cell, — a row that can see no key. "
    "Underlined cells changed since the matrix was last shown; a highlighted label marks the rows "
    "the current step reads from."
)


def help_content(width: int = 84) -> Content:
    """Every key, a line each; a description too long for ``width`` goes on under itself, not
    back at the left edge (where it read as a key of its own)."""
    parts: list[Content] = []
    for where, keys in help_text():
        parts.append(Content.styled(where[0].upper() + where[1:], "bold"))
        shown_width = max(len(shown) for shown, _ in keys)
        indent = " " * (shown_width + 4)
        for shown, does in keys:
            lines = textwrap.wrap(does, max(8, width - len(indent))) or [
                ""
            ]  # (20 split words at 40 columns)
            parts.append(Content(f"  {shown:<{shown_width}}  {lines[0]}"))
            parts += [Content(indent + line) for line in lines[1:]]
        parts.append(Content(""))
    parts.append(Content.styled("Reading the screen", "bold"))
    parts += [
        Content("  " + line) for line in textwrap.wrap(READING, max(8, width - 2))
    ]  # (as the keys)
    return Content("\n").join(parts)


class HelpText(Static):
    """The keys, wrapped by us to the width the text has (so that a long description hangs
    under itself): again whenever that width changes."""

    DEFAULT_CSS = "HelpText { text-wrap: nowrap; }"

    def on_resize(self) -> None:
        width = self.content_region.width
        if width and getattr(self, "_width", None) != width:
            self._width = width
            self.update(help_content(width))


class HelpScreen(ModalScreen[None]):
    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen > VerticalScroll {
        width: 88; max-width: 100%; height: auto; max-height: 100%;
        border: thick $accent; background: $surface; padding: 0 1;
    }
    """

    BINDINGS = [Binding("escape,q,question_mark", "close", "Close")]

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield HelpText(help_content(), id="keys")

    def action_close(self) -> None:
        self.dismiss(None)
