"""MatrixView: a heat-map grid that draws only the lines and cells on screen.

Row and column labels stay in view while the cells scroll. Colours are bucketed once per
data change (a NumPy pass), and a cell's text is formatted only when its line is drawn, so a
1024×1024 matrix costs what its visible part costs.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np
from rich.segment import Segment
from rich.style import Style
from textual.color import Color, Gradient
from textual.events import Click
from textual.geometry import Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

from core.numbers import fixed, mask_text

LEVELS = 33
MAX_LABEL = 12
PALETTES = {
    # weights: 0 → 1 on one scale (viridis' ends and middle)
    "weights": Gradient((0.0, "#2d1a4a"), (0.35, "#31688e"), (0.7, "#35b779"), (1.0, "#fde725"),
                        quality=LEVELS),
    # scores and inputs: blue below 0, neutral at 0, red above
    "diverging": Gradient((0.0, "#3b6fd0"), (0.5, "#2f2f38"), (1.0, "#d0453b"), quality=LEVELS),
}
BLOCKED = Style(color="#6c6c78", dim=True)
CHANGED = Style(bold=True, underline=True)
MARKED = Style(bold=True)
CURSOR = Style(reverse=True, bold=True)
EDITING = Style(color="#ffffff", bgcolor="#1f3d7a", bold=True)
REFUSED = Style(color="#ffffff", bgcolor="#a01c1c", bold=True)
LABEL = Style(color="#9aa4b8")
LABEL_MARKED = Style(color="#101010", bgcolor="#e0b040", bold=True)


@dataclass
class Grid:
    """What a MatrixView draws: values with labels, how many decimals, which colour scale."""

    values: np.ndarray
    rows: Sequence[str]
    columns: Sequence[str]
    decimals: int
    palette: str = "diverging"
    blocked: np.ndarray | None = None
    mask_value: float = -math.inf
    changed: np.ndarray | None = None
    hidden: np.ndarray | None = field(default=None)  # cells shown as "?" (nothing to reveal yet)


def _styles(palette: str) -> list[Style]:
    gradient = PALETTES[palette]
    styles = []
    for level in range(LEVELS):
        background: Color = gradient.get_color(level / (LEVELS - 1))
        foreground = "#101010" if background.brightness > 0.55 else "#f4f4f4"
        styles.append(Style(color=foreground, bgcolor=background.hex))
    return styles


_PALETTE_STYLES = {name: _styles(name) for name in PALETTES}


class MatrixView(ScrollView, can_focus=False, inherit_bindings=False):
    """A matrix with token labels, drawn line by line; the cursor and marks come from outside."""

    DEFAULT_CSS = """
    MatrixView {
        height: auto;
        width: auto;
        max-width: 100%;
        border: round $panel-lighten-2;
        border-title-color: $text-muted;
        scrollbar-size: 1 1;
    }
    MatrixView:focus {
        border: round $accent;
        border-title-color: $accent;
    }
    """

    class CellClicked(Message):
        """A cell was clicked (row and column in the matrix)."""

        def __init__(self, view: MatrixView, row: int, col: int) -> None:
            super().__init__()
            self.view = view
            self.row = row
            self.col = col

        @property
        def control(self) -> MatrixView:
            return self.view

    def __init__(self, title: str = "", focusable: bool = False, **kwargs) -> None:
        super().__init__(**kwargs)
        self.can_focus = focusable or type(self).can_focus
        self.border_title = title
        self.grid: Grid | None = None
        self.cursor: tuple[int, int] | None = None
        self.marked_rows: frozenset[int] = frozenset()
        self.marked_columns: frozenset[int] = frozenset()
        self._levels: np.ndarray | None = None
        self._label_width = 0
        self._cell_width = 0
        self._editor: tuple[str, int, bool] | None = None  # text, caret, refused

    # ---- data down --------------------------------------------------------------------------

    def show(self, grid: Grid) -> None:
        """Draw new values; colours are bucketed here, text is formatted only when drawn."""
        self.grid = grid
        self._levels = self._bucket(grid)
        self._label_width = min(MAX_LABEL, max((len(label) for label in grid.rows), default=1)) + 1
        self._cell_width = self._measure(grid)
        rows, columns = grid.values.shape
        self.virtual_size = Size(self._label_width + columns * self._cell_width, rows + 1)
        if self.cursor is not None:
            self.cursor = (min(self.cursor[0], rows - 1), min(self.cursor[1], columns - 1))
        self.refresh()

    def set_cursor(self, cell: tuple[int, int] | None) -> None:
        """Put the cursor on a cell (scrolling it into view), or hide it."""
        if cell != self.cursor:
            self.cursor = cell
            self.refresh()
        if cell is not None:
            self.scroll_to_cell(*cell)

    def set_marks(self, rows: frozenset[int] = frozenset(), columns: frozenset[int] = frozenset()) -> None:
        """Emphasise the rows and columns a computation reads from."""
        if (rows, columns) != (self.marked_rows, self.marked_columns):
            self.marked_rows, self.marked_columns = rows, columns
            self.refresh()

    @property
    def shape(self) -> tuple[int, int]:
        return self.grid.values.shape if self.grid is not None else (0, 0)

    def cell_text(self, row: int, col: int) -> str:
        """The text a cell shows (what a test or a screen reader would read)."""
        grid = self.grid
        if grid.hidden is not None and grid.hidden[row, col]:
            return "?"
        if grid.blocked is not None and grid.blocked[row, col]:
            return mask_text(grid.mask_value)
        return fixed(float(grid.values[row, col]), grid.decimals)

    def row_texts(self, row: int) -> list[str]:
        return [self.cell_text(row, col) for col in range(self.shape[1])]

    @property
    def shows_cursor(self) -> bool:
        """Whether the cursor is drawn now (an editable matrix shows it only while focused)."""
        return self.cursor is not None

    # ---- scrolling --------------------------------------------------------------------------

    def scroll_to_cell(self, row: int, col: int) -> None:
        """Scroll just enough that the cell is in view (the labels take no scrolling)."""
        view_rows = max(1, self.scrollable_content_region.height - 1)
        view_width = max(1, self.scrollable_content_region.width - self._label_width)
        x, y = self.scroll_offset
        if row < y:
            y = row
        elif row >= y + view_rows:
            y = row - view_rows + 1
        left = col * self._cell_width
        if left < x:
            x = left
        elif left + self._cell_width > x + view_width:
            x = left + self._cell_width - view_width
        self.scroll_to(x, y, animate=False, immediate=True)

    # ---- drawing ----------------------------------------------------------------------------

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        grid = self.grid
        if grid is None:
            return Strip.blank(width)
        scroll_x, scroll_y = self.scroll_offset
        if y == 0:
            return self._header(scroll_x, width)
        row = scroll_y + y - 1
        if row >= grid.values.shape[0]:
            return Strip.blank(width)
        label = grid.rows[row]
        label = label if len(label) < self._label_width else label[: self._label_width - 2] + "…"
        label_style = LABEL_MARKED if row in self.marked_rows else LABEL
        segments = [Segment(label.ljust(self._label_width - 1), label_style), Segment(" ")]
        cells = self._cells(row, scroll_x, width - self._label_width)
        return Strip(segments + cells).extend_cell_length(width).crop(0, width)

    def _header(self, scroll_x: int, width: int) -> Strip:
        grid = self.grid
        first, last, offset = self._visible_columns(scroll_x, width - self._label_width)
        segments = []
        for col in range(first, last):
            text = grid.columns[col][: self._cell_width - 1].rjust(self._cell_width - 1) + " "
            style = LABEL_MARKED if col in self.marked_columns else LABEL
            segments.append(Segment(text, style))
        cells = Strip(segments).crop(offset, offset + max(0, width - self._label_width))
        return Strip([Segment(" " * self._label_width), *cells]).extend_cell_length(width)

    def _cells(self, row: int, scroll_x: int, width: int) -> list[Segment]:
        grid = self.grid
        first, last, offset = self._visible_columns(scroll_x, width)
        styles = _PALETTE_STYLES[grid.palette]
        levels = self._levels[row]
        segments = []
        for col in range(first, last):
            text = self.cell_text(row, col)
            level = levels[col]
            style = BLOCKED if level < 0 else styles[level]
            if grid.changed is not None and grid.changed[row, col]:
                style += CHANGED
            if row in self.marked_rows or col in self.marked_columns:
                style += MARKED
            if self.cursor == (row, col) and self.shows_cursor:
                if self._editor is not None:
                    segments.extend(self._editor_segments())
                    continue
                style += CURSOR
            segments.append(Segment(" " + text.rjust(self._cell_width - 2) + " ", style))
        return list(Strip(segments).crop(offset, offset + max(0, width)))

    def _editor_segments(self) -> list[Segment]:
        text, caret, refused = self._editor
        room = self._cell_width - 1
        start = max(0, caret - room + 1)
        visible = (text + " ")[start:start + room].ljust(room)
        index = caret - start
        style = REFUSED if refused else EDITING
        # the caret is drawn by hand (reversed), so nothing blinks and snapshots stay stable
        return [Segment(" " + visible[:index], style),
                Segment(visible[index], style + Style(reverse=True)),
                Segment(visible[index + 1:], style)]

    def _visible_columns(self, scroll_x: int, width: int) -> tuple[int, int, int]:
        columns = self.shape[1]
        cell = max(1, self._cell_width)
        first = min(columns, scroll_x // cell)
        last = min(columns, (scroll_x + width) // cell + 1)
        return first, last, scroll_x - first * cell

    def _measure(self, grid: Grid) -> int:
        finite = grid.values[np.isfinite(grid.values)]
        samples = [fixed(float(v), grid.decimals) for v in (finite.min(), finite.max())] if finite.size else []
        if grid.blocked is not None and grid.blocked.any():
            samples.append(mask_text(grid.mask_value))
        longest = max([len(text) for text in samples] + [min(8, len(c)) for c in grid.columns] + [1])
        return longest + 2

    @staticmethod
    def _bucket(grid: Grid) -> np.ndarray:
        values = grid.values
        with np.errstate(invalid="ignore"):
            if grid.palette == "weights":
                position = np.clip(values, 0.0, 1.0)
            else:
                finite = np.abs(values[np.isfinite(values)])
                scale = finite.max() if finite.size and finite.max() > 0 else 1.0
                position = (np.clip(values / scale, -1.0, 1.0) + 1.0) / 2.0
            levels = np.rint(np.nan_to_num(position, nan=0.5) * (LEVELS - 1)).astype(np.int16)
        if grid.blocked is not None:
            levels[grid.blocked] = -1
        return levels

    def on_focus(self) -> None:
        self.refresh()

    def on_blur(self) -> None:
        self.refresh()

    # ---- mouse ------------------------------------------------------------------------------

    def on_click(self, event: Click) -> None:
        if self.grid is None:
            return
        x, y = event.x - self.styles.gutter.left, event.y - self.styles.gutter.top
        if y < 1 or x < self._label_width:
            return
        scroll_x, scroll_y = self.scroll_offset
        row = scroll_y + y - 1
        col = (scroll_x + x - self._label_width) // max(1, self._cell_width)
        rows, columns = self.shape
        if row < rows and col < columns:
            self.post_message(self.CellClicked(self, row, col))
