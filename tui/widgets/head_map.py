"""HeadMap: one head's weights, small, in the model view's grid (an overview map whose first
line is the head's pattern score)."""

from __future__ import annotations

from rich.segment import Segment
from textual.strip import Strip

from attn_tui.tui.widgets.overview import OverviewMap


class HeadMap(OverviewMap):
    """One head's map in the grid: its first line shows the chosen score (or … while the map is
    computed) instead of the overview's status."""

    DEFAULT_CSS = """
    HeadMap { width: 100%; height: 100%; border: round $panel-lighten-2; }
    """

    def __init__(self, layer: int, head: int, **kwargs) -> None:
        super().__init__(**kwargs)
        self.grid_row, self.head = layer, head
        self.border_title = f"h{head}"
        self.border_subtitle = ""
        self.score_text = ""

    def render_line(self, y: int) -> Strip:
        if y != 0:
            return super().render_line(y)
        width = self.content_size.width
        text = self.score_text if self.small is not None or self.score_text == "unreadable" else "…"
        return Strip([Segment(text[:width].rjust(width),
                              self.get_component_rich_style("overview--status"))])
