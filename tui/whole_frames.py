"""One key, one frame: every widget a key changed is in the frame that shows the key.

Textual hears of a widget's refresh when that widget's own message loop next idles, and draws a
frame as soon as its screen has heard of one: a widget told last could miss the frame and come
one later (a lesson's beat drew its narration bar ~40 ms after the rest). A screen that mixes in
:class:`WholeFrames` collects, whenever it idles, the refreshes its widgets were asked for, so
the frame it draws next holds them all.
"""

from __future__ import annotations

from textual.widget import Widget


class WholeFrames:
    """A Screen mixin (before ``Screen`` in the bases): its frames hold every refresh asked so far."""

    def on_idle(self) -> None:
        collect_refreshes(self)


def collect_refreshes(screen) -> None:
    """Pass every refresh the screen's widgets were asked for to the screen now (each is then
    in its queue before the frame is drawn), not when each widget's loop gets to it."""
    for widget in screen.walk_children(Widget, with_self=False):
        # (Textual's own flags and check, which the widget's idle would run: Widget._check_refresh)
        if widget._repaint_required or widget._layout_required or widget._scroll_required:
            widget._check_refresh()
