"""HeadMap: one head's weights, small, in the model view's grid (an overview map whose first
line is the head's pattern score)."""

from __future__ import annotations

from rich.segment import Segment
from textual.strip import Strip

from attn_tui.core.text import visible
from attn_tui.tui.widgets.overview import OverviewMap

NAME_WIDTH = 12  # characters of a head's own name in its title


def short_head_name(name: str) -> str:
    """A head's title as the layer names it: "head 3" as h3 (the number as the layer counts,
    from 0 in a capture, from 1 in a scenario written by hand, as `heads` and the debugger
    show it), any other name made visible and cut with "…"."""
    number = name.removeprefix("head ")
    if number != name and number.isdigit():
        return f"h{number}"
    shown = visible(name)
    return shown if len(shown) <= NAME_WIDTH else shown[: NAME_WIDTH - 1] + "…"


class HeadMap(OverviewMap):
    """One head's map in the grid: its first line shows the chosen score (or … while the map is
    computed) instead of the overview's status."""

    DEFAULT_CSS = """
    HeadMap { width: 100%; height: 100%; border: round $panel-lighten-2; }
    """

    def __init__(self, layer: int, head: int, **kwargs) -> None:
        super().__init__(**kwargs)
        self.grid_row, self.head = layer, head
        self.border_title = f"h{head}"  # (until the layer is read: its own names, short_head_name)
        self.border_subtitle = ""
        self.score_text = ""

    def render_line(self, y: int) -> Strip:
        if y != 0:
            return super().render_line(y)
        width = self.content_size.width
        text = self.score_text if self.small is not None or self.score_text == "unreadable" else "…"
        return Strip(
            [Segment(text[:width].rjust(width), self.get_component_rich_style("overview--status"))]
        )
