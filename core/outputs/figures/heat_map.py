"""The heat map of one stage of one head: the token labels on both axes, each cell's value as
text at the scenario's precision where cells are large enough to read, masked cells hatched (a
legend says so; never the colour of 0), a colour scale with its range, and a title.

Any stage of the registry is a figure by its ``expect:``/``--json`` key, backward steps
included. A stage larger than ``MAX_CELLS`` a side is drawn in blocks: each block the mean of
its cells that are not masked (hatched when all are), computed a row block at a time so memory
stays flat; the caption says how many rows and columns a block holds.
"""

from __future__ import annotations

import math

import numpy as np

from attn_tui.core.engine.attention import BLOCK, Attention
from attn_tui.core.engine.stages import KEYS, Stage
from attn_tui.core.engine.stages.declaration import CONCAT, DIMS, MODEL, OUT, TILES, VALUES
from attn_tui.core.numbers import fixed
from attn_tui.core.outputs.figures import colour_maps
from attn_tui.core.outputs.figures.svg import Svg
from attn_tui.core.text import visible

MAX_CELLS = 96  # cells a side before the map is drawn in blocks
READABLE = 28.0  # a cell's width in user units below which its number is left out
MAP_SIDE = 560.0  # the map's largest side in user units
LABELS_FROM = 48  # rows or columns beyond this: every n-th label only
# Blocks of this many engine row blocks (of 16 rows) or more read one of them each, a sample
SAMPLE_FROM = 2


class FigureError(ValueError):
    """What is wrong with the figure asked for (no such stage, head or row), in words."""


def head_named(scenario, given: str | None) -> int:
    """The index of the head ``given`` names as the scenario names its heads everywhere else
    (``heads``, the model view, the debugger): ``2`` or ``head 2`` of a written scenario (its
    heads are head 1, head 2, …), ``0`` of a captured layer (head 0, head 1, …); the first
    head when none is given."""
    if given is None:
        return 0
    names = [name.casefold() for name in scenario.head_names]
    wanted = given.strip().casefold()
    for candidate in (wanted, f"head {wanted}"):
        if candidate in names:
            return names.index(candidate)
    shown = ", ".join(visible(name) for name in scenario.head_names[:8])
    more = ", …" if scenario.heads > 8 else ""
    raise FigureError(f"there is no head {visible(given)}: its heads are {shown}{more}")


def head_title(name: str) -> str:
    """A head's name in a title: "head 2", and "head q0" for one named "q0" (never
    "head head 2")."""
    return visible(name) if name.casefold().startswith("head") else f"head {visible(name)}"


def find_stage(attention: Attention, key: str) -> Stage:
    """The scenario's stage whose ``expect:``/``--json`` key (or name) is ``key``."""
    for stage in attention.steps:
        if key in (stage.key, stage.name):
            return stage
    keys = ", ".join(stage.key for stage in attention.steps)
    inputs = ", ".join(attention.scenario.inputs)
    raise FigureError(
        f"this scenario has no stage {key!r}; its stages are {keys}; its inputs {inputs}"
    )


# What a stage's rows and columns are, as an axis says it: a query row and a key column of
# the scores and weights, as attention's own words have it
COLUMN_AXES = {
    KEYS: "key",
    TILES: "key",
    DIMS: "dimension of d_k",
    VALUES: "dimension of d_v",
    CONCAT: "dimension of the heads' outputs, side by side",
    OUT: "output dimension",
    MODEL: "dimension of d_model",
}


def axis_titles(stage: Stage) -> tuple[str, str]:
    """(what the rows are, what the columns are) of a stage: ("query", "key") for the weights."""
    arithmetic = stage.arithmetic
    return ("key" if arithmetic.rows == KEYS else "query"), COLUMN_AXES.get(
        arithmetic.columns, "column"
    )


def stage_labels(attention: Attention, stage: Stage) -> tuple[list[str], list[str]]:
    """The labels of the stage's rows and columns."""
    scenario = attention.scenario
    rows = list(scenario.tokens if stage.arithmetic.rows == KEYS else scenario.row_tokens)
    if stage.arithmetic.columns == KEYS:
        cols = list(scenario.tokens)
    elif stage.arithmetic.labels is not None:
        cols = list(stage.arithmetic.labels(scenario))
    else:
        cols = [
            f"{stage.arithmetic.columns[:1]}{j + 1}" for j in range(stage.column_count(scenario))
        ]
    return rows, cols


