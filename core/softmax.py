"""Softmax over rows, in the numerically stable form every stage of the project shares."""

from __future__ import annotations

import numpy as np


def softmax_rows(masked: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Row maxima, ``exp(masked − row_max)``, row sums and weights of a 2-D array of scores.

    Subtracting the row maximum keeps every exp in [0, 1], so scores of 1e4 give a finite
    one-hot row; an entry of −∞ (a masked key) becomes exactly 0. Each row needs at least one
    finite entry (the causal mask always leaves a token itself visible).
    """
    row_max = masked.max(axis=1)
    with np.errstate(over="ignore"):  # a mask value near −1.8e308 minus a large score is −∞: exp 0
        exp = np.exp(masked - row_max[:, None])
    row_sum = exp.sum(axis=1)
    return row_max, exp, row_sum, exp / row_sum[:, None]


def entropy_rows(weights: np.ndarray) -> np.ndarray:
    """Each row's entropy in nats, counting 0 · log 0 as 0."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return 0.0 - np.where(weights > 0, weights * np.log(weights), 0.0).sum(axis=1)
