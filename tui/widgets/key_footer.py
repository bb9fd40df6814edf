"""KeyFooter: Textual's Footer, fitted to the terminal's width, so that the keys a person needs
stay in view at every size the app supports (issue 23: at 80×24 it had lost Save and Quit).

The footer shows the screen's bindings in their order, and a narrow terminal cuts the ones at
the end: the debugger puts Help, Save and Quit first (``tui.keys.screen_bindings``). Under 100
columns the footer is compact (less space between keys); under 50, ctrl+p's entry goes too (the
key still works, and help lists it), which leaves room for those three at 30 columns.

Textual's Footer composes itself anew (a widget per key, each styled) whenever the screen's
bindings are refreshed, and a screen refreshes them at every resume and focus change: 30–40 ms of
every switch between the model view and a layer's debugger. This one composes anew only when
the keys it shows changed.
"""

from __future__ import annotations

from textual import events
from textual.screen import Screen
from textual.widgets import Footer

COMPACT_BELOW, PALETTE_FROM = 100, 50


class KeyFooter(Footer):
    # compact, Textual's label of a group of keys (↑↓ Row) touches the next key: keep a space
    DEFAULT_CSS = """
    KeyFooter.-compact FooterLabel { margin: 0 1 0 0; }
    """

    _shown: tuple | None = None  # the keys composed last: (key, action, label, shown, enabled) each

    def bindings_changed(self, screen: Screen) -> None:
        shown = tuple((key, active.binding.action, active.binding.description, active.binding.show,
                       active.enabled, active.tooltip) for key, active in screen.active_bindings.items())
        if shown == self._shown and self._bindings_ready:
            return
        self._shown = shown
        super().bindings_changed(screen)

    def on_resize(self, event: events.Resize) -> None:
        width = event.size.width
        self.compact = width < COMPACT_BELOW
        palette = width >= PALETTE_FROM
        if palette != self.show_command_palette:
            self.show_command_palette = palette
            self.call_after_refresh(self.recompose)
