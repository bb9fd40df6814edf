"""One row of a stage as a bar chart: a bar per column (per key, for weights), its value above
it at the scenario's precision, masked keys drawn as a hatched stub marked "masked" (not a bar
of 0). Signed values (scores, gradients) hang below a zero line."""

from __future__ import annotations

import numpy as np

from attn_tui.core.engine.attention import Attention
from attn_tui.core.engine.stages import KEYS
from attn_tui.core.numbers import fixed
from attn_tui.core.outputs.figures import colour_maps
from attn_tui.core.outputs.figures.heat_map import FigureError, find_stage, stage_labels
from attn_tui.core.outputs.figures.svg import Svg

MAX_BARS = 512  # a row of more columns is refused: a bar chart of it would not read
PLOT_HEIGHT = 240.0


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
    bar = max(6.0, min(48.0, 640.0 / n_cols))
    left, top = 60.0, 70.0
    zero = top + (PLOT_HEIGHT / 2 if signed else PLOT_HEIGHT)
    span = PLOT_HEIGHT / 2 if signed else PLOT_HEIGHT
    title = f"{stage.title} ({stage.key}) of row {row + 1}, {rows[row]!s}"
    svg = Svg(max(left + bar * n_cols + 40, 560.0), top + PLOT_HEIGHT + 120, title)
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
    fills = colour_maps.colours(colour_maps.positions(shown, palette, largest), palette)
    numbers = bar >= 24
    for j in range(n_cols):
        x = left + j * bar
        if masked[j]:
            svg.rect(x + 1, zero - 12, bar - 2, 12, "url(#masked)", class_="masked")
            continue
        length = abs(shown[j]) / top_value * span
        y = zero - length if shown[j] >= 0 else zero
        svg.rect(
            x + 1,
            y,
            bar - 2,
            length,
            str(fills[j]),
            class_="bar",
            data_value=repr(float(values[j])),
            stroke="#000000",
            stroke_width="0.5",
        )
        if numbers:
            above = y - 4 if shown[j] >= 0 else y + length + 12
            svg.text(
                x + bar / 2,
                above,
                fixed(float(values[j]), decimals, stage.tiny),
                size=10,
                anchor="middle",
                mono=True,
            )
    svg.line(left, zero, left + bar * n_cols, zero, "#000000")
    svg.text(left - 6, top + 8, fixed(top_value, decimals), size=10, anchor="end", mono=True)
    if bar >= 10:
        for j in range(n_cols):
            svg.text(
                left + j * bar + bar / 2,
                top + PLOT_HEIGHT + 14,
                labels[j],
                size=10,
                rotate=-45,
                anchor="end",
                longest=18,
            )
    notes = [] if numbers else ["bars too narrow for their numbers: the numbers are left out"]
    if masked.any():
        notes.append("hatched: masked (no weight; not a bar of 0)")
    for k, note in enumerate(notes):
        svg.text(12, top + PLOT_HEIGHT + 70 + 16 * k, note, size=12, longest=200)
    return svg.document()
