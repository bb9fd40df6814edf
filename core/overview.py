"""A whole matrix shrunk to a few cells: block averages for an overview map."""

from __future__ import annotations

import time

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


def weights_overview(attention, h: int, rows: int, cols: int, cancelled=lambda: False) -> np.ndarray | None:
    """Head ``h``'s whole weights matrix shrunk to ``rows`` × ``cols`` block means, computed a
    block of query rows at a time (never the whole T×T at once); None if ``cancelled()`` turns
    true on the way (an edit made it stale).

    It reads the head's inputs once, at the start, and keeps nothing in the attention's cache,
    so it may run in a thread beside the app.
    """
    from attn_tui.core.attention import BLOCK, Block

    scenario = attention.scenario
    T, T_k = scenario.T, scenario.T_k
    Q, K = attention.inputs.Q(h), attention.inputs.K(h)
    row_edges = block_edges(T, rows)
    col_edges = block_edges(T_k, cols)
    sums = np.zeros((len(row_edges) - 1, len(col_edges) - 1))
    band = np.searchsorted(row_edges, np.arange(T), side="right") - 1
    for start in range(0, T, BLOCK):
        if cancelled():
            return None
        time.sleep(0)  # let a thread with keys to answer have the interpreter
        with np.errstate(over="ignore", invalid="ignore"):
            block = Block(start, Q[start:start + BLOCK] @ K.T, attention)
        block.settle()
        by_column = np.add.reduceat(block.weights(), col_edges[:-1], axis=1)
        np.add.at(sums, band[start:start + BLOCK], by_column)
    counts = np.outer(np.diff(row_edges), np.diff(col_edges))
    return sums / counts
