"""Rotary position embeddings (RoPE): each pair of a vector's dimensions turned by an angle
that grows with the token's position.

Dimension ``j`` pairs with ``j + d/2`` ("half", Hugging Face's ``rotate_half``, used by Llama)
or with ``j + 1`` for even ``j`` ("interleaved", the original RoFormer). Pair ``k`` of a token at
position ``p`` turns by ``p · base^(−2k/d)``. With ``dims`` (partial rotary, as GPT-NeoX's
``rotary_ndims``), only the first ``dims`` dimensions turn, paired among themselves, with
``dims`` in place of ``d``; the rest pass through unchanged::

    x'_a = x_a · cos θ − x_b · sin θ
    x'_b = x_b · cos θ + x_a · sin θ
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

HALF, INTERLEAVED = "half", "interleaved"


@dataclass(frozen=True)
class Rope:
    base: float = 10000.0
    pairs: str = HALF
    dims: int | None = None  # the dimensions that turn (the first ones); None: all of them

    def turned(self, d: int) -> int:
        """How many of a head's ``d`` dimensions turn."""
        return d if self.dims is None else self.dims

    def pair_indices(self, d: int) -> tuple[np.ndarray, np.ndarray]:
        """The dimensions ``a`` and ``b`` of each of the pairs that turn."""
        r = self.turned(d)
        k = np.arange(r // 2)
        if self.pairs == HALF:
            return k, k + r // 2
        return 2 * k, 2 * k + 1

    def frequencies(self, d: int) -> np.ndarray:
        """The angle per position of each pair: ``base^(−2k/r)``, r the dimensions that turn
        (as Hugging Face computes it)."""
        r = self.turned(d)
        return 1.0 / (self.base ** (np.arange(0, r, 2, dtype=np.float64) / r))

    def angles(self, positions: np.ndarray, d: int) -> np.ndarray:
        """θ for each position (rows) and pair (columns)."""
        return np.outer(np.asarray(positions, dtype=np.float64), self.frequencies(d))

    def rotate(self, values: np.ndarray, positions: np.ndarray) -> np.ndarray:
        """``values`` (one row per position) with every pair turned by its angle."""
        d = values.shape[1]
        a, b = self.pair_indices(d)
        theta = self.angles(positions, d)
        cos, sin = np.cos(theta), np.sin(theta)
        rotated = np.array(values, dtype=np.float64)  # (the dimensions that do not turn stay)
        rotated[:, a] = values[:, a] * cos - values[:, b] * sin
        rotated[:, b] = values[:, b] * cos + values[:, a] * sin
        return rotated
