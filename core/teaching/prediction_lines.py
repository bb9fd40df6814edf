"""The Why pane's lines for a stage to predict: what it says instead of arithmetic that would give
a prediction away, what to do while a row is hidden, each guess against the value once the row
is revealed, and the score so far (the guesses themselves are ``core.teaching.predictions``).
"""

from __future__ import annotations

import numpy as np

from attn_tui.core.engine.explanation import Line, Span
from attn_tui.core.engine.stages import column_labels
from attn_tui.core.model.labels import token_labels
from attn_tui.core.numbers import fixed
from attn_tui.core.teaching.predictions import CLOSE, Predictions


def hidden_lines(predictions: Predictions, stage: str, head: int, row: int, scenario) -> list[Line]:
    """What the explanation pane says instead of arithmetic that would give a prediction away."""
    from attn_tui.core.engine.stages import step_number

    label = token_labels(scenario.row_tokens)[row]
    steps = ", ".join(
        f"{predictions.by_name[name].title} (step {step_number(scenario, name)})"
        for name in dict.fromkeys(predictions.hiding(stage, head, row))
    )
    return [
        Line(
            (
                Span(
                    f'Hidden until you predict and reveal "{label}" at {steps}: its arithmetic '
                    "would give the answer away.",
                    "note",
                ),
            )
        )
    ]


def prediction_lines(
    predictions: Predictions, stage: str, head: int, row: int, attention
) -> list[Line]:
    """The explanation pane's lines for a stage to predict: what to do while the row is hidden,
    each guess against the value once revealed, and the score so far."""
    scenario = attention.scenario
    described = predictions.by_name[stage]
    label = token_labels(scenario.row_tokens)[row]
    guesses = predictions.guesses_of(stage, head).row(row)
    columns = column_labels(scenario, described)
    close, judged = predictions.score(attention)
    revealed_any = any(revealed.any() for revealed in predictions.revealed.values())
    score = (
        f"Score so far: {close} of {judged} guesses close (within {CLOSE:g})"
        if judged
        else "No guess judged yet"
        if revealed_any
        else "No row revealed yet"
    )
    if not predictions.is_revealed(stage, head, row):
        typed = int((~np.isnan(guesses)).sum())
        guessable = len(guesses)  # a masked cell is known (a weight of 0), not guessed
        if described.teaching.masked_given:
            guessable -= int(attention.blocked(range(row, row + 1), range(len(guesses))).sum())
        return [
            Line(
                (
                    Span(
                        f'Predict the {described.numbers} of "{label}" before you see them: type '
                        "a number (Enter edits a guess made), Tab moves on; r reveals the row.",
                        "token",
                    ),
                )
            ),
            Line((Span(f"{typed} of {guessable} cells guessed. {score}.", "note"),)),
        ]
    actual = attention.values(stage, head, range(row, row + 1), range(len(guesses)))[0]
    if not predictions.current_state(stage, head, row, attention):
        guessed = ~np.isnan(guesses)
        answers = predictions.answers[(stage, predictions._head(stage, head))].row(row)
        near = int((np.abs(guesses[guessed] - answers[guessed]) <= CLOSE).sum())
        n = int(guessed.sum())
        told = (
            f"its {n} {'guess was' if n == 1 else 'guesses were'} "
            f"judged against those: {near} close"
            if n
            else "it was revealed without a guess"
        )
        return [
            Line(
                (
                    Span(
                        f'"{label}" was predicted when its numbers were '
                        f"different (before or after an edit): {told}.",
                        "token",
                    ),
                )
            ),
            Line(
                (
                    Span(
                        "The numbers above are the ones now; go back to where "
                        "you guessed to see your guesses beside theirs.",
                        "note",
                    ),
                )
            ),
            Line((Span(score + ".", "note"),)),
        ]
    lines = [
        Line(
            (
                Span(
                    f'Your guesses for "{label}":'
                    if not np.isnan(guesses).all()
                    else f'"{label}" was revealed without a guess.',
                    "token",
                ),
            )
        )
    ]
    for j, guess in enumerate(guesses):
        if np.isnan(guess):
            continue
        off = abs(guess - actual[j])
        mark = "✓ close" if off <= CLOSE else f"✗ off by {fixed(off, scenario.precision)}"
        lines.append(
            Line(
                (
                    Span(
                        f"  {columns[j]}: {fixed(float(guess), scenario.precision)} → actual "
                        f"{fixed(float(actual[j]), scenario.precision)}  ",
                        "text",
                    ),
                    Span(mark, "result" if off <= CLOSE else "masked"),
                )
            )
        )
    lines.append(Line((Span(score + ".", "note"),)))
    return lines
