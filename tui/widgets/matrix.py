"""MatrixView: a heat-map grid that asks its data for the window on screen, and draws only that.

The data is a :class:`~attn_tui.tui.widgets.grid.Grid`: labels, a shape, and a
``window(rows, cols)`` method; a stage of a 16,384-token scenario is never materialised, only the
few hundred cells in view. Row and column labels stay in view while the cells scroll. Column
widths and the colour scale follow the values seen (they grow, and reset when another matrix is
shown, as VisiData's columns do; measured in ``matrix_widths.py``). Cells whose value changed
since this matrix was last drawn are underlined. Every colour comes from the theme, through the
component classes below (see app.tcss), so light themes and the colour-blind-safe palette just
work.
"""

from __future__ import annotations

from typing import Hashable

import numpy as np
from rich.segment import Segment
from textual.events import Click
from textual.geometry import Region, Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

from attn_tui.core.engine.views import Window
from attn_tui.tui.heat_colours import levels
from attn_tui.tui.scrolling import set_virtual_size
from attn_tui.tui.widgets.grid import Grid, cell_text, changed_cells, row_differs
from attn_tui.tui.widgets.matrix_lines import MatrixLines
from attn_tui.tui.widgets.matrix_widths import cell_width, longest

MAX_LABEL = 12


class MatrixView(ScrollView, can_focus=False, inherit_bindings=False):
    """A matrix with token labels, drawn line by line; the cursor and marks come from outside."""

    COMPONENT_CLASSES = {
        "matrix--label",
        "matrix--label-marked",
        "matrix--masked",
        "matrix--hidden",
        "matrix--cursor",
        "matrix--editing",
        "matrix--refused",
        "matrix--low",
        "matrix--middle",
        "matrix--high",  # weights: 0 … 1
        "matrix--negative",
        "matrix--zero",
        "matrix--positive",  # scores, inputs
        "matrix--text-dark",
        "matrix--text-light",  # numbers on a cell
    }

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
        self.context: range | None = None  # the rows that exist now (a KV cache); the others faded
        self.editor: tuple[str, int, bool] | None = None  # text, caret, refused
        self.label_width = 1
        self.cell_width = 3
        self._largest = 0.0  # the colour scale of a diverging palette, as seen so far
        self._window: Window | None = None
        self.underlined: set[tuple[int, int]] = set()
        self._seen: dict[Hashable, tuple[int, Window]] = {}  # key → (version, last window drawn)
        self.lines = MatrixLines(self)
        self.texts: list[list[str]] = []  # the current window's cells, formatted once
        self.levels: np.ndarray | None = None  # and their colour buckets

    # ---- data down --------------------------------------------------------------------------

    def show(self, grid: Grid) -> None:
        """Draw a matrix (or new numbers of the same one); only the cells in view are asked for.

        New numbers of the matrix already on screen repaint only the lines whose cells changed
        (and those that lose their underline): an edit of one cell sends one line to the
        terminal, not the whole matrix."""
        old_grid, old_window, old_changed = self.grid, self._window, self.underlined
        same = old_grid is not None and grid.key == old_grid.key
        if not same:
            if old_grid is None or grid.kin is None or grid.kin != old_grid.kin:
                self.cell_width, self._largest = 3, 0.0
            self.underlined = set()
        elif grid.version != old_grid.version:
            self.underlined = set()
        self.grid = grid
        self._window = None
        self.label_width = min(MAX_LABEL, longest(grid.rows)) + 1
        width_before = self.cell_width
        # + the gap after it
        self.cell_width = max(self.cell_width, min(8, longest(grid.columns)) + 1)
        rows, columns = grid.shape
        if self.cursor is not None:
            self.cursor = (
                max(0, min(self.cursor[0], rows - 1)),
                max(0, min(self.cursor[1], columns - 1)),
            )
        self._resize_virtual()
        if same and old_window is not None and old_grid.shape == grid.shape and self.is_mounted:
            window = self.current_window()  # the new numbers in view, and what moved
            if (
                self.cell_width == width_before
                and window.rows == old_window.rows
                and window.cols == old_window.cols
            ):
                lines = {row for row, _ in self.underlined | old_changed}
                lines |= {row for row in window.rows if row_differs(old_window, window, row)}
                self._refresh_rows(lines)
                return
        if self.is_mounted and self.size:
            self.current_window()  # the cells' width now, not at render: one layout, not two
        elif self.is_attached:
            # not laid out yet: the widths of the window it will open on (top left)
            width, height = self.app.size
            self._measure(grid.window(range(min(rows, height)), range(min(columns, width // 3))))
        self.refresh()

    def _refresh_rows(self, rows) -> None:
        """Repaint the lines of these matrix rows (those in view)."""
        top = int(self.scroll_offset.y)
        width = self.size.width
        for row in rows:
            y = row - top + 1
            if 1 <= y < self.size.height:
                self.refresh(Region(0, y, width, 1))

    def _resize_virtual(self) -> None:
        rows, columns = self.grid.shape
        set_virtual_size(self, Size(self.label_width + columns * self.cell_width, rows + 1))

    def set_cursor(self, cell: tuple[int, int] | None) -> None:
        """Put the cursor on a cell (scrolling it into view), or hide it."""
        if cell != self.cursor:
            old, self.cursor = self.cursor, cell
            self._refresh_rows({c[0] for c in (old, cell) if c is not None})
        if cell is not None:
            self.scroll_to_cell(*cell)

    def set_marks(
        self, rows: frozenset[int] = frozenset(), columns: frozenset[int] = frozenset()
    ) -> None:
        """Emphasise the rows and columns a computation reads from."""
        if (rows, columns) != (self.marked_rows, self.marked_columns):
            old_rows, old_columns = self.marked_rows, self.marked_columns
            self.marked_rows, self.marked_columns = rows, columns
            if len(old_rows ^ rows) <= 32 and old_columns == columns:
                self._refresh_rows(old_rows ^ rows)
            else:
                self.refresh()

    def set_context(self, rows: range | None) -> None:
        """Draw the rows outside ``rows`` faded (None: every row as usual); only the lines that
        change are repainted (a decode step moves the cache's ends by a row)."""
        old, self.context = self.context, rows
        if rows == old:
            return
        if rows is None or old is None:
            self.refresh()
            return
        self._refresh_rows(
            [
                *range(min(old.start, rows.start), max(old.start, rows.start)),
                *range(min(old.stop, rows.stop), max(old.stop, rows.stop)),
            ]
        )

    @property
    def shape(self) -> tuple[int, int]:
        return self.grid.shape if self.grid is not None else (0, 0)

    @property
    def natural_size(self) -> tuple[int, int]:
        """The width and height that show every cell (border and scrollbar included)."""
        rows, columns = self.shape
        return self.label_width + columns * self.cell_width + 3, rows + 3

    # ---- reading what is shown (tests, the go-to box, a screen reader) -----------------------

    def cell_text(self, row: int, col: int) -> str:
        """The text a cell shows."""
        window = self.grid.window(range(row, row + 1), range(col, col + 1))
        return cell_text(window, self.grid, 0, 0)

    def row_texts(self, row: int) -> list[str]:
        window = self.grid.window(range(row, row + 1), range(self.shape[1]))
        return [cell_text(window, self.grid, 0, j) for j in range(self.shape[1])]

    @property
    def shows_cursor(self) -> bool:
        """Whether the cursor is drawn now (an editable matrix shows it only while focused)."""
        return self.cursor is not None

    def visible_window(self) -> tuple[tuple[int, int], tuple[int, int]]:
        """The rows and the whole columns in view, each as (first, last + 1)."""
        rows, columns = self.shape
        x, y = self.scroll_offset
        view_rows = max(1, self.scrollable_content_region.height - 1)
        view_width = max(1, self.scrollable_content_region.width - self.label_width)
        cell = max(1, self.cell_width)
        first_col = min(columns, -(-x // cell))  # the cells wholly in view (a cut one is blank)
        last_col = min(columns, (x + view_width) // cell)
        return (min(y, rows), min(rows, y + view_rows)), (first_col, max(first_col, last_col))

    def watch_scroll_x(self, old: float, new: float) -> None:
        super().watch_scroll_x(old, new)
        self._window = None
        self.post_message(self.Scrolled(self))

    def watch_scroll_y(self, old: float, new: float) -> None:
        super().watch_scroll_y(old, new)
        self._window = None
        self.post_message(self.Scrolled(self))

    def _size_updated(self, size, virtual_size, container_size, layout: bool = True) -> bool:
        """A new size: the window in view is asked anew in the frame this layout draws (Resize
        comes after it: a row the old height left out was drawn blank, and stayed)."""
        if size != self._size:
            self._window = None
        return super()._size_updated(size, virtual_size, container_size, layout)

    def on_resize(self) -> None:
        self._window = None

    # ---- scrolling --------------------------------------------------------------------------

    def scroll_to_cell(self, row: int, col: int) -> None:
        """Scroll just enough that the cell is in view (the labels take no scrolling)."""
        view_rows = max(1, self.scrollable_content_region.height - 1)
        view_width = max(1, self.scrollable_content_region.width - self.label_width)
        x, y = self.scroll_offset
        if row < y:
            y = row
        elif row >= y + view_rows:
            y = row - view_rows + 1
        left = col * self.cell_width
        if left < x:
            x = left
        elif left + self.cell_width > x + view_width:
            x = left + self.cell_width - view_width
        self.scroll_to(x, y, animate=False, immediate=True)

    # ---- the window on screen ---------------------------------------------------------------

    def current_window(self) -> Window | None:
        """The window in view (the cells wholly or partly visible), asked of the grid once per
        change of data, scroll or size; widths and the colour scale grow to fit it."""
        if self.grid is None:
            return None
        if self._window is not None:
            return self._window
        rows, columns = self.shape
        height = max(1, self.scrollable_content_region.height - 1)
        width = max(1, self.scrollable_content_region.width - self.label_width)
        followed = None  # whether the cursor's column was in view (then it stays in view)
        for _ in range(3):  # a wider cell than assumed shows fewer columns: ask again
            x, y = self.scroll_offset
            cell = max(1, self.cell_width)
            row_range = range(min(y, rows), min(rows, y + height))
            col_range = range(min(columns, x // cell), min(columns, (x + width) // cell + 1))
            if followed is None:
                followed = self.cursor is not None and self.cursor[1] in col_range
            window = self.grid.window(row_range, col_range)
            if not self._measure(window):
                break
            if followed:  # scrolled to with narrower cells (a step's first frame): again
                self.scroll_to_cell(*self.cursor)
        self._window = window
        self._note_changes(window)
        self.texts = [
            [cell_text(window, self.grid, i, j) for j in range(len(window.cols))]
            for i in range(len(window.rows))
        ]
        self.levels = levels(window.values, self.grid.palette, self._largest)
        return window

    def _measure(self, window: Window) -> bool:
        """Grow the cell width and the colour scale to fit the window; True if the width grew."""
        width, largest = cell_width(window, self.grid)
        self._largest = max(self._largest, largest)
        if width > self.cell_width:
            self.cell_width = width
            self._resize_virtual()
            return True
        return False

    def _note_changes(self, window: Window) -> None:
        """Underline the cells whose value differs from when this matrix was last drawn."""
        grid = self.grid
        seen = self._seen.get(grid.key)
        if seen is not None and seen[0] != grid.version:
            self.underlined = changed_cells(seen[1], window)
        self._seen[grid.key] = (grid.version, window)
        if len(self._seen) > 32:
            self._seen.pop(next(iter(self._seen)))

    @property
    def changed_cells(self) -> set[tuple[int, int]]:
        """The cells underlined now: changed since this matrix was last drawn."""
        self.current_window()
        return self.underlined

    # ---- drawing (see MatrixLines) -----------------------------------------------------------

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self.lines.forget_styles()  # the theme (or the palette) changed: take the colours anew

    def render_line(self, y: int) -> Strip:
        return self.lines.line(y)

    def editor_segments(self, room: int) -> list[Segment]:
        """The open cell editor, drawn in ``room`` cells (EditableMatrix shows a selection)."""
        return self.lines.editor(room)

    def on_focus(self) -> None:
        self.lines.forget_styles()  # :focus may change the style
        self.refresh()

    def on_blur(self) -> None:
        self.lines.forget_styles()
        self.refresh()

    # ---- mouse ------------------------------------------------------------------------------

    def on_click(self, event: Click) -> None:
        if self.grid is None:
            return
        x, y = event.x - self.styles.gutter.left, event.y - self.styles.gutter.top
        if y < 1 or x < self.label_width:
            return
        scroll_x, scroll_y = self.scroll_offset
        row = scroll_y + y - 1
        col = (scroll_x + x - self.label_width) // max(1, self.cell_width)
        rows, columns = self.shape
        if row < rows and col < columns:
            self.post_message(self.CellClicked(self, row, col))
