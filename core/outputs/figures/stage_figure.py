"""One figure of a scenario, as ``attn-tui figure`` draws it and ``attn_tui.show`` displays it: an
input's heat map, a stage's heat map (every row) or one row's bars, of the scenario or of one of
its variants, or the loss curves of its training runs."""

from __future__ import annotations

from attn_tui.core.engine.attention import Attention
from attn_tui.core.model.scenario import Scenario
from attn_tui.core.outputs.figures.bars import bar_chart
from attn_tui.core.outputs.figures.heat_map import FigureError, head_named, heat_map
from attn_tui.core.outputs.figures.inputs import input_map
from attn_tui.core.outputs.figures.loss_curves import loss_curves


def stage_figure(
    scenario: Scenario,
    stage: str = "weights",
    *,
    head: str | None = None,
    row: int | None = None,
    variant: str | None = None,
    train: bool = False,
) -> str:
    """The SVG text: ``stage`` by its ``expect:``/``--json`` key (or an input: Q, K, V, X, …),
    ``head`` as the scenario names it, ``row`` a row index (None: every row) and ``variant`` a
    variant's name; ``train``: the runs' losses instead. Raises FigureError."""
    options = None
    if variant is not None:
        found = [v for v in scenario.variants if v.name == variant]
        if not found:
            names = ", ".join(v.name for v in scenario.variants) or "none"
            raise FigureError(f"no variant {variant!r} (its variants: {names})")
        options = found[0].options(scenario.options)
    if train:
        return loss_curves(scenario)
    h = head_named(scenario, head)
    if stage in scenario.inputs and row is None and variant is None:
        return input_map(scenario, stage, h)
    attention = Attention(scenario, options)
    if row is None:
        return heat_map(attention, stage, h)
    return bar_chart(attention, stage, row, h)
