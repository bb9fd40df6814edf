"""r on a row of a predicted stage whose row of an earlier predicted stage is still hidden: the
weights of "c" must not be scored and told in the Why pane, actual values and all, while the
grid keeps them hidden behind the unrevealed scores of "c". r says which row to reveal first,
reveals nothing, and gives nothing away."""

from __future__ import annotations

from attn_tui.core.engine.stages import stages_for
from tests.tui_helpers import debugger, explanation, running

SCENARIO = """title: two predicted stages
tokens: [a, b, c]
Q: [[1, 0], [0, 1], [1, 1]]
K: [[1, 0], [0, 1], [1, 1]]
V: [[1, 0], [0, 1], [0.5, 0.5]]
causal: false
predict: [scores, weights]
"""


async def step_to(pilot, screen, stage: str) -> None:
    """→ or ← until the stage (a digit would be typed as a guess on a row still to predict)."""
    order = [step.name for step in stages_for(screen.session.scenario)]
    while screen.stage != stage:
        await pilot.press("right" if order.index(stage) > order.index(screen.stage) else "left")


async def test_r_on_weights_waits_for_the_scores_row_they_are_computed_from(tmp_path):
    path = tmp_path / "two.yaml"
    path.write_text(SCENARIO, encoding="utf-8")
    async with running(path) as (app, pilot):
        screen = debugger(app)
        predictions = screen.session.predictions
        await step_to(pilot, screen, "softmax")
        await pilot.press("2", "enter")
        await pilot.pause()
        row = screen.row
        await pilot.press("r")
        await pilot.pause()
        assert not predictions.is_revealed("softmax", 0, row)
        said = [notice.message for notice in app._notifications]
        assert any(m.startswith("r: predict and reveal this row of Score first") for m in said), (
            said
        )
        assert "actual" not in explanation(app)
        # the scores' row guessed and revealed first, r on the weights then reveals them
        await step_to(pilot, screen, "score")
        await pilot.press("1", "enter", "r")
        await pilot.pause()
        assert predictions.is_revealed("score", 0, row)
        await step_to(pilot, screen, "softmax")
        await pilot.press("r")
        await pilot.pause()
        assert predictions.is_revealed("softmax", 0, row)