def stage_grid(attention: Attention, stage: Stage, h: int | None, factor: int):
    """(values, masked) of the stage, ``factor`` × ``factor`` cells to a block (1: the cells).
    A block's value is the mean of its cells that are not masked; masked: all of them are."""
    scenario = attention.scenario
    n_rows, n_cols = stage.row_count(scenario), stage.column_count(scenario)
    cols = range(n_cols)
    out_rows, out_cols = -(-n_rows // factor), -(-n_cols // factor)
    sums = np.zeros((out_rows, out_cols))
    counts = np.zeros((out_rows, out_cols))
    masks = (
        stage.arithmetic.columns == KEYS
        and stage.arithmetic.rows != KEYS
        and (stage.arithmetic.masks or stage.teaching.masked_given)
    )
    col_starts = np.arange(0, n_cols, factor)
    for first, rows in _row_runs(attention, n_rows, factor):
        values = np.asarray(
            attention.values(stage.name, h, rows, cols, keep=False), dtype=np.float64
        )
        seen = ~np.isnan(
            values
        )  # an overflowed ±∞ is a value (drawn at the scale's end), not masked
        if masks:
            seen &= ~attention.blocked(rows, cols)
        if stage.arithmetic.empty_rows and stage.arithmetic.rows != KEYS:
            seen &= ~np.asarray(attention.empty(rows, keep=False))[:, None]
        values = np.where(seen, values, 0.0)
        row_starts = np.arange(0, len(rows), factor)
        block_sums = np.add.reduceat(
            np.add.reduceat(values, row_starts, axis=0), col_starts, axis=1
        )
        block_counts = np.add.reduceat(
            np.add.reduceat(seen.astype(np.float64), row_starts, axis=0), col_starts, axis=1
        )
        sums[first : first + len(row_starts)] = block_sums
        counts[first : first + len(row_starts)] = block_counts
    masked = counts == 0
    with np.errstate(invalid="ignore", divide="ignore"):
        means = np.where(masked, 0.0, sums / np.where(masked, 1.0, counts))
    return means, masked


def sampled(attention: Attention, factor: int) -> bool:
    """Whether a map of ``factor`` rows to a block reads only a sample of each block's rows."""
    return factor >= SAMPLE_FROM * attention.block // BLOCK


def _row_runs(attention: Attention, n_rows: int, factor: int):
    """(the first block's row in the figure, the stage's rows to read): every row, a row block at
    a time; or, for blocks of many rows, one whole row block of the engine's (``attention.block``
    rows, computed at once) inside each figure block: a sample, so T = 16,384 takes a second,
    not ten."""
    size = attention.block
    if not sampled(attention, factor):
        step = max(size // factor, 1) * factor
        for start in range(0, n_rows, step):
            yield start // factor, range(start, min(start + step, n_rows))
        return
    for b in range(-(-n_rows // factor)):
        start = -(-(b * factor) // size) * size  # the first engine block that starts inside it
        stop = min(start + size, (b + 1) * factor, n_rows)
        if stop <= start:  # (a last, short block that no engine block starts in)
            start, stop = b * factor, min(b * factor + size, n_rows)
        yield b, range(start, stop)


def heat_map(attention: Attention, key: str, head: int = 0) -> str:
    """The SVG document of stage ``key`` (an ``expect:`` key) of head ``head`` (0-based)."""
    scenario = attention.scenario
    stage = find_stage(attention, key)
    if stage.reported.json_rows is not None:
        raise FigureError(
            f"{stage.key} is a walk, not a matrix: no heat map of it (try another stage)"
        )
    if not 0 <= head < scenario.heads:
        raise FigureError(f"there is no head {head + 1}: the scenario has {scenario.heads}")
    h = head if stage.arithmetic.per_head else None
    n_rows, n_cols = stage.row_count(scenario), stage.column_count(scenario)
    factor = max(1, math.ceil(max(n_rows, n_cols) / MAX_CELLS))
    values, masked = stage_grid(attention, stage, h, factor)
    rows, cols = stage_labels(attention, stage)
    if factor > 1:
        rows = [f"{rows[k]}…" for k in range(0, n_rows, factor)]
        cols = [f"{cols[k]}…" for k in range(0, n_cols, factor)]
    decimals = attention.stage_decimals(stage.name, head if stage.arithmetic.per_head else 0)
    palette = stage.display.palette if stage.display.palette == "weights" else "diverging"
    shown = values[~masked]
    largest = float(np.max(np.abs(shown[np.isfinite(shown)]), initial=0.0))
    heads = scenario.heads > 1 and stage.arithmetic.per_head
    title = f"{stage.title} ({stage.key})" + (
        f", {head_title(scenario.head_names[head])}" if heads else ""
    )
    caption = [f"{scenario.title}: {stage.display.heading(scenario, attention.options)}"]
    if factor > 1:
        rows_read = (
            f"of {attention.block} of its rows (a sample) over its {factor} columns"
            if sampled(attention, factor)
            else "of its cells"
        )
        caption.append(
            f"T = {n_rows:,}: drawn in blocks of {factor} × {factor} cells, each the mean "
            f"{rows_read}, masked cells left out"
        )
    return draw(
        title,
        caption,
        rows,
        cols,
        values,
        masked,
        palette,
        largest,
        decimals,
        stage.tiny,
        axis_titles(stage),
    )


def draw(
    title,
    caption,
    rows,
    cols,
    values,
    masked,
    palette,
    largest,
    decimals,
    tiny,
    axes: tuple[str, str] | None = None,
) -> str:
    """The SVG of a map of ``values`` (masked cells hatched) with its labels and colour scale;
    ``axes``: what the rows and the columns are, said beside the map (row's left, column's
    under it)."""
    n_rows, n_cols = values.shape
    cell = min(MAP_SIDE / max(n_rows, n_cols), 64.0)
    left, top = 150.0 + 20 * (axes is not None), 70.0 + 16 * len(caption)
    under = 22.0 if axes is not None else 0.0  # the column axis's title, under the map
    numbers = cell >= READABLE
    notes = []
    if not numbers:
        notes.append(
            "cells too small for their numbers: the numbers are left out (see --json for them)"
        )
    if masked.any():
        notes.append("hatched: masked (no weight; not the colour of 0)")
    width = left + cell * n_cols + 140
    # below the map: the column axis's title, the notes, and the colour scale's "masked" swatch
    height = top + cell * n_rows + max(under + 16 + 16 * len(notes), 30) + 20
    svg = Svg(width, height, title)
    svg.raw(
        '<defs><pattern id="masked" width="6" height="6" patternUnits="userSpaceOnUse" '
        f'patternTransform="rotate(45)"><rect width="6" height="6" fill="{colour_maps.MASKED}"/>'
        f'<line x1="0" y1="0" x2="0" y2="6" stroke="{colour_maps.HATCH}" stroke-width="2"/>'
        "</pattern></defs>"
    )
    svg.text(12, 24, title, size=18, longest=200, font_weight="bold")
    for k, line in enumerate(caption):
        svg.text(12, 44 + 16 * k, line, size=12, longest=200)
    fills = colour_maps.colours(colour_maps.positions(values, palette, largest), palette)
    every_row = max(1, math.ceil(n_rows / LABELS_FROM))
    every_col = max(1, math.ceil(n_cols / LABELS_FROM))
    label_size = min(12.0, max(cell * 0.6, 6.0)) if max(every_row, every_col) == 1 else 8.0
    for i in range(n_rows):
        y = top + i * cell
        if i % every_row == 0:
            svg.text(
                left - 6,
                y + cell / 2 + label_size / 3,
                rows[i],
                size=label_size,
                anchor="end",
                longest=18,
            )
        for j in range(n_cols):
            x = left + j * cell
            if masked[i, j]:
                svg.rect(x, y, cell, cell, "url(#masked)", class_="masked")
                continue
            fill = str(fills[i, j])
            svg.rect(x, y, cell, cell, fill, class_="cell", data_value=repr(float(values[i, j])))
            if numbers:
                svg.text(
                    x + cell / 2,
                    y + cell / 2 + 4,
                    fixed(float(values[i, j]), decimals, tiny),
                    size=min(11.0, cell / 4),
                    anchor="middle",
                    fill=colour_maps.text_colour(fill),
                    mono=True,
                )
    for j in range(0, n_cols, every_col):
        x = left + j * cell + cell / 2
        svg.text(x, top - 6, cols[j], size=label_size, rotate=-45, longest=18)
    _legend(svg, left + cell * n_cols + 24, top, cell * n_rows, palette, largest, decimals, tiny)
    if axes is not None:
        middle = top + cell * n_rows / 2
        svg.text(18, middle, axes[0], size=13, anchor="middle", rotate=-90, class_="axis")
        svg.text(
            left + cell * n_cols / 2,
            top + cell * n_rows + 20,
            axes[1],
            size=13,
            anchor="middle",
            class_="axis",
        )
    for k, note in enumerate(notes):
        svg.text(12, top + cell * n_rows + under + 28 + 16 * k, note, size=12, longest=200)
    return svg.document()


def _legend(svg: Svg, x: float, y: float, height: float, palette, largest, decimals, tiny) -> None:
    """The colour scale: its steps from the top (the largest) down, with its range."""
    height = max(height, 120.0)
    low, high = (0.0, 1.0) if palette == "weights" else (-largest, largest)
    steps = colour_maps.LEVELS
    fills = colour_maps.colours(np.linspace(1.0, 0.0, steps), palette)
    part = height / steps
    for k, fill in enumerate(fills):
        svg.rect(x, y + k * part, 18, part + 0.5, str(fill), class_="scale")
    svg.text(x + 24, y + 10, fixed(high, decimals, tiny), size=11, mono=True)
    svg.text(x + 24, y + height, fixed(low, decimals, tiny), size=11, mono=True)
    svg.rect(x, y + height + 14, 18, 12, "url(#masked)")
    svg.text(x + 24, y + height + 24, "masked", size=11)
