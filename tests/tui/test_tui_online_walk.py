"""The online softmax walked tile by tile in the app: the bar, the Why pane and the title agree
on the tile, the title is whole at 120 columns, and the footer names [ ] and d."""

from __future__ import annotations

from tests.conftest import SCENARIOS
from tests.tui_helpers import debugger, explanation, running, screen_text


async def test_the_why_pane_walks_as_far_as_the_bar_says():
    async with running(SCENARIOS / "online_softmax.yaml") as (app, pilot):
        screen = debugger(app)
        await pilot.press("6")
        assert screen.stage == "online"
        why = explanation(app)
        assert "tile 1 of 2" in why and "tile 2 (keys 5–8): □ to come" in why
        assert "output = acc / l" not in why and "1 to come" in why
        await pilot.press("right_square_bracket")
        why = explanation(app)
        assert (
            "tile 2 of 2" in why
            and "correction = exp(m_old − m_new)" in why
            and "output = acc / l" in why
        )


async def test_a_tile_ahead_that_the_bar_marks_skipped_is_skipped_in_the_why_pane_too():
    """On a row whose second tile is hidden, the bar's "■·" and the Why pane agree (not "tile 2:
    □ to come")."""
    async with running(SCENARIOS / "online_softmax.yaml") as (app, pilot):
        await pilot.press(
            "6", "right_square_bracket", "up", "up", "up", "up", "left_square_bracket"
        )
        why = explanation(app)
        assert "key tiles: ■·" in why and "tile 1 of 2" in why
        assert (
            "tile 2 (keys 5–8): · to be skipped" in why
            and "□ to come" not in why.split("tile 2 (keys")[1]
        )


async def test_the_title_is_whole_and_the_footer_names_the_tile_and_decode_keys():
    async with running(SCENARIOS / "online_softmax.yaml") as (app, pilot):
        await pilot.press("6")
        text = screen_text(app)
        assert "m after each tile of 4 keys (2 query rows a pass)" in text
        footer = text.splitlines()[-1]
        assert "[] Key" in footer and "d Decode" in footer
