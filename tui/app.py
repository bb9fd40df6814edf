"""The attn-tui App: a shell around one DebuggerScreen (or the chooser) with quit, help and
the command palette."""

from __future__ import annotations

from typing import Iterable

from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.screen import Screen

from core import catalog, load
from core.attention import STAGE_TITLES, STAGES
from core.scenario import Scenario
from tui.screens.choice import ChoiceScreen
from tui.screens.chooser import ChooserScreen
from tui.screens.debugger import DebuggerScreen
from tui.screens.help import HelpScreen


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

    def __init__(self, scenario: Scenario | None = None, read_only: bool = False) -> None:
        super().__init__()
        self.initial = scenario
        self.read_only = read_only

    def on_mount(self) -> None:
        self.push_screen(DebuggerScreen(self.initial, self.read_only) if self.initial else ChooserScreen())

    @property
    def debugger(self) -> DebuggerScreen | None:
        screens = [screen for screen in self.screen_stack if isinstance(screen, DebuggerScreen)]
        return screens[-1] if screens else None

    def open_scenario(self, scenario: Scenario, read_only: bool = True) -> None:
        """Replace the current scenario (asking first if it has unsaved edits); built-ins are
        opened read-only: saving one asks where to put the copy."""
        self._unless_unsaved(lambda: self.switch_screen(DebuggerScreen(scenario, read_only)))

    def action_help(self) -> None:
        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen())

    async def action_quit(self) -> None:
        self._unless_unsaved(lambda: self.exit(0))

    def _unless_unsaved(self, proceed) -> None:
        debugger = self.debugger
        if debugger is None or not debugger.session.modified:
            proceed()
            return

        def decided(choice: str | None) -> None:
            if choice == "save":
                debugger.action_save(then=proceed)
            elif choice == "discard":
                proceed()

        name = debugger.where
        self.push_screen(ChoiceScreen(f"{name} has unsaved edits. Save them first?",
                                      [("save", "Save"), ("discard", "Discard"), ("cancel", "Cancel")]),
                         decided)

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
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
        for builtin in catalog.builtins():
            yield SystemCommand(f"Open built-in: {builtin.name}", load(builtin.path).title,
                                lambda path=builtin.path: self.open_scenario(load(path)))
        yield SystemCommand("Help", "Every key (?)", self.action_help)
        yield from super().get_system_commands(screen)


def run_app(scenario: Scenario | None, read_only: bool = False) -> int:
    """Run the app in the terminal; returns the process exit status."""
    result = AttnApp(scenario, read_only).run()
    return result or 0
