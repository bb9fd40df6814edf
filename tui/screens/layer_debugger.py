"""LayerDebugger: the debugger on one layer opened from the model view; Esc goes back to the
grid."""

from __future__ import annotations

from dataclasses import replace

from attn_tui.tui.key_bindings import model_view_bindings
from attn_tui.tui.screens.debugger import DebuggerScreen


class LayerDebugger(DebuggerScreen):
    """The debugger on one layer opened from the model view: Esc goes back to the grid. The
    model view keeps the one opened last, and pushes it again on Enter."""

    BINDINGS = model_view_bindings("back_to_model")

    def __init__(self, scenario, head: int) -> None:
        super().__init__(scenario)
        self.put(replace(self.position, head=head))
        self._styled_as: tuple | None = (
            None  # what its styles were worked out from, when it was left
        )

    def action_back_to_model(self) -> None:
        self.app._unless_unsaved(self.app.pop_screen)

    def _style_source(self) -> tuple:
        """What a widget's styles here can depend on beyond the screen itself: the app's CSS
        (Textual counts its changes: a theme, a reload) and the app's classes (the palette)."""
        return self.app._css_update_count, frozenset(self.app.classes)

    def _on_screen_suspend(self) -> None:
        super()._on_screen_suspend()
        self._styled_as = self._style_source()

    def _on_screen_resume(self, event) -> None:
        # Textual works out every widget's styles again when a screen is pushed (~30 ms for a
        # debugger's ~180 widgets, most of Enter's time); for the kept layer nothing they depend
        # on changed unless the theme or the palette did while the model view was up
        if self._styled_as == self._style_source():
            event.refresh_styles = False
        super()._on_screen_resume(event)
