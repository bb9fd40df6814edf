"""The student's guesses on one debugger screen: a cell of a predicted stage typed in (Tab on to
the next cell that takes one; a digit typed in an input matrix while a row waits for its guess
goes to the guess), a row revealed with r, the guesses kept as the scenario's
``expect:``. What a prediction hides and how a guess is judged are core's
(``core.teaching.predictions``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import events

from attn_tui.tui.text import tell
from attn_tui.tui.widgets.editable_matrix import START_KEYS

if TYPE_CHECKING:
    from attn_tui.tui.screens.debugger import DebuggerScreen


class Guesses:
    """Predict, then reveal, for one debugger screen."""

    def __init__(self, screen: DebuggerScreen) -> None:
        self.screen = screen

    @property
    def predicting(self) -> bool:
        """Whether the current stage is one the scenario asks the student to predict."""
        screen = self.screen
        predictions = screen.session.predictions
        return (predictions is not None and predictions.predicts(screen.stage)
                and not screen.lessons.answer_first())

    @property
    def comparing(self) -> bool:
        """Whether the scenario holds the student's own values (expect:) for the current stage
        (and the stage shows them: a stage to predict shows the guesses, and y would do nothing)."""
        predictions = self.screen.session.predictions
        if predictions is not None and predictions.predicts(self.screen.stage):
            return False
        comparison = self.screen.session.comparison
        return comparison is not None and comparison.stage(self.screen.described.key, self.compared_head) is not None

    @property
    def compared_head(self) -> int | None:
        """The head a student's values of the current stage belong to (None: the only one)."""
        screen = self.screen
        return screen.head if screen.described.per_head and screen.session.scenario.heads > 1 else None

    def guess(self, row: int, col: int, value: float) -> None:
        screen = self.screen
        if not self.predicting:  # (the step moved on while the guess was being typed)
            return
        screen.session.predictions.guess(screen.stage, screen.head, row, col, value, screen.session.attention)
        screen.panes.show_stage()
        screen.panes.show_why()
        screen.lessons.guessed()

    def follow_editor(self, moved: object = None) -> None:
        """The guess editor moved along the row (Tab, or a digit on a cell that takes none): the
        chosen key follows it, where the stage's columns are keys."""
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
        if not (self.revealable() and event.character is not None and event.character in START_KEYS):
            return False
        self.screen.set_focus(stage_view)  # (now: focus() would wait for the next idle moment)
        return stage_view.open_guess(event.character)

    def revealable(self) -> bool:
        """Whether r has a row to reveal here (a predicted stage, the row still hidden)."""
        screen = self.screen
        return self.predicting and not screen.session.predictions.is_revealed(screen.stage, screen.head, screen.row)

    def reveal(self) -> None:
        screen = self.screen
        if not self.revealable():
            screen.lessons.reveal_answer()  # (r reveals a beat's answer where there is no row to)
            screen.update_keys()
            return
        screen.session.predictions.reveal(screen.stage, screen.head, screen.row, screen.session.attention)
        screen.panes.show_stage()
        screen.panes.show_marks()
        screen.panes.show_overview()
        screen.update_keys()
        screen.lessons.show()
        screen.lessons.guessed()

    def keep(self) -> None:
        """The guesses made so far into the scenario's expect: (saved with ctrl+s)."""
        screen = self.screen
        if screen.changes.make(screen.session.keep_predictions) is None:
            tell(screen, "No predictions to keep yet", timeout=3)
            return
        tolerance = screen.session.scenario.expect_tolerance
        tell(screen, f"Predictions kept in expect: (checked within {tolerance:g}; values already "
                     "there stay where you made no guess) — ctrl+s writes them", timeout=6)
