"""One row of a stage as a bar chart: a bar per column (per key, for weights), its value above
it at the scenario's precision, masked keys drawn as a hatched stub marked "masked" (not a bar
of 0). Signed values (scores, gradients) hang below a zero line. A value axis with round ticks on
the left, the columns' labels under the bars (upright where they fit, else slanted) and what the
columns are ("key") under them; the bars share the plot's width."""

from __future__ import annotations

import math

import numpy as np

from attn_tui.core.engine.attention import Attention
from attn_tui.core.engine.stages import KEYS
from attn_tui.core.numbers import fixed
from attn_tui.core.outputs.figures import colour_maps
from attn_tui.core.outputs.figures.heat_map import (
    FigureError,
    axis_titles,
    find_stage,
    stage_labels,
)
from attn_tui.core.outputs.figures.svg import Svg

MAX_BARS = 512  # a row of more columns is refused: a bar chart of it would not read
PLOT_HEIGHT = 260.0
PLOT_WIDTH = 560.0  # the plot's width in user units, the bars sharing it (6 a bar at least)
MAX_SLOT = 120.0  # the widest a bar's share of it gets (a row of two keys)
GRID = "#d9d9d9"  # the value axis's lines across the plot: light, behind nothing


def bar_chart(attention: Attention, key: str, row: int, head: int = 0) -> str:
    """The SVG document of row ``row`` (0-based) of stage ``key`` of head ``head`` (0-based)."""
    scenario = attention.scenario
    stage = find_stage(attention, key)
    n_rows, n_cols = stage.row_count(scenario), stage.column_count(scenario)
    if stage.reported.json_rows is not None:
        raise FigureError(
            f"{stage.key} is a walk, not a matrix: no bar chart of it (try another stage)"
        )
    if not 0 <= row < n_rows:
        raise FigureError(f"there is no row {row + 1}: {stage.key} has {n_rows}")
    if n_cols > MAX_BARS:
        raise FigureError(
            f"a row of {n_cols:,} columns is too many bars to read (at most {MAX_BARS}); "
            "draw the heat map instead (--row all)"
        )
    if not 0 <= head < scenario.heads:
        raise FigureError(f"there is no head {head + 1}: the scenario has {scenario.heads}")
    h = head if stage.arithmetic.per_head else None
    cols = range(n_cols)
    values = np.asarray(
        attention.values(stage.name, h, range(row, row + 1), cols, keep=False), dtype=np.float64
    )[0]
    masked = np.isnan(values)
    if (
        stage.arithmetic.columns == KEYS
        and stage.arithmetic.rows != KEYS
        and (stage.arithmetic.masks or stage.teaching.masked_given)
    ):
        masked |= attention.blocked(range(row, row + 1), cols)[0]
    if stage.arithmetic.empty_rows and attention.empty(range(row, row + 1), keep=False)[0]:
        masked[:] = True
    rows, labels = stage_labels(attention, stage)
    decimals = attention.stage_decimals(stage.name, head if stage.arithmetic.per_head else 0)
    palette = "weights" if stage.display.palette == "weights" else "diverging"
    shown = np.where(masked, 0.0, values)
    largest = float(np.max(np.abs(shown[np.isfinite(shown)]), initial=0.0)) or 1.0
    shown = np.clip(shown, -largest, largest)  # an overflowed ±∞ is drawn as the longest bar
    top_value = 1.0 if palette == "weights" else largest
    signed = palette != "weights" and bool((shown < 0).any())
    # the bars share the plot's width, as wide as a slide reads (a few keys: wide bars, not
    # narrow ones in an empty canvas), and the canvas is as wide as the plot
    slot = max(6.0, min(MAX_SLOT, PLOT_WIDTH / n_cols))
    bar = slot * 0.72 if slot >= 12 else slot - 1
    plot = slot * n_cols
    upright = all(len(label) * 7.5 <= slot - 4 for label in labels[:n_cols])  # labels that fit
    label_size = 12 if slot >= 14 else 9
    longest_label = min(18, max((len(label) for label in labels[:n_cols]), default=1))
    # a slanted label's height: its length × its size × sin 45°, a glyph being ~0.55 of its size
    label_space = 24.0 if upright else 18.0 + 0.39 * label_size * longest_label
    left, top = 84.0, 76.0
    zero = top + (PLOT_HEIGHT / 2 if signed else PLOT_HEIGHT)
    # (a signed bar's number goes past its end, above or below: room for it inside the plot)
    span = PLOT_HEIGHT / 2 - 18 if signed else PLOT_HEIGHT
    numbers = slot >= 28
    notes = [] if numbers else ["bars too narrow for their numbers: the numbers are left out"]
    if masked.any():
        notes.append("hatched: masked (no weight; not a bar of 0)")
    bottom = top + PLOT_HEIGHT + label_space + 28
    title = f"{stage.title} ({stage.key}) of row {row + 1}, {rows[row]!s}"
    svg = Svg(max(left + plot + 32, 420.0), bottom + 20 * len(notes) + 12, title)
    svg.raw(
        '<defs><pattern id="masked" width="6" height="6" patternUnits="userSpaceOnUse" '
        f'patternTransform="rotate(45)"><rect width="6" height="6" fill="{colour_maps.MASKED}"/>'
        f'<line x1="0" y1="0" x2="0" y2="6" stroke="{colour_maps.HATCH}" stroke-width="2"/>'
        "</pattern></defs>"
    )
    svg.text(
        12,
        24,
        f"{stage.title} ({stage.key}) of row {row + 1}: {rows[row]}",
        size=18,
        longest=120,
        font_weight="bold",
    )
    svg.text(
        12,
        44,
        f"{scenario.title}: {stage.display.heading(scenario, attention.options)}",
        size=12,
        longest=200,
    )
    # the value axis: ticks at round numbers, a light line across the plot at each
    for tick in ticks(top_value, signed):
        y = zero - tick / top_value * span
        svg.line(left, y, left + plot, y, GRID)
        svg.line(left - 4, y, left, y, "#000000")
        svg.text(left - 7, y + 4, tick_text(tick, top_value), size=11, anchor="end", mono=True)
    svg.line(left, top, left, top + PLOT_HEIGHT, "#000000")
    svg.text(
        20, top + PLOT_HEIGHT / 2, stage.key, size=13, anchor="middle", rotate=-90, class_="axis"
    )
    fills = colour_maps.colours(colour_maps.positions(shown, palette, largest), palette)
    for j in range(n_cols):
        x = left + j * slot + (slot - bar) / 2
        if masked[j]:
            svg.rect(x, zero - 12, bar, 12, "url(#masked)", class_="masked")
            if numbers:
                svg.text(x + bar / 2, zero - 17, "masked", size=11, anchor="middle")
            continue
        length = abs(shown[j]) / top_value * span
        y = zero - length if shown[j] >= 0 else zero
        svg.rect(
            x,
            y,
            bar,
            length,
            str(fills[j]),
            class_="bar",
            data_value=repr(float(values[j])),
            stroke="#000000",
            stroke_width="0.5",
        )
        if numbers:
            above = y - 5 if shown[j] >= 0 else y + length + 14
            svg.text(
                x + bar / 2,
                above,
                fixed(float(values[j]), decimals, stage.tiny),
                size=12 if slot >= 48 else 10,
                anchor="middle",
                mono=True,
            )
    svg.line(left, zero, left + plot, zero, "#000000")
    every = max(1, math.ceil(10 / slot))  # at most a label each 10 units
    for j in range(0, n_cols, every):
        centre = left + j * slot + slot / 2
        if upright:
            svg.text(centre, top + PLOT_HEIGHT + 18, labels[j], size=13, anchor="middle")
        else:
            svg.text(
                centre + 4,
                top + PLOT_HEIGHT + 14,
                labels[j],
                size=label_size,
                rotate=-45,
                anchor="end",
                longest=18,
            )
    svg.text(
        left + plot / 2,
        top + PLOT_HEIGHT + label_space + 14,
        axis_titles(stage)[1],
        size=13,
        anchor="middle",
        class_="axis",
    )
    for k, note in enumerate(notes):
        svg.text(12, bottom + 8 + 20 * k, note, size=12, longest=200)
    return svg.document()


def ticks(top: float, signed: bool) -> list[float]:
    """Round values from 0 (from −top when ``signed``) to ``top``: a step of 1, 2 or 5 times a
    power of ten, four or five of them above 0, and ``top`` itself when it is not one."""
    step = 10 ** math.floor(math.log10(top / 4))
    for factor in (1, 2, 5, 10):
        if top / (step * factor) <= 5:
            step *= factor
            break
    found = [k * step for k in range(int(top / step + 1e-9) + 1)]
    if top - found[-1] > step * 0.25:
        found.append(top)
    return sorted({-value for value in found} | set(found)) if signed else found


def tick_text(value: float, top: float) -> str:
    """A tick's value in as few decimals as its step needs (0.25, 2, 0.005)."""
    text = f"{value:.6g}"
    return "0" if value == 0 else text.replace("-", "−")
