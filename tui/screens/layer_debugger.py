"""LayerDebugger: the debugger on one layer opened from the model view; Esc goes back to the grid."""

from __future__ import annotations

from attn_tui.tui.keys import model_view_bindings
from attn_tui.tui.screens.debugger import DebuggerScreen


class LayerDebugger(DebuggerScreen):
    """The debugger on one layer opened from the model view: Esc goes back to the grid."""

    BINDINGS = model_view_bindings("back_to_model")

    def __init__(self, scenario, head: int) -> None:
        super().__init__(scenario)
        self.set_reactive(DebuggerScreen.head, head)

    def action_back_to_model(self) -> None:
        self.app._unless_unsaved(self.app.pop_screen)
