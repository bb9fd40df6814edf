"""How wide a MatrixView's columns are drawn: the widest of a list of labels (measured once per
list) and the cell width that fits a window's values written out, with the largest magnitude
among them (the colour scale of a diverging palette). A part of MatrixView
(tui/widgets/matrix.py), kept apart as the measuring it is."""

from __future__ import annotations

from typing import Sequence

import numpy as np

from attn_tui.core.engine.views import Window
from attn_tui.core.numbers import LARGE, fixed, mask_text
from attn_tui.core.text import cells
from attn_tui.tui.widgets.grid import Grid

# id → (the labels, kept: the id stays theirs; width)
_MEASURED: dict[int, tuple[tuple[str, ...], int]] = {}


def longest(labels: Sequence[str]) -> int:
    """The widest label's cells (a sample, for very long lists: labels rarely vary much),
    measured once per list: labels are shared tuples, and a step between two stages of other
    labels would measure 8,192 of them twice a key."""
    known = _MEASURED.get(id(labels))
    if known is not None and known[0] is labels:
        return known[1]
    sample = list(labels[:2048]) + list(labels[-2048:]) if len(labels) > 4096 else labels
    width = max((cells(label) for label in sample), default=1)
    if isinstance(labels, tuple):  # (a list could change under the same id)
        if len(_MEASURED) >= 16:
            _MEASURED.pop(next(iter(_MEASURED)))
        _MEASURED[id(labels)] = (labels, width)
    return width


def cell_width(window: Window, grid: Grid) -> tuple[int, float]:
    """The cell width (the gap after it included) that fits every value of ``window`` as
    ``grid`` writes it, and the largest magnitude among its finite, unblocked values (0.0 if
    there is none)."""
    values = window.values
    samples: list[str] = []
    largest = 0.0
    if values.size:
        finite = values[np.isfinite(values)]
        if window.blocked is not None:
            finite = values[np.isfinite(values) & ~window.blocked]
        if finite.size:
            low, high = float(finite.min()), float(finite.max())
            samples += [
                fixed(low, grid.decimals, grid.tiny),
                fixed(high, grid.decimals, grid.tiny),
            ]
            largest = max(abs(low), abs(high))
            if largest >= LARGE:  # the widest written out, below 1e7
                ordinary = finite[np.abs(finite) < LARGE]
                if ordinary.size:
                    samples += [
                        fixed(float(ordinary.min()), grid.decimals),
                        fixed(float(ordinary.max()), grid.decimals),
                    ]
            tiny = np.abs(finite[finite != 0])
            # (as fixed() decides: 0.000998 reads 0.001)
            tiny = tiny[tiny < 0.5 * 10.0**-grid.decimals]
            if grid.tiny and tiny.size:  # the widest: negative, with the longest exponent (e−11)
                samples.append(fixed(-float(tiny.min()), grid.decimals, True))
        if window.blocked is not None and window.blocked.any():
            samples.append(grid.blocked_text or mask_text(grid.mask_value))
    if window.verdict is not None or window.hidden is not None:  # room for ✓, ✗ or ?
        samples = [text + "?" for text in samples]
        if window.guesses is not None and np.isfinite(window.guesses).any():
            guesses = window.guesses[np.isfinite(window.guesses)]
            samples += [
                fixed(float(guesses.min()), grid.decimals, True) + "?",
                fixed(float(guesses.max()), grid.decimals, True) + "?",
            ]
    return max([len(text) for text in samples] + [1]) + 2, largest
