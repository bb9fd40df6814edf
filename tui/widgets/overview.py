"""OverviewMap: a whole weights matrix shrunk to a small heat map, two rows of blocks to a line.

The map is computed off the key path (a worker thread, see the debugger screen): until the
current numbers' map has arrived, the old one stays, and its first line says "updating…" (one
line to repaint, not the map). The visible window of the stage view is shown bright and the rest
dimmed; the selected row is marked in the right margin. Clicking (or dragging) in the map asks
to move there.
"""

from __future__ import annotations

from itertools import groupby

import numpy as np
from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.color import Color, Gradient
from textual.geometry import Region
from textual.message import Message
from textual.strip import Strip
from textual.widget import Widget

from attn_tui.core.teaching.overview import block_edges

LEVELS = 33
_DIM = 0.45  # outside the visible window, colours fade


class OverviewMap(Widget):
    """A shrunk weights map; ``show`` gives it, ``set_window`` says what is in view."""

    COMPONENT_CLASSES = {
        "overview--low",
        "overview--middle",
        "overview--high",
        "overview--marker",
        "overview--status",
    }

    DEFAULT_CSS = """
    OverviewMap {
        width: 36;
        height: 19;
        border: round $panel-lighten-2;
        border-title-color: $text-muted;
    }
    OverviewMap > .overview--status { color: $text-muted; text-style: italic; }
    """

    class Picked(Message):
        """The user clicked the map at (row, column) of the full matrix."""

        def __init__(self, view: OverviewMap, row: int, col: int) -> None:
            super().__init__()
            self.view = view
            self.row = row
            self.col = col

        @property
        def control(self) -> OverviewMap:
            return self.view

    class Resized(Message):
        """The map's room changed: it wants a map of another size."""

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.border_title = "Weights overview"
        self.border_subtitle = "brightest = most weight"
        self.stale = True
        self.small: np.ndarray | None = None
        self.shape = (0, 0)  # the full matrix's
        self.window = (0, 0, 0, 0)  # first row, last row, first column, last column (exclusive)
        self.selected_row = 0
        self._colours: list[Color] | None = None
        self._half_blocks: dict = {}  # (upper level, inside, lower level, inside) → its Style

    @property
    def wanted(self) -> tuple[int, int]:
        """How many blocks of rows and of columns the map has room for."""
        width, height = self.content_size
        return max(1, height - 1) * 2, max(1, width - 1)

    def show(self, small: np.ndarray | None, shape: tuple[int, int], stale: bool) -> None:
        """A map of block means (each band of rows scaled to its own largest block, so the map
        shows where each group of queries looks), or, stale, the old one marked updating."""
        if small is not None:
            largest = small.max(axis=1, keepdims=True)
            self.small = np.divide(small, largest, out=np.zeros_like(small), where=largest > 0)
            self.shape = shape
            self.stale = stale
            self.refresh()
        elif stale != self.stale:
            self.stale = stale
            self.refresh(Region(0, 0, self.size.width, 1))  # the status line alone

    def set_window(
        self, rows: tuple[int, int], columns: tuple[int, int], selected_row: int
    ) -> None:
        window = (*rows, *columns)
        # only the lines the old or the new window crosses look different (outside both, every
        # block stays dimmed), and the lines of the old and new ◀
        lines = set()
        if selected_row != self.selected_row:
            lines = {self._line_of(row) for row in (self.selected_row, selected_row)}
        if window != self.window:
            lines |= self._lines_crossing(self.window) | self._lines_crossing(window)
        self.window, self.selected_row = window, selected_row
        for line in lines - {None}:
            self.refresh(Region(0, line, self.size.width, 1))

    def _lines_crossing(self, window: tuple[int, int, int, int]) -> set[int]:
        """The lines (status line included) showing a block of the rows ``window`` covers."""
        if self.small is None or not self.shape[0]:
            return set()
        row_edges = self._edges()[0]
        blocks = ((y2, self._block(y2)) for y2 in range(2 * (self.content_size.height - 1)))
        return {
            1 + y2 // 2
            for y2, block in blocks
            if row_edges[block] < window[1] and row_edges[block + 1] > window[0]
        }

    def _line_of(self, row: int) -> int | None:
        """The line (status line included) where the map shows query ``row``."""
        if self.small is None or not self.shape[0]:
            return None
        height = self.content_size.height - 1
        return 1 + min(height - 1, row * 2 * height // self.shape[0] // 2) if height > 0 else None

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._colours = None
        self._half_blocks = {}

    def on_resize(self, event: events.Resize) -> None:
        if self.small is None or self.small.shape != self.wanted:
            self.post_message(self.Resized())

    def _palette(self) -> list[Color]:
        if self._colours is None:
            stops = [
                Color.from_rich_color(self.get_component_rich_style(f"overview--{name}").bgcolor)
                for name in ("low", "middle", "high")
            ]
            gradient = Gradient((0.0, stops[0]), (0.5, stops[1]), (1.0, stops[2]), quality=LEVELS)
            bright = [gradient.get_color(level / (LEVELS - 1)) for level in range(LEVELS)]
            self._colours = (bright, [colour.darken(_DIM) for colour in bright])
        return self._colours

    def _edges(self) -> tuple[np.ndarray, np.ndarray]:
        return (
            block_edges(self.shape[0], self.small.shape[0]),
            block_edges(self.shape[1], self.small.shape[1]),
        )

    def _cell(self, x: int, y2: int) -> tuple[int, int]:
        """The block under column ``x`` and half-line ``y2`` of the map (below the status line):
        a map with fewer blocks than cells (a small T) is stretched to fill the room."""
        width = self.content_size.width
        cols = self.small.shape[1]
        return self._block(y2), min(cols - 1, x * cols // max(1, width - 1))

    def _block(self, y2: int) -> int:
        """The row of blocks shown on half-line ``y2`` of the map (below the status line)."""
        rows, height = self.small.shape[0], self.content_size.height - 1
        return min(rows - 1, y2 * rows // max(1, 2 * height))

    def render_line(self, y: int) -> Strip:
        width, height = self.content_size
        if y == 0:
            if self.stale or self.small is None:
                status = "updating…"
            elif self.small.shape != tuple(self.shape):  # blocks of cells, each its mean
                status = (
                    f"{self.shape[0]}×{self.shape[1]} in "
                    f"{self.small.shape[0]}×{self.small.shape[1]} blocks"
                )
            else:
                status = "up to date"
            return Strip(
                [
                    Segment(
                        status.rjust(width - 1) + " ",
                        self.get_component_rich_style("overview--status"),
                    )
                ]
            )
        y -= 1
        height -= 1
        if self.small is None or self.small.shape[0] == 0 or y >= height:
            return Strip.blank(width)
        colours, dimmed = self._palette()
        row_edges, col_edges = self._edges()
        first_row, last_row, first_col, last_col = self.window
        cols = self.small.shape[1]
        # every column of the line at once (a map line is ~30 cells, redrawn on every step)
        columns = np.minimum(cols - 1, np.arange(max(1, width - 1)) * cols // max(1, width - 1))
        columns_in = (col_edges[columns] < last_col) & (col_edges[columns + 1] > first_col)
        halves = []
        for y2 in (2 * y, 2 * y + 1):
            block = self._block(y2)
            levels = np.rint(np.clip(self.small[block, columns], 0.0, 1.0) * (LEVELS - 1)).astype(
                int
            )
            inside = columns_in & bool(
                row_edges[block] < last_row and row_edges[block + 1] > first_row
            )
            halves.append((block, levels.tolist(), inside.tolist()))
        (upper_block, upper, upper_in), (lower_block, lower, lower_in) = halves
        styles = self._half_blocks
        segments = []
        # a segment per run of equal cells: the terminal is sent a style per segment (a model
        # view's frame was 70 KB, 59 KB of it styles, one per cell)
        for key, run in groupby(zip(upper, upper_in, lower, lower_in)):
            style = styles.get(key)
            if style is None:
                top = colours[key[0]] if key[1] else dimmed[key[0]]
                bottom = colours[key[2]] if key[3] else dimmed[key[2]]
                style = styles[key] = Style(color=top.rich_color, bgcolor=bottom.rich_color)
            segments.append(Segment("▀" * sum(1 for _ in run), style))
        marked = any(
            row_edges[block] <= self.selected_row < row_edges[block + 1]
            for block in (upper_block, lower_block)
        )
        segments.append(
            Segment("◀" if marked else " ", self.get_component_rich_style("overview--marker"))
        )
        return Strip(segments).extend_cell_length(width)

    def _pick(self, x: int, y: int) -> None:
        if self.small is None:
            return
        row_edges, col_edges = self._edges()
        block_row, block_col = self._cell(max(0, x), max(0, 2 * y))
        row = (row_edges[block_row] + row_edges[block_row + 1]) // 2
        col = (col_edges[block_col] + col_edges[block_col + 1]) // 2
        self.post_message(self.Picked(self, int(row), int(col)))

    def on_click(self, event: events.Click) -> None:
        self._pick(event.x - self.styles.gutter.left, event.y - self.styles.gutter.top - 1)

    def on_mouse_move(self, event: events.MouseMove) -> None:
        if event.button:
            self._pick(event.x - self.styles.gutter.left, event.y - self.styles.gutter.top - 1)
