"""The student's guesses on one debugger screen: a cell of a predicted stage typed in (Tab on to
the next cell that takes one), a row revealed with r, the guesses kept as the scenario's
``expect:``. What a prediction hides and how a guess is judged are core's
(``core.teaching.predictions``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from attn_tui.core.engine.views import stage_window
from attn_tui.core.files.yaml_text import yaml_number
from attn_tui.tui.text import tell

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

    def advance(self, direction: int) -> None:
        """After a guess committed with Tab: on to the next cell of the row that takes a guess,
        its editor open, so that a row is typed in one go."""
        screen = self.screen
        stage_view = screen.stage_view
        row, col = stage_view.cursor
        cols = range(screen.column_count)
        window = stage_window(screen.session, screen.stage, screen.head, range(row, row + 1), cols)
        step = 1 if direction > 0 else -1
        following = [j for j in range(col + step, len(cols) if step > 0 else -1, step)
                     if window.hidden is not None and window.hidden[0, j]]
        if not following:
            return
        if screen.described.columns == "keys":
            screen.column = following[0]
        else:
            stage_view.set_cursor((row, following[0]))
        guesses = window.guesses
        guess = float("nan") if guesses is None else float(guesses[0, following[0]])
        stage_view.open_editor("" if guess != guess else yaml_number(guess))

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
