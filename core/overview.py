"""A whole matrix shrunk to a few cells: block averages for an overview map."""

from __future__ import annotations

import numpy as np


def block_edges(length: int, blocks: int) -> np.ndarray:
    """``blocks + 1`` boundaries splitting ``range(length)`` into nearly equal runs.

    With more blocks than items, each item gets a block of its own (fewer blocks are made).
    """
    blocks = max(1, min(blocks, length))
    return np.linspace(0, length, blocks + 1).round().astype(int)


def downsample(values: np.ndarray, rows: int, cols: int) -> np.ndarray:
    """The mean of each block when ``values`` is cut into ``rows`` × ``cols`` blocks.

    Block boundaries come from :func:`block_edges`, so a 1024×1024 matrix shrunk to 32×32
    averages 32×32 squares, and a 3×3 matrix shrunk to 32×32 stays 3×3.
    """
    row_edges = block_edges(values.shape[0], rows)
    col_edges = block_edges(values.shape[1], cols)
    sums = np.add.reduceat(np.add.reduceat(values, row_edges[:-1], axis=0), col_edges[:-1], axis=1)
    counts = np.outer(np.diff(row_edges), np.diff(col_edges))
    return sums / counts
