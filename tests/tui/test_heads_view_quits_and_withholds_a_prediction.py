"""The all-heads view: q there quits as everywhere, asking first with unsaved edits;
and a head with a prediction still to reveal is withheld."""

from __future__ import annotations

import pytest

from attn_tui.tui.screens.choice import ChoiceScreen
from tests.conftest import SCENARIOS
from tests.tui_helpers import debugger_below, running

TWO_HEADS = SCENARIOS / "two_heads.yaml"


async def test_q_in_the_all_heads_view_quits_as_everywhere():
    async with running(TWO_HEADS) as (app, pilot):
        await pilot.press("a")
        await pilot.pause()
        assert type(app.screen).__name__ == "HeadsScreen"
        await pilot.press("q")
        await pilot.pause()
        assert app.return_code == 0


@pytest.mark.slow
async def test_q_in_the_all_heads_view_asks_first_with_unsaved_edits():
    async with running(TWO_HEADS) as (app, pilot):
        await pilot.press("c")  # an unsaved edit
        await pilot.press("a")
        await pilot.pause()
        await pilot.press("q")
        await pilot.pause()
        assert isinstance(app.screen, ChoiceScreen) and "unsaved edits" in app.screen.question
        await pilot.press("escape")  # Cancel: nothing lost, back where the user was
        await pilot.pause()
        assert app.return_code is None and debugger_below(app).session.modified


async def test_the_all_heads_view_withholds_a_head_with_a_prediction_to_reveal(tmp_path):
    # a predicted row not yet revealed must not be drawn in any head's map
    from tests.tui.test_model_view import wait_for

    path = tmp_path / "p.yaml"
    path.write_text(TWO_HEADS.read_text() + "\npredict: [weights]\n")
    async with running(path) as (app, pilot):
        await pilot.press("4", "a")
        await pilot.pause()
        maps = list(app.screen.query("OverviewMap"))
        assert len(maps) == 2
        await pilot.pause(0.3)
        assert all(view.small is None and "hidden" in view.border_subtitle for view in maps)
    async with running(TWO_HEADS) as (app, pilot):  # nothing to predict: both drawn
        await pilot.press("a")
        maps = list(app.screen.query("OverviewMap"))
        await wait_for(pilot, lambda: all(view.small is not None for view in maps))
        assert not any("hidden" in view.border_subtitle for view in maps)
