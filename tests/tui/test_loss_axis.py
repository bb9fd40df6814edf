"""The loss plot's y axis follows the curves it draws.

learning_to_attend's losses, worked out by an independent NumPy SGD (½·Σ(PV − target)², lr 0.1 on
Wq and Wk, causal softmax of XWq·(XWk)ᵀ, ÷√8 or not): scaled 10.699, 9.897, 27.010, 15.315, 5.998
…; unscaled 13.310, 31.224, 14.761, 14.761 …. The spikes are one step wide: a plot that samples
one step a column (200 steps in ~30 columns) stepped over them, its axis topping at 31.224 while
no column reached it.
"""

from __future__ import annotations

import pytest

from attn_tui.tui.screens.train import TrainScreen
from attn_tui.tui.widgets.loss_plot import LossPlot
from tests.conftest import SCENARIOS
from tests.reference import softmax
from tests.tui_helpers import running

LEARNING = SCENARIOS / "learning_to_attend.yaml"


def test_a_column_draws_the_largest_loss_of_its_span_of_steps():
    plot = LossPlot()
    # 8 steps over 4 columns: they end at steps round(c·8/3) = 0, 3, 5, 8, so spans {0}, {1,2,3},
    # {4,5}, {6,7,8}
    plot.show([1.0, 5.0, 2.0, 2.0, 2.5, 1.0, 0.5, 0.5, 0.0], 5.0, 8)
    assert plot.heights(4) == [0.2, 1.0, 0.5, 0.1]
    plot.show([1.0, 5.0], 5.0, 8)  # only step 1 taken: the second column shows it
    assert plot.heights(4) == [0.2, 1.0, None, None]
    plot.show([4.0, 2.0], 4.0, 1)  # more columns than steps: each shows its one step
    assert plot.heights(4) == [1.0, 1.0, 0.5, 0.5]


def plot_rows(plot: LossPlot) -> list[str]:
    return [plot.render_line(y).text for y in range(plot.size.height)]


@pytest.mark.parametrize("size", [(80, 24), (120, 36)])
async def test_the_axis_tops_at_a_spike_that_a_column_draws(size):
    async with running(LEARNING, size=size) as (app, pilot):
        await pilot.press("t", "space")  # one step: unscaled's loss jumps to 31.224
        await pilot.pause()
        train = app.screen
        assert isinstance(train, TrainScreen)
        scaled, unscaled = train.query(LossPlot)
        assert (
            round(unscaled.top, 3) == 31.224 and round(scaled.top, 3) == 31.224
        )  # one shared axis
        top_row = plot_rows(unscaled)[0]
        assert top_row.startswith("31.224 │") and "█" in top_row  # the axis's top is drawn
        await pilot.press("space")  # two steps: scaled's loss spikes to 27.010
        await pilot.pause()
        heights = [h for h in scaled.heights(scaled.size.width - 9) if h is not None]
        assert round(max(heights) * 31.224, 3) == 27.010
        await pilot.press("u", "u")  # back to step 0: the axis follows the curves left
        await pilot.pause()
        assert round(unscaled.top, 3) == 13.310 and plot_rows(unscaled)[0].startswith("13.310 │")


def sgd(scale: bool, steps: int):
    """learning_to_attend trained by plain NumPy, written here from the scenario's YAML (not the
    program's training): each step's loss, ‖gradient‖ and ‖Wq, Wk‖, and the rows' largest weight."""
    import numpy as np
    import yaml

    data = yaml.safe_load(LEARNING.read_text(encoding="utf-8"))
    X, target = np.array(data["X"], float), np.array(data["loss"]["target"], float)
    Wq, Wk = np.array(data["Wq"], float), np.array(data["Wk"], float)
    c = 1 / np.sqrt(8) if scale else 1.0
    seen = np.tril(np.ones((5, 5), bool))
    found = []
    for _ in range(steps + 1):
        Q, K = X @ Wq, X @ Wk
        S = np.where(seen, Q @ K.T * c, -np.inf)
        P = softmax(S)
        dO = P @ X - target
        dP = dO @ X.T
        dS = P * (dP - (dP * P).sum(1, keepdims=True)) * c
        gq, gk = X.T @ (dS @ K), X.T @ (dS.T @ Q)
        found.append(
            (
                0.5 * float((dO**2).sum()),
                float(np.sqrt((gq**2).sum() + (gk**2).sum())),
                float(np.sqrt((Wq**2).sum() + (Wk**2).sum())),
                P.max(1),
            )
        )
        Wq, Wk = Wq - 0.1 * gq, Wk - 0.1 * gk
    return found


def test_the_docs_numbers_are_an_independent_sgds():
    scaled, unscaled = sgd(True, 200), sgd(False, 200)
    losses = [round(step[0], 3) for step in scaled]
    assert losses[:6] == [10.699, 9.897, 27.01, 15.315, 5.998, 0.159] and losses[200] == 0.001
    assert max(losses) == losses[2]
    assert [round(step[0], 3) for step in unscaled[:3]] == [13.31, 31.224, 14.761]
    assert (
        round(unscaled[200][0], 3) == 14.761 and max(step[0] for step in unscaled) == unscaled[1][0]
    )
    assert (round(scaled[0][1], 1), round(scaled[0][2], 1), round(unscaled[0][1], 1)) == (
        22.6,
        4.0,
        64.5,
    )
    assert (
        unscaled[1][3].min() > 0.998
    )  # every row's largest weight after the first step (t4: 0.9986)
    from tests.conftest import ROOT

    page = " ".join((ROOT / "docs" / "scenarios.md").read_text(encoding="utf-8").split())
    for said in (
        "falls from 10.699 to 0.001",
        "the gradient's norm is 22.6, the weights' 4.0",
        "spikes to 27.010 at step 2",
        "(0.159 by step 5)",
        "a gradient of norm 64.5",
        "jumps to 31.224 at step 1",
        "every row's largest weight is above 0.998",
        "climbs to 14.761 and stalls",
    ):
        assert said in page, said
