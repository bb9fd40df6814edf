"""The description after toggling causal and saving: it still says it was written for
other options, and a file saved so says it when opened again."""

from __future__ import annotations

import pytest

from tests.conftest import SCENARIOS
from tests.tui_helpers import debugger, running

# ---- the description after toggling causal and saving ------------------------------------------


@pytest.fixture
def cat_sat(tmp_path):
    path = tmp_path / "cat_sat.yaml"
    path.write_text((SCENARIOS / "cat_sat.yaml").read_text())
    return path


def description_text(app) -> str:
    return str(app.screen.query_one("#description").render())


async def test_after_a_save_the_description_still_says_it_was_written_for_other_options(cat_sat):
    async with running(cat_sat) as (app, pilot):
        assert "(" not in description_text(app).split("[0.5, 0.5].")[1]  # as written: nothing added
        await pilot.press("c")
        await pilot.pause()
        assert "(written for causal on; now causal off)" in description_text(app)
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert not debugger(app).session.modified
        # saved, the file says causal: false, but its description still says "a causal mask"
        assert "(written for causal on; now causal off)" in description_text(app)
        await pilot.press("c")  # back to what it was written for
        await pilot.pause()
        assert "written for" not in description_text(app)


async def test_a_file_saved_so_says_it_when_opened_again(cat_sat):
    async with running(cat_sat) as (app, pilot):
        await pilot.press("c", "ctrl+s")
        await pilot.pause()
    text = cat_sat.read_text()
    # the comment reads as what the old value meant, and says so of that value
    assert (
        "causal: false     # if true: a token may not look at the tokens after it "
        "(a language model)\n" in text
    )
    async with running(cat_sat) as (app, pilot):  # another day: the file alone tells
        assert "(written for causal on; now causal off)" in description_text(app)
