"""One key, one frame: every widget a key changed is in the frame that shows the key.

Textual hears of a widget's refresh when that widget's own message loop next idles, and draws a
frame as soon as its screen has heard of one: a widget told last could miss the frame and come
one later (a lesson's beat drew its narration bar ~40 ms after the rest). A screen that mixes in
:class:`WholeFrames` collects, whenever it idles, the refreshes its widgets were asked for, so
the frame it draws next holds them all. A layout asks for more as it goes (a matrix's scroll
bars, told its new size): those are drawn in the frame that lays out, not in one ~30 ms later.
"""

from __future__ import annotations

from textual.widget import Widget


class WholeFrames:
    """A Screen mixin (before ``Screen`` in the bases): its frames hold every refresh asked so
    far."""

    def on_idle(self) -> None:
        collect_refreshes(self)

    def _compositor_refresh(self) -> None:
        """Textual's frame, with the repaints its layout asked for (see :func:`repaint_now`)."""
        repaint_now(self)
        super()._compositor_refresh()


def collect_refreshes(screen) -> None:
    """Pass every refresh the screen's widgets were asked for to the screen now (each is then
    in its queue before the frame is drawn), not when each widget's loop gets to it."""
    for widget in screen.walk_children(Widget, with_self=False):
        # (Textual's own flags and check, which the widget's idle would run: Widget._check_refresh)
        if widget._repaint_required or widget._layout_required or widget._scroll_required:
            widget._check_refresh()


def repaint_now(screen) -> None:
    """Put the visible widgets that ask for a repaint into the frame about to be drawn, as the
    screen does with each Update message (Screen._on_update) and its layout (update_widgets)."""
    compositor = screen._compositor
    asking = {widget for widget in compositor.visible_widgets if widget._repaint_required}
    if asking:
        for widget in asking:
            widget._repaint_required = False  # (its idle would send the Update: a second frame)
        screen._dirty_widgets.update(asking)
        compositor.update_widgets(asking)
