"""The attn-tui App: a shell around one DebuggerScreen (or the chooser) with quit, help and
the command palette.

Started from a checked file, the app paints its first frame (header and steps, from the
check) before it imports the debugger and NumPy, then swaps the debugger in: NumPy alone
takes about as long to import as a bare Textual app takes to paint.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Iterable

from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.screen import Screen

from attn_tui.core import catalog
from attn_tui.core.stages import STAGE_TITLES, STAGES
from attn_tui.tui.screens.choice import ChoiceScreen
from attn_tui.tui.screens.help import HelpScreen

if TYPE_CHECKING:
    from attn_tui.core.scenario import Scenario
    from attn_tui.core.scenario_file import Checked
    from attn_tui.tui.screens.debugger import DebuggerScreen


class AttnApp(App[int]):
    """Step through attention; ``scenario=None`` starts at the chooser of built-ins."""

    CSS_PATH = "app.tcss"
    TITLE = "attn-tui"
    ENABLE_COMMAND_PALETTE = True

    BINDINGS = [
        Binding("q", "quit", "Quit"),
        Binding("ctrl+q", "quit", "Quit", show=False, priority=True),
        Binding("question_mark", "help", "Help"),
    ]

    def __init__(self, scenario: Scenario | None = None, read_only: bool = False,
                 checked: Checked | None = None) -> None:
        """Open ``scenario``; or the file that ``checked`` describes (loaded after the first
        frame); or, with neither, the chooser of built-ins."""
        super().__init__()
        self.initial = scenario
        self.checked = checked
        self.read_only = read_only
        self.crash: Exception | None = None  # what ended the app, if an exception did

    def _handle_exception(self, error: Exception) -> None:
        """An exception that escapes a handler ends the app, as Textual ends it, but without
        Textual's printed traceback: :func:`run_app` hands the exception to the command line,
        which reports it in one line (the traceback with --debug) once the terminal is back."""
        if self.crash is None:
            self.crash = error
        super()._handle_exception(error)
        self._exit_renderables.clear()

    def on_mount(self) -> None:
        if self.checked is not None:
            from attn_tui.tui.screens.start import StartScreen

            name = os.path.splitext(os.path.basename(self.checked.path))[0]
            where = f"{name} (built-in)" if self.read_only else self.checked.path
            self.push_screen(StartScreen(self.checked, where))
            self.call_after_refresh(self._open_checked)
        elif self.initial is not None:
            from attn_tui.tui.screens.debugger import DebuggerScreen

            self.push_screen(DebuggerScreen(self.initial, self.read_only))
        else:
            from attn_tui.tui.screens.chooser import ChooserScreen

            self.push_screen(ChooserScreen())

    def _open_checked(self) -> None:
        from attn_tui.core import load
        from attn_tui.tui.screens.debugger import DebuggerScreen

        self.switch_screen(DebuggerScreen(load(self.checked.path), self.read_only))

    @property
    def debugger(self) -> DebuggerScreen | None:
        from attn_tui.tui.screens.debugger import DebuggerScreen

        screens = [screen for screen in self.screen_stack if isinstance(screen, DebuggerScreen)]
        return screens[-1] if screens else None

    def open_scenario(self, scenario: Scenario, read_only: bool = True) -> None:
        """Replace the current scenario (asking first if it has unsaved edits); built-ins are
        opened read-only: saving one asks where to put the copy."""
        from attn_tui.tui.screens.debugger import DebuggerScreen

        self._unless_unsaved(lambda: self.switch_screen(DebuggerScreen(scenario, read_only)))

    def action_help(self) -> None:
        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen())

    async def action_quit(self) -> None:
        self._unless_unsaved(lambda: self.exit(0))

    def _unless_unsaved(self, proceed) -> None:
        debugger = self.debugger
        if debugger is not None and not debugger.flush_editor():
            self.notify("A cell holds text that is not a number: fix it, or press Esc to drop it.",
                        severity="warning")
            return
        if debugger is None or not debugger.session.modified:
            proceed()
            return

        def decided(choice: str | None) -> None:
            if choice == "save":
                debugger.action_save(then=proceed)
            elif choice == "discard":
                debugger.session.discard_recovery()
                proceed()

        name = debugger.where
        self.push_screen(ChoiceScreen(f"{name} has unsaved edits. Save them first?",
                                      [("save", "Save"), ("discard", "Discard"), ("cancel", "Cancel")]),
                         decided)

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        from attn_tui.core import load
        from attn_tui.tui.screens.debugger import DebuggerScreen

        debugger = screen if isinstance(screen, DebuggerScreen) else None
        if debugger is not None:
            for number, stage in enumerate(STAGES, 1):
                yield SystemCommand(f"Step to {number} {STAGE_TITLES[stage]}",
                                    f"Show stage {number}", lambda n=number: debugger.action_goto(n))
            yield SystemCommand("Toggle causal mask", "Mask the future on or off (c)",
                                debugger.action_toggle_causal)
            yield SystemCommand("Cycle scaling", "÷√d_k, none, the file's own divisor (s)",
                                debugger.action_cycle_scale)
            yield SystemCommand("Undo", "Undo the last edit (u)", debugger.action_undo)
            yield SystemCommand("Redo", "Redo the last undone edit (U)", debugger.action_redo)
            yield SystemCommand("Save", "Save the edits into the scenario file (ctrl+s)",
                                debugger.action_save)
            yield SystemCommand("Save as…", "Save the scenario to another file", debugger.action_save_as)
            yield SystemCommand("Save screenshot (SVG)", "The screen as an SVG beside the scenario "
                                "(ctrl+t)", debugger.action_screenshot)
            if debugger.session.predictions is not None:
                yield SystemCommand("Keep predictions as expect:", "Your guesses become the scenario's "
                                    "expect: (then save)", debugger.action_keep_predictions)
        for builtin in catalog.builtins():
            yield SystemCommand(f"Open built-in: {builtin.name}", load(builtin.path).title,
                                lambda path=builtin.path: self.open_scenario(load(path)))
        yield SystemCommand("Help", "Every key (?)", self.action_help)
        yield from super().get_system_commands(screen)


def run_app(checked: Checked | None, read_only: bool = False) -> int:
    """Run the app in the terminal on a checked file (or the chooser); returns the exit status.

    If the app crashed, the exception that ended it is raised here, after Textual has given the
    terminal back (recovery copies of unsaved edits stay where they are)."""
    app = AttnApp(checked=checked, read_only=read_only)
    result = app.run()
    if app.crash is not None:
        raise app.crash
    return result or 0
