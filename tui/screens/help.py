"""HelpScreen: every key, what it does, and where it works."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

KEYS = """\
[b]Stepping[/b] (the stage view, which has the focus at start)
  ← →          previous / next stage        Home End   first / last stage
  1 … 5        jump to a stage              ↑ ↓        choose the query row
  [ ]          choose the key column        click      choose a cell

[b]Editing[/b] (Tab / shift+Tab move between Q, K, V and the stage view)
  arrows       move the cell cursor         Enter e    edit the cell in place
  a digit      start editing with it        Enter      commit
  Esc          cancel the edit              Tab        commit and move right
  + -          nudge the cell by 0.1        (text that is not a finite number is refused)

[b]Options and history[/b]
  c            toggle the causal mask       s          cycle the scaling (÷√d_k, none, …)
  u  ctrl+z    undo                         U  ctrl+y  redo

[b]Files[/b]
  ctrl+s       save (comments and layout of the file are kept; a file changed on disk
               is not overwritten without asking)
  ctrl+p       command palette: step to…, toggle, save as…, open a built-in scenario
  q  ctrl+q    quit (asks first if there are unsaved edits)
  ?            this help (Esc closes it)

[b]Reading the screen[/b]
  Colours are a heat map: weights from dark (0) to yellow (1); scores blue below 0 and
  red above. −∞ marks a masked cell. Underlined cells changed in the last edit; a
  highlighted label marks the rows the current step reads from.
"""


class HelpScreen(ModalScreen[None]):
    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen > VerticalScroll {
        width: 96; max-width: 100%; height: auto; max-height: 100%;
        border: thick $accent; background: $surface; padding: 0 1;
    }
    """

    BINDINGS = [Binding("escape,q,question_mark", "close", "Close")]

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Static(KEYS, id="keys")

    def action_close(self) -> None:
        self.dismiss(None)
