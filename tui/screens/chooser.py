"""ChooserScreen: the built-in scenarios, each with its title and description, to open one."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Footer, OptionList, Static
from textual.widgets.option_list import Option

from attn_tui.core import load
from attn_tui.core.loading import catalog


class ChooserScreen(Screen[None]):
    """Enter opens the highlighted scenario in the debugger."""

    DEFAULT_CSS = """
    ChooserScreen #chooser-title { padding: 1 2 0 2; text-style: bold; }
    ChooserScreen OptionList { margin: 1 2; height: 1fr; }
    """

    BINDINGS = [Binding("q", "app.quit", "Quit")]

    def compose(self) -> ComposeResult:
        yield Static(
            "attn-tui — choose a scenario to step through   (↑↓ choose · Enter open · q quit)",
            id="chooser-title",
        )
        options = []
        for builtin in catalog.builtins():
            scenario = load(builtin.path)
            prompt = Text()
            prompt.append(scenario.title, "bold")
            prompt.append(f"  ({builtin.name})\n", "dim")
            prompt.append(" ".join(scenario.description.split()) or "—", "italic")
            options.append(Option(prompt, id=str(builtin.path)))
        yield OptionList(*options, id="builtins")
        yield Footer()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.app.open_scenario(load(event.option.id))
