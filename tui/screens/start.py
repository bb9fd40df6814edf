"""StartScreen: the first frame, drawn from the checked scenario before NumPy has loaded.

It shows the header and the step strip at once; the debugger replaces it a moment later,
once the arrays are built (which needs NumPy, the slowest thing to import).
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import Static

from attn_tui.core.scenario_file import Checked
from attn_tui.tui.widgets.header import ScenarioHeader
from attn_tui.tui.widgets.steps import StepStrip


class StartScreen(Screen[None]):
    DEFAULT_CSS = """
    StartScreen #loading { width: 100%; height: 1fr; content-align: center middle; color: $text-muted; }
    """

    def __init__(self, checked: Checked, where: str) -> None:
        super().__init__()
        self.checked = checked
        self.where = where

    def compose(self) -> ComposeResult:
        yield ScenarioHeader(id="header")
        yield StepStrip(id="steps")
        yield Static(f"Computing every stage of {self.checked.title!r}…", id="loading")

    def on_mount(self) -> None:
        self.query_one(ScenarioHeader).show(self.checked, self.where, modified=False)
        self.query_one(StepStrip).show(0)
