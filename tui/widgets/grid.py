"""What a matrix view draws, and how: a :class:`Grid` (labels, a shape, and the window of values
on screen, asked for when drawn), the text of a cell, and which cells an edit changed."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Hashable, Sequence

import numpy as np

from attn_tui.core.engine.views import Window
from attn_tui.core.numbers import fixed, mask_text

EMPTY = "—"  # a row that can see no key: nothing to attend to


@dataclass
class Grid:
    """What a MatrixView draws. ``key`` names the matrix (widths and the colour scale reset
    when it changes, unless ``kin`` is the same: one matrix's heads keep them, so that switching
    heads does not lay the screen out again); ``version`` counts changes to its numbers."""

    rows: Sequence[str]
    columns: Sequence[str]
    decimals: int
    palette: str = "diverging"  # "weights" (0 to 1) or "diverging" (blue, neutral, red)
    tiny: bool = True  # a non-zero value that rounds to 0 gets an exponent
    mask_value: float = -math.inf
    blocked_text: str | None = None  # what a blocked cell reads, when not the mask value ("skip")
    key: Hashable = None
    version: int = 0
    kin: Hashable = None

    @property
    def shape(self) -> tuple[int, int]:
        return len(self.rows), len(self.columns)

    def window(self, rows: range, cols: range) -> Window:
        raise NotImplementedError


@dataclass
class DenseGrid(Grid):
    """A matrix held whole (an input such as Q or Wq)."""

    values: np.ndarray = field(default_factory=lambda: np.zeros((0, 0)))

    def window(self, rows: range, cols: range) -> Window:
        # a copy: the session edits its working matrix in place, and the view compares the
        # window it drew with the next one to repaint only the lines that changed
        return Window(
            rows, cols, self.values[rows.start : rows.stop, cols.start : cols.stop].copy()
        )


def cell_text(window: Window, grid: Grid, i: int, j: int) -> str:
    """The text of cell (i, j) of a window (indices within it)."""
    if window.empty is not None and window.empty[i]:
        return EMPTY
    if window.hidden is not None and window.hidden[i, j]:
        guess = float("nan") if window.guesses is None else float(window.guesses[i, j])
        return "?" if guess != guess else f"{fixed(guess, grid.decimals, True)}?"
    if window.blocked is not None and window.blocked[i, j]:
        return grid.blocked_text or mask_text(grid.mask_value)
    text = fixed(float(window.values[i, j]), grid.decimals, grid.tiny)
    if window.verdict is not None and window.verdict[i, j]:
        text += "✓" if window.verdict[i, j] == 1 else "✗"
    return text


def changed_cells(before: Window, after: Window) -> set[tuple[int, int]]:
    """The cells two windows of a matrix both show whose values differ, bit for bit."""
    rows = range(max(before.rows.start, after.rows.start), min(before.rows.stop, after.rows.stop))
    cols = range(max(before.cols.start, after.cols.start), min(before.cols.stop, after.cols.stop))
    if not (len(rows) and len(cols)):
        return set()
    old = before.values[
        rows.start - before.rows.start : rows.stop - before.rows.start,
        cols.start - before.cols.start : cols.stop - before.cols.start,
    ]
    new = after.values[
        rows.start - after.rows.start : rows.stop - after.rows.start,
        cols.start - after.cols.start : cols.stop - after.cols.start,
    ]
    moved = np.argwhere(
        np.ascontiguousarray(old).view(np.int64) != np.ascontiguousarray(new).view(np.int64)
    )
    return {(rows.start + int(i), cols.start + int(j)) for i, j in moved}


def row_differs(before: Window, after: Window, row: int) -> bool:
    """Whether one row of two windows over the same cells reads or looks different."""
    i = row - before.rows.start
    j = row - after.rows.start
    if (
        np.ascontiguousarray(before.values[i]).view(np.int64).tolist()
        != np.ascontiguousarray(after.values[j]).view(np.int64).tolist()
    ):
        return True
    for name in ("blocked", "hidden", "guesses", "verdict"):
        a, b = getattr(before, name), getattr(after, name)
        if (a is None) != (b is None) or (
            a is not None and not np.array_equal(a[i], b[j], equal_nan=name == "guesses")
        ):
            return True
    a, b = before.empty, after.empty
    return (a is None) != (b is None) or (a is not None and bool(a[i]) != bool(b[j]))
