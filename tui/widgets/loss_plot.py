"""LossPlot: a training run's loss against its steps, with axes, drawn line by line.

An area chart in eighths of a cell (▁ … █), one column of the plot a span of steps drawn at the
largest loss in its span (a spike of one step is drawn, not stepped over, so the axis never
tops at a loss no column shows): the y axis from 0 to ``top`` (runs side by
side share it, so their heights compare), the x axis from step 0 to the run's last step. No
plotting library: a chart this size is forty lines of our own, and textual-plotext would be a
fourth runtime dependency for one view (Textual's Sparkline has no axes, and a loss means little
without its scale).
"""

from __future__ import annotations

import math

from rich.segment import Segment
from textual.strip import Strip
from textual.widget import Widget

from attn_tui.core.numbers import fixed

EIGHTHS = " ▁▂▃▄▅▆▇█"


class LossPlot(Widget):
    COMPONENT_CLASSES = {"loss-plot--area", "loss-plot--axis"}
    DEFAULT_CSS = """
    LossPlot { height: 8; }
    LossPlot > .loss-plot--area { color: $text-success; }
    LossPlot > .loss-plot--axis { color: $text-muted; }
    """

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.losses: list[float] = []
        self.top = 1.0
        self.steps = 1

    def show(self, losses: list[float], top: float, steps: int) -> None:
        """The losses so far (step 0 first), the y axis's top, and the run's last step."""
        self.losses, self.top, self.steps = list(losses), top if top > 0 else 1.0, max(1, steps)
        self.refresh()

    def heights(self, width: int) -> list[float | None]:
        """Each plot column's largest loss over its span of steps, as a fraction of the top (None:
        not reached yet). Column c ends at step round(c · steps / (width − 1)) and starts after the
        step the column before it ends at (a column narrower than a step shows its one step)."""
        found: list[float | None] = []
        end = -1
        for c in range(width):
            start, end = end + 1, round(c * self.steps / max(1, width - 1))
            span = self.losses[min(start, end) : end + 1]
            # (NaN, a loss that overflowed, is left out of a span's largest: max() would keep
            # it or not by where it stands)
            found.append(
                max((loss for loss in span if not math.isnan(loss)), default=0.0) / self.top
                if span
                else None
            )
        return found

    def labels(self) -> tuple[str, str]:
        """The y axis's labels: its top and its middle."""
        return fixed(self.top, 3, True), fixed(self.top / 2, 3, True)

    def render_line(self, y: int) -> Strip:
        width, height = self.size.width, self.size.height
        area, axis = (
            self.get_component_rich_style(f"loss-plot--{name}") for name in ("area", "axis")
        )
        top_label, half_label = self.labels()
        margin = max(len(top_label), len(half_label), 3) + 2  # the labels and the axis itself
        plot = max(1, width - margin)
        rows = max(1, height - 2)
        if y == height - 1:  # the steps under the axis
            last = str(self.steps)
            middle = "step"
            gap = max(1, plot - 1 - len(last) - len(middle))
            text = " " * margin + "0" + " " * (gap // 2) + middle + " " * (gap - gap // 2) + last
            return Strip([Segment(text[:width].ljust(width), axis)])
        if y == height - 2:
            return Strip([Segment(fixed(0.0, 1).rjust(margin - 2) + " └" + "─" * (plot - 1), axis)])
        label = top_label if y == 0 else half_label if y == rows // 2 else ""
        cells = []
        level = rows - y  # this line covers (level − 1, level] eighths × 8 of the height
        for fraction in self.heights(plot - 1):
            if fraction is None:
                cells.append(" ")
                continue
            eighths = round(min(1.0, max(0.0, fraction)) * rows * 8) - (level - 1) * 8
            cells.append(EIGHTHS[max(0, min(8, eighths))])
        return Strip([Segment(label.rjust(margin - 2) + " │", axis), Segment("".join(cells), area)])
