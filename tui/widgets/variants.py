"""VariantsView: every variant at the same step and row, with each row's largest weight.

A row whose prediction is not revealed yet shows "?" here too: a variant's numbers would give it
away (the rule is core's: ``Predictions.hidden_rows``).
"""

from __future__ import annotations

from textual.content import Content
from textual.widgets import Static

from attn_tui.core.engine.explanation import bar
from attn_tui.core.engine.stages import row_labels, summary
from attn_tui.core.model.labels import token_labels
from attn_tui.core.numbers import fixed, mask_text
from attn_tui.core.text import visible

SHOWN_ROWS = 12
SHOWN_VALUES = 6


class VariantsView(Static):
    """A table: the selected row's values per variant, then each row's largest weight."""

    COMPONENT_CLASSES = {
        "variants--label",
        "variants--selected",
        "variants--bar",
        "variants--muted",
    }

    DEFAULT_CSS = """
    VariantsView {
        height: auto;
        border: round $panel-lighten-2;
        border-title-color: $text-muted;
        padding: 0 1;
        text-wrap: nowrap;       /* a line per variant, cut (…) rather than folded */
        text-overflow: ellipsis;
    }
    VariantsView > .variants--label { color: $text-accent; }
    VariantsView > .variants--selected { text-style: bold reverse; }
    VariantsView > .variants--bar { color: $text-success; }
    VariantsView > .variants--muted { color: $text-muted; }
    """

    def show(self, session, stage, head: int, row: int) -> None:
        scenario = session.scenario
        labels = token_labels(scenario.row_tokens)
        names = [variant.name for variant in scenario.variants]
        p = scenario.precision
        self.border_title = Content(
            f'Variants at {stage.title}, row "{row_labels(scenario, stage)[row]}"'
        )
        predictions = session.predictions
        hidden_here = predictions.hidden_rows(stage.name, head) if predictions else None
        largest_weight = summary("max_weight")
        owner = next(
            step.name
            for step in session.attention.steps
            if largest_weight in step.reported.summaries
        )
        hidden_weights = predictions.hidden_rows(owner, head) if predictions else None
        columns = [visible(name) for name in names]
        settings = [session.attentions[name].options.scale_text(scenario.d_k) for name in names]
        width = max([12, *(len(text) for text in columns)])
        label_width = (
            max(
                len("largest weight"),
                *(
                    len(label)
                    for label in labels[:SHOWN_ROWS] + (labels[min(row, len(labels) - 1)],)
                ),
            )
            + 1
        )
        style = {
            name: self.get_visual_style(f"variants--{name}")
            for name in ("label", "selected", "bar", "muted")
        }
        # the selected row: a line per variant (its name, its setting, its values)
        name_width = max(len(text) for text in columns)
        setting_width = max(len(text) for text in settings)
        lines = []
        cols = range(min(SHOWN_VALUES, stage.column_count(scenario)))
        more = " …" if stage.column_count(scenario) > len(cols) else ""
        for name, shown_name, setting in zip(names, columns, settings):
            attention = session.attentions[name]
            if hidden_here is not None and hidden_here[row]:
                cells = "? (predict first)"
            else:
                values = attention.values(stage.name, head, range(row, row + 1), cols)[0]
                blocked = (
                    attention.blocked(range(row, row + 1), cols)[0]
                    if stage.arithmetic.masks
                    else None
                )
                cells = (
                    " ".join(
                        mask_text(attention.options.mask_value)
                        if blocked is not None and blocked[k]
                        else fixed(float(v), p)
                        for k, v in enumerate(values)
                    )
                    + more
                )
            lines.append(
                Content.assemble(
                    f" {shown_name:<{name_width}}  ",
                    (f"{setting:<{setting_width}}", style["muted"]),
                    f"  {cells}",
                )
            )
        # every row's largest weight, a column per variant
        lines.append(
            Content.assemble(
                ("largest weight".ljust(label_width), style["muted"]),
                *(f" {c:<{width}}" for c in columns),
            )
        )
        shown = range(min(SHOWN_ROWS, scenario.T))
        largest = {
            name: largest_weight.values(session.attentions[name].head(head), shown)
            for name in names
        }
        for i in shown:
            label = (
                labels[i][: label_width - 1].ljust(label_width),
                style["selected"] if i == row else style["label"],
            )
            parts = [label]
            for name in names:
                if hidden_weights is not None and hidden_weights[i]:
                    parts.append(f" {'?':<{width}}")
                    continue
                weight = float(largest[name][i])
                parts += [
                    f" {fixed(weight, p)} ",
                    (bar(weight, max(1, width - len(fixed(weight, p)) - 2)), style["bar"]),
                ]
            lines.append(Content.assemble(*parts))
        if scenario.T > SHOWN_ROWS:
            lines.append(Content.styled(f"… {scenario.T - SHOWN_ROWS} more rows", style["muted"]))
        # the same number of lines as before: no layout of the screen to redo
        self.update(Content("\n").join(lines), layout=len(lines) != getattr(self, "_lines", None))
        self._lines = len(lines)
