"""The student's guesses on one debugger screen: a cell of a predicted stage typed in (Tab on to
the next cell that takes one; a digit typed in an input matrix while a row waits for its guess
goes to the guess), a row revealed with r. Whether the position is at a stage to predict, a row
still hidden, is the screen's (``tui.screens.position``); what is shown after a guess or a
reveal is the screen's to decide (``after_guess``, ``after_reveal``). What a prediction hides and
how a guess is judged are core's (``core.teaching.predictions``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import events

from attn_tui.tui.widgets.editable_matrix import START_KEYS

if TYPE_CHECKING:
    from attn_tui.tui.screens.debugger import DebuggerScreen


class Guesses:
    """Predict, then reveal, for one debugger screen."""

    def __init__(self, screen: DebuggerScreen) -> None:
        self.screen = screen

    def guess(self, row: int, col: int, value: float) -> None:
        screen = self.screen
        if not screen.predicting:  # (the step moved on while the guess was being typed)
            return
        screen.session.predictions.guess(
            screen.stage, screen.head, row, col, value, screen.session.attention
        )
        screen.after_guess()

    def follow_editor(self, moved: object = None) -> None:
        """The guess editor moved along the row (Tab, or a digit on a cell that takes none): the
        position follows it (the chosen key, where the stage's columns are keys)."""
        screen = self.screen
        cursor = screen.stage_view.cursor
        if cursor is None:
            return
        if screen.keyed:
            screen.move(column=cursor[1] * screen.span)
        else:
            screen.move(stage_column=cursor[1])

    def take_keys_of(self, matrices) -> None:
        """Have these input matrices ask :meth:`take_key` first, of every key typed in them."""
        for matrix in matrices:
            matrix.take_key = self.take_key

    def take_key(self, event: events.Key) -> bool:
        """A key typed in an input matrix while a guess is pending: a digit opens the guess (the
        stage view focused), and a key that arrived after one did goes on into the guess. True if
        taken: nothing typed for a guess edits an input."""
        stage_view = self.screen.stage_view
        if stage_view.editing:  # (keys sent at once, queued for this matrix before the focus moved)
            stage_view.edit_key(event)
            return True
        if not (
            self.screen.revealable()
            and event.character is not None
            and event.character in START_KEYS
        ):
            return False
        self.screen.set_focus(stage_view)  # (now: focus() would wait for the next idle moment)
        return stage_view.open_guess(event.character)

    def reveal(self) -> None:
        """r on a row still hidden (``screen.revealable()``): its values shown."""
        screen = self.screen
        screen.session.predictions.reveal(
            screen.stage, screen.head, screen.row, screen.session.attention
        )
        screen.after_reveal()
