"""How a MatrixView's lines are drawn: the column labels, each row's label and cells (heat
colours, masked and hidden cells, the cursor, an open cell editor, the cells that changed
underlined), with every style taken from the theme once per change of styles."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip

from attn_tui.core.engine.views import Window
from attn_tui.core.text import fit
from attn_tui.tui.heat_colours import heat_styles

if TYPE_CHECKING:
    from attn_tui.tui.widgets.matrix import MatrixView

CHANGED = Style(bold=True, underline=True)  # a cell that changed since it was last drawn
BOLD = Style(bold=True)  # a cell in the marked row or column


class MatrixLines:
    """The drawing of one MatrixView (its ``render_line``)."""

    def __init__(self, view: MatrixView) -> None:
        self.view = view
        self._styles: dict[str, list[Style]] = {}  # palette name → its heat styles
        self._components: dict[tuple[str, bool], Style] = {}  # component class → its style
        self._base: Style | None = None

    def forget_styles(self) -> None:
        """The theme, the palette or :focus changed: take every style anew."""
        self._styles, self._components, self._base = {}, {}, None

    def component_style(self, name: str, partial: bool = False):
        """A component class's rich style, taken once per change of styles: Textual works it
        out anew (walking the DOM for the background) at every ask, four times a line."""
        style = self._components.get((name, partial))
        if style is None:
            style = self._components[name, partial] = self.view.get_component_rich_style(
                name, partial=partial
            )
        return style

    @property
    def base_style(self):
        """The widget's own style (its background), for blanks: ``rich_style`` walks the DOM
        each time it is asked, so it is asked once per change of styles."""
        if self._base is None:
            self._base = self.view.rich_style
        return self._base

    def palette(self, name: str) -> list[Style]:
        if name not in self._styles:
            self._styles[name] = heat_styles(self.view, name)
        return self._styles[name]

    def line(self, y: int) -> Strip:
        """Line ``y`` of the view: the column labels (0), or a row's label and its cells."""
        view = self.view
        width = view.scrollable_content_region.width
        base = self.base_style
        window = view.current_window()
        if window is None:
            return Strip.blank(width, base)
        scroll_x, scroll_y = view.scroll_offset
        if y == 0:
            return self._header(scroll_x, width)
        row = scroll_y + y - 1
        if row >= view.shape[0] or row not in window.rows:
            return Strip.blank(width, base)
        label = fit(
            view.grid.rows[row], view.label_width - 1, left=True
        )  # whole clusters, in cells
        label_style = self.component_style(
            "matrix--label-marked" if row in view.marked_rows else "matrix--label"
        )
        segments = [Segment(label, label_style), Segment(" ", base)]
        cells = self._cells(window, row, scroll_x, width - view.label_width)
        return Strip(segments + cells).extend_cell_length(width, base).crop(0, width)

    def _header(self, scroll_x: int, width: int) -> Strip:
        view = self.view
        grid = view.grid
        data_width = max(0, width - view.label_width)
        first, last, offset = self._visible_columns(scroll_x, data_width)
        cell_width = view.cell_width
        plain = self.component_style("matrix--label")
        marked = self.component_style("matrix--label-marked")
        segments = []
        for col in range(first, last):
            x = col * cell_width
            if x < scroll_x or x + cell_width > scroll_x + data_width:  # cut by an edge: blank
                segments.append(Segment(" " * cell_width, plain))
                continue
            text = fit(grid.columns[col], cell_width - 1) + " "
            segments.append(Segment(text, marked if col in view.marked_columns else plain))
        cells = Strip(segments).crop(offset, offset + data_width)
        return Strip([Segment(" " * view.label_width, plain), *cells]).extend_cell_length(
            width, self.base_style
        )

    def _cells(self, window: Window, row: int, scroll_x: int, width: int) -> list[Segment]:
        view = self.view
        grid = view.grid
        first, last, offset = self._visible_columns(scroll_x, width)
        styles = self.palette(grid.palette)
        masked = self.component_style("matrix--masked")
        hidden = self.component_style("matrix--hidden")
        cursor = self.component_style("matrix--cursor", partial=True)
        cell_width = view.cell_width
        i = row - window.rows.start
        row_empty = window.empty is not None and window.empty[i]
        outside = view.context is not None and row not in view.context
        covered = -1  # an open editor may run over the cells to its right, up to here
        segments = []
        for col in range(first, last):
            x = col * cell_width
            if x + cell_width <= covered:
                continue
            if x < scroll_x or x + cell_width > scroll_x + width or col not in window.cols:
                # a cell cut by the edge would show a misleading part of a number ("48" for
                # 0.248): leave its room blank instead
                segments.append(Segment(" " * cell_width, self.base_style))
                continue
            j = col - window.cols.start
            if covered > x:  # the editor runs into this cell: the rest of it stays blank, not "330"
                segments.append(Segment(" " * (x + cell_width - covered), self.base_style))
                continue
            if view.cursor == (row, col) and view.shows_cursor and view.editor is not None:
                room = max(cell_width, min(len(view.editor[0]) + 3, scroll_x + width - x))
                segments.extend(view.editor_segments(room))
                covered = x + room
                continue
            text = " " + view.texts[i][j].rjust(cell_width - 2) + " "
            if row_empty or (window.blocked is not None and window.blocked[i, j]) or outside:
                style = masked
            elif window.hidden is not None and window.hidden[i, j]:
                style = hidden
            else:
                style = styles[view.levels[i, j]]
            if (row, col) in view.underlined:
                style += CHANGED
            if row in view.marked_rows or col in view.marked_columns:
                style += BOLD
            if view.cursor == (row, col) and view.shows_cursor:
                style += cursor
            segments.append(Segment(text, style))
        return list(Strip(segments).crop(offset, offset + max(0, width)))

    def editor(self, room: int) -> list[Segment]:
        """An open cell editor in ``room`` cells: its text, the caret drawn reversed."""
        text, caret, refused = self.view.editor
        room -= 1
        start = max(0, caret - room + 1)
        visible = (text + " ")[start : start + room].ljust(room)
        index = caret - start
        style = self.view.get_component_rich_style(
            "matrix--refused" if refused else "matrix--editing"
        )
        # the caret is drawn by hand (reversed), so nothing blinks and snapshots stay stable
        return [
            Segment(" " + visible[:index], style),
            Segment(visible[index], style + Style(reverse=True)),
            Segment(visible[index + 1 :], style),
        ]

    def _visible_columns(self, scroll_x: int, width: int) -> tuple[int, int, int]:
        view = self.view
        columns = view.shape[1]
        cell = max(1, view.cell_width)
        first = min(columns, scroll_x // cell)
        last = min(columns, (scroll_x + width) // cell + 1)
        return first, last, scroll_x - first * cell
