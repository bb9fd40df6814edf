"""Predict, then reveal: a student's guesses for the cells of a stage, row by row.

A guess is close when it is within 0.05 of the value attention gives. Guesses are kept apart
from the scenario until the student saves them, as ``expect:``.
"""

from __future__ import annotations

import numpy as np

from attn_tui.core.explanation import Line, Span
from attn_tui.core.numbers import fixed
from attn_tui.core.options import Expected

CLOSE = 0.05
UNKNOWN, CLOSE_ENOUGH, OFF = 0, 1, 2  # verdicts for a cell


class Predictions:
    """The guesses and revealed rows of each stage to predict."""

    def __init__(self, shapes: dict[str, tuple[int, int]]) -> None:
        self.guesses = {stage: np.full(shape, np.nan) for stage, shape in shapes.items()}
        self.revealed = {stage: np.zeros(shape[0], bool) for stage, shape in shapes.items()}

    @property
    def stages(self) -> tuple[str, ...]:
        return tuple(self.guesses)

    def guess(self, stage: str, row: int, col: int, value: float) -> None:
        self.guesses[stage][row, col] = value

    def reveal(self, stage: str, row: int) -> None:
        self.revealed[stage][row] = True

    def verdict(self, stage: str, actual: np.ndarray) -> np.ndarray:
        """Per cell: CLOSE_ENOUGH or OFF for a guessed cell of a revealed row, else UNKNOWN."""
        guesses = self.guesses[stage]
        judged = ~np.isnan(guesses) & self.revealed[stage][:, None]
        close = np.abs(guesses - actual) <= CLOSE
        return np.where(judged, np.where(close, CLOSE_ENOUGH, OFF), UNKNOWN).astype(np.int8)

    def score(self, actuals: dict[str, np.ndarray]) -> tuple[int, int]:
        """(close, judged): guessed cells of revealed rows, over every stage."""
        verdicts = [self.verdict(stage, actuals[stage]) for stage in self.stages]
        close = sum(int((v == CLOSE_ENOUGH).sum()) for v in verdicts)
        judged = sum(int((v != UNKNOWN).sum()) for v in verdicts)
        return close, judged

    def as_expect(self) -> dict[str, Expected]:
        """The guesses as a scenario's ``expect:`` (cells not guessed are left out)."""
        return {stage: Expected(np.nan_to_num(guesses, nan=0.0), ~np.isnan(guesses))
                for stage, guesses in self.guesses.items() if not np.isnan(guesses).all()}


def prediction_lines(predictions: Predictions, stage: str, row: int, actual: np.ndarray,
                     tokens: tuple[str, ...], precision: int, actuals: dict[str, np.ndarray]) -> list[Line]:
    """The explanation pane's lines for a stage to predict: what to do while the row is hidden,
    each guess against the value once revealed, and the score so far."""
    columns = tokens if actual.shape[1] == len(tokens) else tuple(f"d{j + 1}" for j in range(actual.shape[1]))
    guesses = predictions.guesses[stage][row]
    close, judged = predictions.score(actuals)
    revealed_any = any(predictions.revealed[name].any() for name in predictions.stages)
    score = (f"Score so far: {close} of {judged} guesses close (within {CLOSE:g})" if judged
             else "No guess judged yet" if revealed_any else "No row revealed yet")
    if not predictions.revealed[stage][row]:
        typed = sum(1 for g in guesses if g == g)
        return [Line((Span(f"Predict the {stage} of {tokens[row]!r} before you see them: type a "
                           "number in each cell (Tab moves on), then press r to reveal the row.", "token"),)),
                Line((Span(f"{typed} of {len(guesses)} cells guessed. {score}.", "note"),))]
    lines = [Line((Span(f"Your guesses for {tokens[row]!r}:" if any(g == g for g in guesses)
                        else f"{tokens[row]!r} was revealed without a guess.", "token"),))]
    for j, guess in enumerate(guesses):
        if guess != guess:
            continue
        off = abs(guess - actual[row, j])
        mark = "✓ close" if off <= CLOSE else f"✗ off by {fixed(off, precision)}"
        lines.append(Line((Span(f"  {columns[j]}: {fixed(float(guess), precision)} → actual "
                                f"{fixed(float(actual[row, j]), precision)}  ", "text"),
                           Span(mark, "result" if off <= CLOSE else "masked"))))
    lines.append(Line((Span(score + ".", "note"),)))
    return lines
