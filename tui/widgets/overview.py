"""OverviewMap: the whole T×T weights shrunk to a small heat map, two rows to a line.

The visible window of the stage view is shown bright and the rest dimmed; the selected row is
marked in the right margin. Clicking (or dragging) in the map asks to move there.
"""

from __future__ import annotations

import numpy as np
from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.message import Message
from textual.strip import Strip
from textual.widget import Widget

from attn_tui.core.overview import block_edges, downsample
from attn_tui.tui.widgets.matrix import LEVELS, PALETTES

_COLOURS = [PALETTES["weights"].get_color(level / (LEVELS - 1)) for level in range(LEVELS)]
_DIM = 0.45  # outside the visible window, colours fade towards black


class OverviewMap(Widget):
    """A downsampled weights map; ``show`` gives the weights, ``set_window`` what is in view."""

    DEFAULT_CSS = """
    OverviewMap {
        width: 36;
        height: 18;
        border: round $panel-lighten-2;
        border-title-color: $text-muted;
    }
    """

    class Picked(Message):
        """The user clicked the map at (row, column) of the full matrix."""

        def __init__(self, row: int, col: int) -> None:
            super().__init__()
            self.row = row
            self.col = col

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.border_title = "Weights overview"
        self.border_subtitle = "each band of rows: brightest = most weight"
        self.weights: np.ndarray | None = None
        self.small: np.ndarray | None = None
        self.window = (0, 0, 0, 0)  # first row, last row, first column, last column (exclusive)
        self.selected_row = 0

    def show(self, weights: np.ndarray) -> None:
        self.weights = weights
        self._shrink()
        self.refresh()

    def set_window(self, rows: tuple[int, int], columns: tuple[int, int], selected_row: int) -> None:
        window = (*rows, *columns)
        if (window, selected_row) != (self.window, self.selected_row):
            self.window, self.selected_row = window, selected_row
            self.refresh()

    def on_resize(self, event: events.Resize) -> None:
        self._shrink()
        self.refresh()

    def _shrink(self) -> None:
        if self.weights is None:
            return
        width, height = self.content_size
        small = downsample(self.weights, max(1, height) * 2, max(1, width - 1))
        # block means of T weights are about 1/T, and early causal rows hold far more weight
        # than late ones: scale each band of rows to its own largest block, so the map shows
        # where each group of queries looks
        largest = small.max(axis=1, keepdims=True)
        self.small = np.divide(small, largest, out=np.zeros_like(small), where=largest > 0)

    def _edges(self) -> tuple[np.ndarray, np.ndarray]:
        return (block_edges(self.weights.shape[0], self.small.shape[0]),
                block_edges(self.weights.shape[1], self.small.shape[1]))

    def render_line(self, y: int) -> Strip:
        width = self.content_size.width
        if self.small is None or self.small.shape[0] == 0:
            return Strip.blank(width)
        row_edges, col_edges = self._edges()
        top, bottom = 2 * y, 2 * y + 1
        if top >= self.small.shape[0]:
            return Strip.blank(width)
        first_row, last_row, first_col, last_col = self.window
        segments = []
        for col in range(self.small.shape[1]):
            in_cols = col_edges[col] < last_col and col_edges[col + 1] > first_col
            colours = []
            for block in (top, bottom):
                if block >= self.small.shape[0]:
                    colours.append(None)
                    continue
                colour = _COLOURS[int(round(min(1.0, max(0.0, self.small[block, col])) * (LEVELS - 1)))]
                inside = in_cols and row_edges[block] < last_row and row_edges[block + 1] > first_row
                colours.append(colour if inside else colour.darken(_DIM))
            upper, lower = colours
            style = Style(color=upper.rich_color, bgcolor=lower.rich_color if lower else None)
            segments.append(Segment("▀", style))
        marked = any(row_edges[block] <= self.selected_row < row_edges[block + 1]
                     for block in (top, bottom) if block < self.small.shape[0])
        segments.append(Segment("◀" if marked else " ", Style(color="#e0b040", bold=True)))
        return Strip(segments).extend_cell_length(width)

    def _pick(self, x: int, y: int) -> None:
        if self.small is None:
            return
        row_edges, col_edges = self._edges()
        block_row = min(self.small.shape[0] - 1, max(0, 2 * y))
        block_col = min(self.small.shape[1] - 1, max(0, x))
        row = (row_edges[block_row] + row_edges[block_row + 1]) // 2
        col = (col_edges[block_col] + col_edges[block_col + 1]) // 2
        self.post_message(self.Picked(int(row), int(col)))

    def on_click(self, event: events.Click) -> None:
        self._pick(event.x - self.styles.gutter.left, event.y - self.styles.gutter.top)

    def on_mouse_move(self, event: events.MouseMove) -> None:
        if event.button:
            self._pick(event.x - self.styles.gutter.left, event.y - self.styles.gutter.top)
