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


def weights_overview(
    attention, h: int, rows: int, cols: int, cancelled=lambda: False, band: int | None = None
) -> np.ndarray | None:
    """Head ``h``'s whole weights (the stage the registry marks ``overview``) shrunk to
    ``rows`` × ``cols`` block means, computed a block of query rows at a time (never the whole
    T×T at once); None if ``cancelled()`` turns true on the way (an edit made it stale).

    It keeps nothing in the attention's cache (each band's scores in a scratch dict of its own,
    computed once), so it may run in a thread beside the app. ``band``: query rows computed at a
    time (the attention's block unless given; the model view, drawing 144 maps at once, takes more
    rows at a time for fewer steps).
    """
    from attn_tui.core.engine.attention import BLOCK

    band_rows = BLOCK if band is None else band

    scenario = attention.scenario
    T, T_k = scenario.T, scenario.T_k
    stage = next(step for step in attention.steps if step.display.overview)
    means = BlockMeans(T, T_k, rows, cols)
    for start in range(0, T, band_rows):
        if cancelled():
            return None
        time.sleep(0)  # let a thread with keys to answer have the interpreter
        block = range(start, min(start + band_rows, T))
        means.add(start, attention.values(stage.name, h, block, range(T_k), keep={}))
    return means.result()


class BlockMeans:
    """The block means of a T × T_k matrix shrunk to ``rows`` × ``cols`` blocks (as
    :func:`downsample`), fed a band of its rows at a time."""

    def __init__(self, T: int, T_k: int, rows: int, cols: int) -> None:
        self.row_edges, self.col_edges = block_edges(T, rows), block_edges(T_k, cols)
        self.sums = np.zeros((len(self.row_edges) - 1, len(self.col_edges) - 1))
        self.band = np.searchsorted(self.row_edges, np.arange(T), side="right") - 1

    def add(self, start: int, weights: np.ndarray) -> None:
        """Rows ``start`` … of the matrix, every column."""
        by_column = np.add.reduceat(weights, self.col_edges[:-1], axis=1)
        np.add.at(self.sums, self.band[start : start + len(weights)], by_column)

    def result(self) -> np.ndarray:
        return self.sums / np.outer(np.diff(self.row_edges), np.diff(self.col_edges))
