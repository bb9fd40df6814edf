"""Scrolling a line-drawing view without a layout of the screen: Textual lays the screen out
again whenever a scrollable size changes; a matrix whose size changes but whose scrollbars do
not need not pay for that on every key."""

from __future__ import annotations

from textual.geometry import Size
from textual.scroll_view import ScrollView


def set_virtual_size(view: ScrollView, size: Size) -> None:
    """Give a line-drawing view a new scrollable size, redoing the screen's layout only when
    the view's own size may change with it (a scrollbar coming or going, or an auto height or
    width that follows the content): new numbers on every key then repaint that view alone."""
    old = view.virtual_size
    if size == old:
        return
    region = view.scrollable_content_region
    styles = view.styles  # a scrollbar that is always there (or never) cannot come or go
    bars_stay = (
        styles.overflow_x != "auto" or (size.width > region.width) == (old.width > region.width)
    ) and (
        styles.overflow_y != "auto" or (size.height > region.height) == (old.height > region.height)
    )
    height, width = view.styles.height, view.styles.width
    follows = (height is not None and height.is_auto and size.height != old.height) or (
        width is not None and width.is_auto and size.width != old.width
    )
    if bars_stay and not follows and view.is_mounted:
        view.set_reactive(ScrollView.virtual_size, size)
        update_scrollbars(view, size)
        view.refresh()
    else:
        view.virtual_size = size


def update_scrollbars(view: ScrollView, size: Size) -> None:
    """What a layout does for the scrollbars (Textual's ``_scroll_update``), without one, and
    repainting only a bar whose numbers changed: a stage with as many rows as the last but other
    columns leaves the vertical bar as it was."""
    width, height = view.container_size
    if view.show_vertical_scrollbar and view.styles.scrollbar_size_vertical:
        bar = view.vertical_scrollbar  # its reactives repaint it when they change
        bar.window_virtual_size = size.height
        bar.window_size = height - view.scrollbar_size_horizontal
    if view.show_horizontal_scrollbar and view.styles.scrollbar_size_horizontal:
        bar = view.horizontal_scrollbar
        bar.window_virtual_size = size.width
        bar.window_size = width - view.scrollbar_size_vertical
    view.scroll_x = view.validate_scroll_x(view.scroll_x)
    view.scroll_y = view.validate_scroll_y(view.scroll_y)
