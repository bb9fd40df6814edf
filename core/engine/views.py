"""What a view of a stage shows in a window of rows × columns: the numbers, and what to draw
over them — masked cells, cells hidden until a prediction is revealed, the student's guesses,
✓/✗ against their own values, rows that see nothing.

This is the policy behind every matrix the app draws, kept here so that it is tested without a
terminal and the app only draws what it is given.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attn_tui.core.model.masks import RULES

NOTHING, CLOSE, DIFFERS = 0, 1, 2  # verdicts of a cell


@dataclass
class Window:
    """The values of some rows × columns of a matrix, and what to draw over them."""

    rows: range
    cols: range
    values: np.ndarray
    blocked: np.ndarray | None = None  # masked cells (drawn as the mask value)
    hidden: np.ndarray | None = None  # cells not to show yet (a stage the student predicts)
    guesses: np.ndarray | None = None  # the student's guesses (NaN: none), shown while hidden
    verdict: np.ndarray | None = None  # NOTHING, CLOSE (✓) or DIFFERS (✗)
    empty: np.ndarray | None = None  # per row: it sees no key ("nothing to attend to")


def stage_window(
    session,
    stage_name: str,
    head: int,
    rows: range,
    cols: range,
    theirs: bool = False,
    rule: str | None = None,
) -> Window:
    """A window of a stage as the app shows it for ``session``'s current numbers.

    ``theirs`` shows the student's own values (``expect:``) where they gave one; ``rule``, at a
    stage that masks, shows the cells one mask rule hides (None: all rules together).
    """
    attention = session.attention
    stage = attention.stage(stage_name)
    values = attention.values(stage.name, head, rows, cols)
    window = Window(rows, cols, values)
    if stage.arithmetic.masks:
        if rule is None:
            window.blocked = attention.blocked(rows, cols)
        else:
            window.blocked = attention.visibility.hidden_by(
                rule, np.arange(rows.start, rows.stop), np.arange(cols.start, cols.stop)
            )
            window.values = np.where(
                window.blocked,
                attention.options.mask_value,
                attention.values(attention.previous(stage.name), head, rows, cols),
            )
    if stage.arithmetic.skipped is not None:
        skipped = stage.arithmetic.skipped(attention, head, rows, cols)
        if skipped.any():
            window.blocked = skipped
    if stage.arithmetic.empty_rows:
        empty = attention.empty(rows)
        if empty.any():
            window.empty = empty
    predictions = session.predictions
    if predictions is not None:
        hidden_rows = predictions.hidden_rows(stage.name, head)[rows.start : rows.stop]
        if hidden_rows.any():
            hidden = np.repeat(hidden_rows[:, None], len(cols), axis=1)
            if stage.teaching.masked_given:  # a masked cell is known (a weight of 0): no guess
                hidden &= ~attention.blocked(rows, cols)
            window.hidden = hidden
        if predictions.predicts(stage.name):
            window.guesses = predictions.guesses_of(stage.name, head).block(rows, cols)
            window.verdict = predictions.verdict(stage.name, head, rows, cols, values)
            return window
    comparison = session.comparison
    which = head if stage.arithmetic.per_head and session.scenario.heads > 1 else None
    compared = (
        comparison.stage(stage.key, which)
        if comparison is not None and stage.teaching.predictable
        else None
    )
    if compared is not None:
        given = compared.given[rows.start : rows.stop, cols.start : cols.stop]
        differs = compared.differs[rows.start : rows.stop, cols.start : cols.stop]
        window.verdict = np.where(differs, DIFFERS, np.where(given, CLOSE, NOTHING)).astype(np.int8)
        if theirs:
            yours = compared.yours[rows.start : rows.stop, cols.start : cols.stop]
            window.values = np.where(given, yours, values)
    return window


def mask_rules(session) -> tuple[str | None, ...]:
    """The views ``m`` cycles through at the Mask stage: all rules together, then each alone
    (only when there is more than one)."""
    rules = session.attention.visibility.rules
    return (None, *rules) if len(rules) > 1 else (None,)


__all__ = ["CLOSE", "DIFFERS", "NOTHING", "RULES", "Window", "mask_rules", "stage_window"]
