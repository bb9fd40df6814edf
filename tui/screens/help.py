"""HelpScreen: every key, what it does, and where it works."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

KEYS = """\
[b]Stepping[/b] — the stage view, which has the focus at start
  ← →           previous / next stage
  Home End      first / last stage;  1 … 5  jump to a stage
  ↑ ↓           choose the query row;  PgUp PgDn  a page of rows
  [ ]           choose the key column (or click a cell)
  g             go to a row and column (a token or a number)
  x             expand / fold long sums in the explanation

[b]Editing[/b] — Tab / shift+Tab move between Q, K, V and the stage view
  arrows        move the cell cursor;  Home End  first / last column
  Enter  e      edit the cell in place (type a digit to start afresh)
  Enter         commit;  Tab  commit and move right;  Esc  cancel
  ctrl+u        clear the cell being edited
  - (a number)  press Enter first, then type -1: a bare - nudges
  + -           nudge the cell by 0.1
  Esc           (not editing) back to the stage view
  Text that is not a finite number is refused; the old value stays.

[b]Options and history[/b]
  c             toggle the causal mask
  s             cycle the scaling: ÷√d_k, none, the file's own divisor
  u  ctrl+z     undo;   U  ctrl+y  redo

[b]Files[/b]
  ctrl+s        save: only changed numbers are rewritten, comments kept;
                a file changed on disk is not overwritten without asking
  ctrl+p        command palette: step to…, save as…, open a built-in
  ctrl+t        save a screenshot (SVG) beside the scenario

[b]Predict, then reveal[/b] — at a stage the scenario lists under predict:
  a digit       type your guess into the cell; Tab moves to the next key
                (there, step with ← → rather than 1 … 5)
  r             reveal the row: each guess ✓ within 0.05, or ✗

[b]Check my implementation[/b] — a scenario with expect:
  ✓ ✗           the student's value for the cell matches, or differs
  y             show their values instead of attention's, and back
  ctrl+p        "Keep predictions as expect:" then ctrl+s saves them
  q  ctrl+q     quit (asks first if there are unsaved edits)
  ?             this help (Esc closes it)

[b]Reading the screen[/b]
  Heat map: weights dark (0) to yellow (1); scores blue below 0, red above.
  −∞ marks a masked cell. Underlined cells changed in the last edit; a
  highlighted label marks the rows the current step reads from.
"""


class HelpScreen(ModalScreen[None]):
    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen > VerticalScroll {
        width: 80; max-width: 100%; height: auto; max-height: 100%;
        border: thick $accent; background: $surface; padding: 0 1;
    }
    """

    BINDINGS = [Binding("escape,q,question_mark", "close", "Close")]

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Static(KEYS, id="keys")

    def action_close(self) -> None:
        self.dismiss(None)
