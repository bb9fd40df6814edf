"""HelpScreen: every key, what it does, and where it works (made from ``tui.keys``)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static

from attn_tui.tui.keys import help_text

READING = """Reading the screen
  Heat map: weights from the theme's low colour (0) to its high colour (1); scores and
  inputs one colour below 0 and another above. −∞ marks a masked cell, — a row that can
  see no key. Underlined cells changed since the matrix was last shown; a highlighted
  label marks the rows the current step reads from."""


def help_content() -> Content:
    parts: list[Content] = []
    for where, keys in help_text():
        parts.append(Content.styled(where[0].upper() + where[1:], "bold"))
        width = max(len(shown) for shown, _ in keys)
        parts += [Content(f"  {shown:<{width}}  {does}") for shown, does in keys]
        parts.append(Content(""))
    parts.append(Content(READING))
    return Content("\n").join(parts)


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
            yield Static(help_content(), id="keys")

    def action_close(self) -> None:
        self.dismiss(None)
