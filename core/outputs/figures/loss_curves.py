"""The loss curves of a scenario's training runs, one figure: every run (the scenario's own, or
each variant from the same start, as the Train view shows them) on one shared axis, so that
scaled beside unscaled reads at a glance. Each run is a line of its own colour (Okabe–Ito,
colour-blind safe) and its own dash pattern (a greyscale print keeps them apart), named in a
legend with its first and last loss. A loss that falls by orders of magnitude is drawn on a
log axis, and the axis says so.

The runs are taken here, step by step, with core.engine.training: the work is bounded as the
scenario's reader bounds ``train:`` (steps × runs within the training budget), and a step that
would leave float64's range is refused with the run's name and the step.
"""

from __future__ import annotations

import math

from attn_tui.core.engine.training import Run, compared_runs
from attn_tui.core.model.scenario import Scenario
from attn_tui.core.numbers import fixed
from attn_tui.core.outputs.figures.heat_map import FigureError
from attn_tui.core.outputs.figures.svg import Svg

# Okabe–Ito's blue, vermillion, bluish green, reddish purple, orange, sky blue; and dash patterns
# that differ in grey too (solid first: the scenario's own, or its first variant).
LINE_COLOURS = ("#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9")
DASHES = ("", "8 4", "2 3", "8 3 2 3", "12 4 2 4 2 4", "4 4")
LOG_FROM = 100.0  # a log axis when the largest loss is this many times the smallest (> 0)
WIDTH, PLOT_H = 720.0, 320.0
LEFT, TOP = 80.0, 70.0


def trained_runs(scenario: Scenario) -> list[Run]:
    """Every run of the figure taken to its last step: the variants, or the scenario's own
    run when it has none (as the Train view)."""
    shown = compared_runs(scenario)
    for run in shown:
        try:
            run.run()
        except ArithmeticError as error:
            name = run.name or "the scenario's run"
            raise FigureError(f"{name}: step {run.state.step + 1}: {error}") from None
    return shown


def loss_curves(scenario: Scenario) -> str:
    """The SVG document of every run's loss, step 0 (before any step) to the last."""
    try:
        shown = trained_runs(scenario)
    except ValueError as error:  # (no train: section)
        raise FigureError(str(error)) from None
    setting = shown[0].setting
    p = scenario.precision
    everything = [loss for run in shown for loss in run.losses]
    finite = [loss for loss in everything if math.isfinite(loss)]
    top_loss = max(finite, default=1.0) or 1.0
    positive = [loss for loss in finite if loss > 0]
    log = bool(positive) and len(positive) == len(finite) and top_loss / min(positive) >= LOG_FROM
    low_loss = min(positive) if log else 0.0

    def y_of(loss: float) -> float:
        if log:
            share = (math.log10(loss) - math.log10(low_loss)) / (
                (math.log10(top_loss) - math.log10(low_loss)) or 1.0
            )
        else:
            share = loss / top_loss
        return TOP + PLOT_H * (1.0 - share)

    def x_of(step: int) -> float:
        return LEFT + (WIDTH - LEFT - 30) * step / max(1, setting.steps)

    optimizer = "Adam" if setting.optimizer == "adam" else "gradient descent"
    title = f"Training loss: {scenario.title}"
    height = TOP + PLOT_H + 70 + 18 * len(shown)
    svg = Svg(WIDTH, height, title)
    svg.text(12, 24, title, size=18, longest=100, font_weight="bold")
    svg.text(
        12,
        44,
        f"L = ½·Σ(output − target)² · learning {', '.join(setting.learn)} · {optimizer}, "
        f"lr {setting.lr:g} · {setting.steps} steps",
        size=12,
        longest=200,
    )
    right = WIDTH - 30
    svg.line(LEFT, TOP, LEFT, TOP + PLOT_H, "#000000")
    svg.line(LEFT, TOP + PLOT_H, right, TOP + PLOT_H, "#000000")
    ticks = _log_ticks(low_loss, top_loss) if log else [top_loss * k / 4 for k in range(5)]
    for value in ticks:
        y = y_of(value)
        svg.line(LEFT - 4, y, right, y, "#d9d9d9", 0.5)
        svg.text(
            LEFT - 6,
            y + 4,
            f"{value:g}" if log else fixed(value, p, True),
            size=10,
            anchor="end",
            mono=True,
            class_="tick",
        )
    for step in sorted({0, setting.steps // 2, setting.steps}):
        svg.text(x_of(step), TOP + PLOT_H + 16, str(step), size=10, anchor="middle", mono=True)
    svg.text((LEFT + right) / 2, TOP + PLOT_H + 34, "step", size=12, anchor="middle")
    svg.text(
        16,
        TOP + PLOT_H / 2,
        "loss (log scale)" if log else "loss",
        size=12,
        anchor="middle",
        rotate=-90,
    )
    for number, run in enumerate(shown):
        colour, dash = LINE_COLOURS[number % len(LINE_COLOURS)], DASHES[number % len(DASHES)]
        points = " ".join(
            f"{x_of(step):.2f},{y_of(loss):.2f}"
            for step, loss in enumerate(run.losses)
            if math.isfinite(loss) and (loss > 0 or not log)
        )
        dashed = f' stroke-dasharray="{dash}"' if dash else ""
        svg.raw(
            f'<polyline fill="none" stroke="{colour}" stroke-width="2"{dashed} points="{points}" '
            f'class="curve" data-first="{run.losses[0]!r}" data-last="{run.losses[-1]!r}"/>'
        )
        y = TOP + PLOT_H + 58 + 18 * number
        svg.raw(
            f'<line x1="{LEFT:g}" y1="{y - 4:g}" x2="{LEFT + 36:g}" y2="{y - 4:g}" '
            f'stroke="{colour}" stroke-width="2"{dashed}/>'
        )
        name = run.name or "this scenario"
        svg.text(
            LEFT + 44,
            y,
            f"{name}: loss {fixed(run.losses[0], p, True)} → {fixed(run.losses[-1], p, True)}"
            f" (highest {fixed(max(run.losses), p, True)})",
            size=12,
            longest=120,
        )
    return svg.document()


def _log_ticks(low: float, high: float) -> list[float]:
    """The powers of ten between ``low`` and ``high`` (a log axis spans two at least)."""
    first, last = math.ceil(math.log10(low)), math.floor(math.log10(high))
    return [10.0**k for k in range(first, last + 1)]
