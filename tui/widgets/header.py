"""ScenarioHeader: the title, the file, the options in force and the modified marker."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from typing import TYPE_CHECKING

from attn_tui.core.numbers import mask_text

if TYPE_CHECKING:
    from attn_tui.core.scenario import Scenario
    from attn_tui.core.scenario_file import Checked


class ScenarioHeader(Static):
    """One line: ``● modified The cat sat — cat_sat.yaml   causal on · ÷√2 = 1.414 · mask −∞``."""

    DEFAULT_CSS = """
    ScenarioHeader {
        height: 1;
        background: $primary-background;
        color: $text;
        padding: 0 1;
    }
    """

    def show(self, scenario: Scenario | Checked, where: str, modified: bool) -> None:
        options = scenario.options
        text = Text(no_wrap=True, overflow="ellipsis")
        if modified:  # first, so a narrow terminal never cuts it off
            text.append("● modified ", "bold yellow")
        text.append(scenario.title, "bold")
        text.append(f" — {where}", "dim")
        text.append("   ")
        text.append("causal on" if options.causal else "causal off",
                    "bold green" if options.causal else "bold magenta")
        text.append(" · ")
        scale = options.scale_text(scenario.d_k)
        text.append("no scaling" if scale == "none" else scale, "bold")
        text.append(f" · mask {mask_text(options.mask_value)}")
        text.append(f" · T={scenario.T} d_k={scenario.d_k} d_v={scenario.d_v}", "dim")
        self.update(text)
