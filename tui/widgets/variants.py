"""VariantsView: every variant at the same step and row, with each row's largest weight."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.widgets import Static

from attn_tui.core.attention import STAGE_TITLES, STAGES, Trace
from attn_tui.core.explanation import bar
from attn_tui.core.numbers import decimals_needed, fixed, mask_text
from attn_tui.core.scenario import Scenario


class VariantsView(Static):
    """A table: the selected row's values per variant, then each row's largest weight."""

    DEFAULT_CSS = """
    VariantsView {
        height: auto;
        border: round $panel-lighten-2;
        border-title-color: $text-muted;
        padding: 0 1;
    }
    """

    def show(self, scenario: Scenario, traces: dict[str, Trace], step: int, row: int) -> None:
        stage = STAGES[step]
        names = [variant.name for variant in scenario.variants]
        p = scenario.precision
        self.border_title = f"Variants at {STAGE_TITLES[stage]}, row {scenario.tokens[row]!r}"
        table = Table(box=None, padding=(0, 1), expand=False, show_edge=False)
        table.add_column("", style="cyan", no_wrap=True)
        for name in names:
            options = traces[name].options.scale_text(scenario.d_k)
            table.add_column(Text(f"{name}\n{options}"), no_wrap=True)
        values = []
        for name in names:
            trace = traces[name]
            row_values = trace.stage(stage)[row]
            decimals = decimals_needed(trace.scores, p) if stage == "score" else p
            shown = [mask_text(trace.options.mask_value) if stage == "mask" and trace.blocked[row, k]
                     else fixed(float(v), decimals) for k, v in enumerate(row_values)]
            values.append(" ".join(shown[:6]) + (" …" if len(shown) > 6 else ""))
        table.add_row(Text(f"row {scenario.tokens[row]}", "bold"), *values)
        table.add_row(Text("largest weight", "dim"), *["" for _ in names])
        for i, token in enumerate(scenario.tokens[:12]):
            cells = []
            for name in names:
                weight = float(traces[name].max_weight[i])
                cells.append(Text(f"{fixed(weight, p)} ") + Text(bar(weight, 10), "green"))
            table.add_row(Text(token, "bold reverse" if i == row else ""), *cells)
        if scenario.T > 12:
            table.add_row(f"… {scenario.T - 12} more", *["" for _ in names])
        self.update(table)
