"""ScenarioHeader: the title, the file, the options in force and the modified marker: one line
where they fit, else the title and then the options on as many as hold them (at most three),
broken between two options, so that a narrow terminal cuts none of them off (on one line,
80 columns would cut them to "T=3 d_…")."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.content import Content
from textual.widgets import Static

from attn_tui.core.numbers import mask_text
from attn_tui.core.text import visible

if TYPE_CHECKING:
    from attn_tui.core.loading.checked_scenario import Checked
    from attn_tui.core.model.scenario import Scenario


MAX_LINES = 3  # the header's most: below that, nothing of it is cut at 80 columns


class ScenarioHeader(Static):
    """``● modified The cat sat — cat_sat.yaml   causal on · ÷√2 = 1.414 · mask −∞ · T=3 …``."""

    COMPONENT_CLASSES = {
        "header--modified",
        "header--title",
        "header--where",
        "header--causal-on",
        "header--causal-off",
        "header--scale",
        "header--shape",
    }

    DEFAULT_CSS = """
    ScenarioHeader {
        height: auto;
        max-height: 3;
        background: $primary-background;
        color: $text;
        padding: 0 1;
        text-wrap: nowrap;
        text-overflow: ellipsis;
    }
    ScenarioHeader > .header--modified { color: $text-warning; text-style: bold; }
    ScenarioHeader > .header--title { text-style: bold; }
    ScenarioHeader > .header--where { color: $text-muted; }
    ScenarioHeader > .header--causal-on { color: $text-success; text-style: bold; }
    ScenarioHeader > .header--causal-off { color: $text-warning; text-style: bold; }
    ScenarioHeader > .header--scale { text-style: bold; }
    ScenarioHeader > .header--shape { color: $text-muted; }
    """

    def show(
        self, scenario: Scenario | Checked, where: str, modified: bool, head: str = ""
    ) -> None:
        options = scenario.options
        key = (id(scenario), scenario.title, where, modified, head, options)
        if key == getattr(self, "_key", None):  # nothing it shows changed
            return
        self._key = key

        def style(name: str):
            return self.get_visual_style(
                f"header--{name}", partial=True
            )  # on the header's own background

        parts: list = []
        if modified:  # first, so a narrow terminal never cuts it off
            parts.append(("● modified ", style("modified")))
        parts += [
            (visible(scenario.title), style("title")),
            (f" — {visible(where)}", style("where")),
        ]
        facts: list = [
            ("causal on", style("causal-on"))
            if options.causal
            else ("causal off", style("causal-off"))
        ]
        scale = options.scale_text(scenario.d_k)
        facts += [
            ("no scaling" if scale == "none" else scale, style("scale")),
            f"mask {mask_text(options.mask_value)}",
        ]
        rules = [
            f"window {scenario.window}" if getattr(scenario, "window", None) else "",
            "padding" if getattr(scenario, "padding", None) else "",
            "explicit mask" if getattr(scenario, "mask", None) is not None else "",
            "RoPE" if getattr(scenario, "rope", None) else "",
            *(setting.describe() for setting in getattr(scenario, "stage_settings", {}).values()),
        ]
        facts += [rule for rule in rules if rule]
        query_tokens = getattr(scenario, "query_tokens", None)
        rows = (
            f"T={scenario.T}"
            if query_tokens is None
            else f"T_q={len(query_tokens)} T_k={len(scenario.tokens)}"
        )
        shape = f"{rows} d_k={scenario.d_k} d_v={scenario.d_v}"
        heads = getattr(scenario, "heads", 1)
        if heads > 1:
            shape += f" · {visible(head or 'head 1')} of {heads}"
        facts.append((shape, style("shape")))
        self._parts = (Content.assemble(*parts), [Content.assemble(fact) for fact in facts])
        self._lay_out()

    def on_resize(self) -> None:
        if getattr(self, "_parts", None) is not None:
            self._lay_out()

    def _lay_out(self) -> None:
        """The title and the options joined by " · " on one line where they fit; else the title
        on a line of its own and the options on as few lines as hold them (MAX_LINES in all),
        broken between two options; a line too short for one ends in …."""
        title, facts = self._parts
        width = self.size.width - 2 if self.size.width else 10_000  # (its padding)
        whole = Content.assemble(title, "   ", Content(" · ").join(facts))
        lines = [whole]
        if whole.cell_length > width:
            lines, line = [title], facts[0]
            for fact in facts[1:]:
                if line.cell_length + 3 + fact.cell_length > width and len(lines) < MAX_LINES - 1:
                    lines.append(line)
                    line = fact
                else:
                    line = Content.assemble(line, " · ", fact)
            lines.append(line)
        content = Content("\n").join(lines)
        if content != getattr(self, "_shown", None):
            before = getattr(self, "_shown", Content("")).plain.count("\n")
            self._shown = content
            # (the same number of lines: no layout of the screen to redo)
            self.update(content, layout=before != content.plain.count("\n"))
