"""Which keys a query may see: a stack of rules, combined cell by cell, each able to say why it
hid a cell.

The rules are the causal mask (a query never sees a later key), a sliding window (a query sees
only the ``w`` most recent positions, itself included), chunks (Llama 4: a query sees only the
keys of its own block of ``C`` positions), padding (some keys are never seen) and an explicit 0/1
matrix. A cell is visible only if every rule allows it. Everything here works on
a window of rows and columns, so a 16,384-token scenario never builds a T×T mask.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

CAUSAL, WINDOW, CHUNK, PADDING, EXPLICIT = "causal", "window", "chunk", "padding", "mask"
SEEN_ROWS = 64  # rows of an explicit mask read at a time (Visibility.seen_by_any)
RULES = (CAUSAL, WINDOW, CHUNK, PADDING, EXPLICIT)
WHY = {
    CAUSAL: "in the future",
    WINDOW: "outside the window",
    CHUNK: "in another chunk",
    PADDING: "padding",
    EXPLICIT: "hidden by the mask",
}


@dataclass(frozen=True, eq=False)
class Visibility:
    """The rules in force for one set of options. ``causal_offset`` is where the causal mask
    starts: 1 hides the future; the diagnosis of a student's off-by-one mask uses 0 or 2."""

    causal: bool = False
    window: int | None = None
    padding: np.ndarray | None = None  # bool per key: True = padding, never attended
    explicit: np.ndarray | None = None  # bool T_q × T_k: True = may attend
    causal_offset: int = 1
    chunk: int | None = None  # C: a query sees only the keys of its own block of C positions
    # where the first chunk starts: after the left padding, as transformers' chunked_overlay
    chunk_start: int = 0

    @property
    def rules(self) -> tuple[str, ...]:
        """The rules in force, in the order they are told."""
        present = {
            CAUSAL: self.causal,
            WINDOW: self.window is not None,
            CHUNK: self.chunk is not None,
            PADDING: self.padding is not None,
            EXPLICIT: self.explicit is not None,
        }
        return tuple(rule for rule in RULES if present[rule])

    def hidden_by(self, rule: str, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
        """Where one rule hides the cells of ``rows`` × ``cols`` (index arrays)."""
        if rule == CAUSAL:
            return cols[None, :] >= rows[:, None] + self.causal_offset
        if rule == WINDOW:
            return (cols[None, :] <= rows[:, None] - self.window) | (cols[None, :] > rows[:, None])
        if rule == CHUNK:
            first = self.chunk_start
            return (cols[None, :] - first) // self.chunk != (rows[:, None] - first) // self.chunk
        if rule == PADDING:
            return np.broadcast_to(self.padding[cols][None, :], (len(rows), len(cols)))
        return ~self.explicit[np.ix_(rows, cols)]

    def blocked(self, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
        """True where some rule hides the cell."""
        hidden = np.zeros((len(rows), len(cols)), bool)
        for rule in self.rules:
            hidden |= self.hidden_by(rule, rows, cols)
        return hidden

    def seen_by_any(self, rows: range, T_k: int) -> np.ndarray:
        """Per key: whether some row of ``rows`` may see it (online softmax's skipped tiles ask,
        for the query rows of a pass). Worked out from the rules for causal, a window and padding,
        never building ``rows`` × ``T_k``: a pass of 16,384 rows made that 268 million cells a key
        press; an explicit mask is read ``SEEN_ROWS`` rows at a time."""
        keys = np.arange(T_k)
        lowest = np.full(T_k, rows.start)  # the rows that may see key j: lowest … highest
        highest = np.full(T_k, rows.stop - 1)
        if self.causal:  # i ≥ j − offset + 1
            lowest = np.maximum(lowest, keys - self.causal_offset + 1)
        if self.window is not None:  # j ≤ i < j + w
            lowest = np.maximum(lowest, keys)
            highest = np.minimum(highest, keys + self.window - 1)
        if self.chunk is not None:  # i in j's chunk: j − j mod C ≤ i < j − j mod C + C
            first = keys - (keys - self.chunk_start) % self.chunk
            lowest = np.maximum(lowest, first)
            highest = np.minimum(highest, first + self.chunk - 1)
        seen = lowest <= highest
        if self.padding is not None:
            seen &= ~self.padding[:T_k]
        if self.explicit is None:
            return seen
        found = np.zeros(T_k, bool)
        for start in range(rows.start, rows.stop, SEEN_ROWS):
            some = np.arange(start, min(start + SEEN_ROWS, rows.stop))
            found |= ~self.blocked(some, keys).all(axis=0)
        return found

    def reasons(self, row: int, cols: np.ndarray) -> list[tuple[str, ...]]:
        """For each key of one row, the rules that hide it (empty: visible)."""
        rows = np.array([row])
        hidden = {rule: self.hidden_by(rule, rows, cols)[0] for rule in self.rules}
        return [tuple(rule for rule in self.rules if hidden[rule][k]) for k in range(len(cols))]
