"""MatrixView: a heat-map grid that draws only the lines and cells on screen.

Row and column labels stay in view while the cells scroll. Colours are bucketed once per
data change (a NumPy pass), and a cell's text is formatted only when its line is drawn, so a
1024×1024 matrix costs what its visible part costs.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
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

from attn_tui.core.numbers import LARGE, fixed, mask_text

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
HIDDEN = Style(color="#c8c8d0", bgcolor="#3a3a48")  # no heat colour: it would give the value away
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
    tiny: bool = False  # show a non-zero value that rounds to 0 with an exponent (inputs, scores)
    hidden: np.ndarray | None = None  # cells not to show yet (a stage the student predicts)
    predicted: np.ndarray | None = None  # the student's guesses (NaN: none), shown while hidden
    verdict: np.ndarray | None = None  # per cell 0 nothing, 1 ✓ (theirs matches), 2 ✗


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

    class Scrolled(Message):
        """The visible part of the matrix moved (by keys, the wheel or a scrollbar)."""

        def __init__(self, view: MatrixView) -> None:
            super().__init__()
            self.view = view

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
        self._colour_scale = 1.0
        self._extremes = (np.inf, -np.inf)
        self._label_width = 0
        self._cell_width = 0
        self._editor: tuple[str, int, bool] | None = None  # text, caret, refused

    # ---- data down --------------------------------------------------------------------------

    def show(self, grid: Grid) -> None:
        """Draw new values; a cell's colour and text are worked out only when it is drawn."""
        self.grid = grid
        self._extremes = self._finite_extremes(grid.values)
        self._colour_scale = self._scale(grid)
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
            guess = float("nan") if grid.predicted is None else float(grid.predicted[row, col])
            return "?" if guess != guess else f"{fixed(guess, grid.decimals, True)}?"
        if grid.blocked is not None and grid.blocked[row, col]:
            return mask_text(grid.mask_value)
        text = fixed(float(grid.values[row, col]), grid.decimals, grid.tiny)
        if grid.verdict is not None and grid.verdict[row, col]:
            text += "✓" if grid.verdict[row, col] == 1 else "✗"
        return text

    def row_texts(self, row: int) -> list[str]:
        return [self.cell_text(row, col) for col in range(self.shape[1])]

    @property
    def shows_cursor(self) -> bool:
        """Whether the cursor is drawn now (an editable matrix shows it only while focused)."""
        return self.cursor is not None

    def visible_window(self) -> tuple[tuple[int, int], tuple[int, int]]:
        """The rows and the whole columns in view, each as (first, last + 1)."""
        rows, columns = self.shape
        x, y = self.scroll_offset
        view_rows = max(1, self.scrollable_content_region.height - 1)
        view_width = max(1, self.scrollable_content_region.width - self._label_width)
        cell = max(1, self._cell_width)
        first_col = min(columns, -(-x // cell))  # the cells wholly in view (a cut one is blank)
        last_col = min(columns, (x + view_width) // cell)
        return (y, min(rows, y + view_rows)), (first_col, max(first_col, last_col))

    def watch_scroll_x(self, old: float, new: float) -> None:
        super().watch_scroll_x(old, new)
        self.post_message(self.Scrolled(self))

    def watch_scroll_y(self, old: float, new: float) -> None:
        super().watch_scroll_y(old, new)
        self.post_message(self.Scrolled(self))

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
        data_width = max(0, width - self._label_width)
        first, last, offset = self._visible_columns(scroll_x, data_width)
        cell_width = self._cell_width
        segments = []
        for col in range(first, last):
            x = col * cell_width
            if x < scroll_x or x + cell_width > scroll_x + data_width:  # cut by an edge: blank
                segments.append(Segment(" " * cell_width))
                continue
            text = grid.columns[col][: cell_width - 1].rjust(cell_width - 1) + " "
            style = LABEL_MARKED if col in self.marked_columns else LABEL
            segments.append(Segment(text, style))
        cells = Strip(segments).crop(offset, offset + data_width)
        return Strip([Segment(" " * self._label_width), *cells]).extend_cell_length(width)

    def _cells(self, row: int, scroll_x: int, width: int) -> list[Segment]:
        grid = self.grid
        first, last, offset = self._visible_columns(scroll_x, width)
        styles = _PALETTE_STYLES[grid.palette]
        cell_width = self._cell_width
        covered = -1  # an open editor may run over the cells to its right, up to here
        segments = []
        for col in range(first, last):
            x = col * cell_width
            if x + cell_width <= covered:
                continue
            if x < scroll_x or x + cell_width > scroll_x + width:
                # a cell cut by the edge would show a misleading part of a number ("48" for
                # 0.248): leave its room blank instead
                segments.append(Segment(" " * cell_width))
                continue
            if self.cursor == (row, col) and self.shows_cursor and self._editor is not None:
                room = max(cell_width, min(len(self._editor[0]) + 3, scroll_x + width - x))
                segments.extend(self._editor_segments(room))
                covered = x + room
                continue
            text = " " + self.cell_text(row, col).rjust(cell_width - 2) + " "
            level = self._level(row, col)
            style = BLOCKED if level == -1 else HIDDEN if level == -2 else styles[level]
            if grid.changed is not None and grid.changed[row, col]:
                style += CHANGED
            if row in self.marked_rows or col in self.marked_columns:
                style += MARKED
            if self.cursor == (row, col) and self.shows_cursor:
                style += CURSOR
            segments.append(Segment(text[max(0, covered - x):], style))
        return list(Strip(segments).crop(offset, offset + max(0, width)))

    def _editor_segments(self, room: int) -> list[Segment]:
        text, caret, refused = self._editor
        room -= 1
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
        """The cell width: the widest text any value can take (the extremes written with an
        exponent, the widest below 1e7 written out, a tiny one), a masked cell, the labels."""
        values = grid.values
        low, high = self._extremes
        samples = []
        if low <= high:
            extremes = [low, high]
            if max(abs(low), abs(high)) >= LARGE:
                ordinary = np.isfinite(values) & (np.abs(values) < LARGE)
                if ordinary.any():
                    extremes += [np.min(values, where=ordinary, initial=np.inf),
                                 np.max(values, where=ordinary, initial=-np.inf)]
            samples = [fixed(float(v), grid.decimals, grid.tiny) for v in extremes]
            if grid.tiny and np.any((values != 0) & (np.abs(values) < 10.0 ** -grid.decimals)):
                samples.append(fixed(-0.4 * 10.0 ** -grid.decimals, grid.decimals, True))
        if grid.blocked is not None and grid.blocked.any():
            samples.append(mask_text(grid.mask_value))
        if grid.verdict is not None or grid.hidden is not None:  # room for a ✓, ✗ or ?
            samples = [text + "?" for text in samples]
        longest = max([len(text) for text in samples] + [min(8, len(c)) for c in grid.columns] + [1])
        return longest + 2

    @staticmethod
    def _finite_extremes(values: np.ndarray) -> tuple[float, float]:
        """The smallest and largest finite values ((inf, -inf) if none): two quick passes,
        and the slower masked ones only when a −∞ (a masked cell) is in the way."""
        low, high = float(values.min()), float(values.max())
        if np.isfinite(low) and np.isfinite(high):
            return low, high
        finite = np.isfinite(values)
        return (float(np.min(values, where=finite, initial=np.inf)),
                float(np.max(values, where=finite, initial=-np.inf)))

    def _scale(self, grid: Grid) -> float:
        """What maps to the ends of the colour scale: 1 for weights, else the largest |value|."""
        if grid.palette == "weights":
            return 1.0
        low, high = self._extremes
        largest = max(abs(low), abs(high)) if low <= high else 0.0
        return largest if largest > 0 else 1.0

    def _level(self, row: int, col: int) -> int:
        """The colour bucket of one cell, -1 for a masked one, -2 for one not to show yet."""
        grid = self.grid
        if grid.hidden is not None and grid.hidden[row, col]:
            return -2
        if grid.blocked is not None and grid.blocked[row, col]:
            return -1
        value = float(grid.values[row, col])
        if grid.palette == "weights":
            position = min(1.0, max(0.0, value))
        else:
            position = (min(1.0, max(-1.0, value / self._colour_scale)) + 1.0) / 2.0
        return int(round(position * (LEVELS - 1)))

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
