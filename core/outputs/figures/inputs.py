"""An input matrix (Q, K, V, X, Wq, …) as a figure: the same heat map as a stage's, signed (the
diverging palette), its rows and columns labelled as the app labels them; a large one drawn in
blocks, each the mean of its cells, and the caption says so."""

from __future__ import annotations

import math

import numpy as np

from attn_tui.core.model.labels import ROLES, input_labels
from attn_tui.core.model.scenario import Scenario
from attn_tui.core.numbers import decimals_needed
from attn_tui.core.outputs.figures.heat_map import MAX_CELLS, FigureError, draw, head_title
from attn_tui.core.teaching.overview import downsample

# what the rows and columns of the inputs a token a row are (the weight matrices' rows and
# columns are dimensions, as their labels say)
INPUT_AXES = {
    "Q": ("query", "dimension of d_k"),
    "K": ("key", "dimension of d_k"),
    "V": ("key", "dimension of d_v"),
    "X": ("token", "dimension of d_model"),
}


def input_map(scenario: Scenario, name: str, head: int = 0) -> str:
    """The SVG document of input ``name`` (of head ``head``, 0-based, for a per-head input)."""
    if name not in scenario.inputs:
        raise FigureError(
            f"this scenario has no input {name!r}; its inputs are {', '.join(scenario.inputs)}"
        )
    values = np.asarray(scenario.inputs[name], dtype=np.float64)
    per_head = values.ndim == 3
    if per_head:
        if not 0 <= head < len(values):
            raise FigureError(f"there is no head {head + 1}: {name} has {len(values)}")
        values = values[head]
    elif values.ndim == 1:
        values = values[None, :]
    rows, cols = (list(labels) for labels in input_labels(scenario, name))
    n_rows, n_cols = values.shape
    factor = max(1, math.ceil(max(n_rows, n_cols) / MAX_CELLS))
    caption = [f"{scenario.title}: {name}, {ROLES.get(name, 'an input')} ({n_rows}×{n_cols})"]
    if factor > 1:
        values = downsample(values, -(-n_rows // factor), -(-n_cols // factor))
        rows = [f"{rows[k]}…" for k in range(0, n_rows, factor)][: len(values)]
        cols = [f"{cols[k]}…" for k in range(0, n_cols, factor)][: values.shape[1]]
        caption.append(f"drawn in blocks of {factor} × {factor} cells, each the mean of its cells")
    which = f", {head_title(scenario.head_names[head])}" if per_head and scenario.heads > 1 else ""
    finite = values[np.isfinite(values)]
    largest = float(np.max(np.abs(finite), initial=0.0))
    decimals = decimals_needed(values, scenario.precision)
    return draw(
        f"{name}{which}",
        caption,
        rows,
        cols,
        values,
        np.zeros(values.shape, dtype=bool),
        "diverging",
        largest,
        decimals,
        True,
        INPUT_AXES.get(name),
    )
