"""The app's help, footer, command palette and chooser say what the keys do; and the app stays
usable as the window shrinks to 80×24 and below, or is resized again and again."""

from __future__ import annotations

import pytest

from attn_tui.tui.app import AttnApp
from attn_tui.tui.screens.chooser import ChooserScreen
from attn_tui.tui.screens.help import HelpScreen
from tests.conftest import SCENARIOS
from tests.tui_helpers import debugger, running, screen_text


async def test_help_lists_every_key():
    async with running() as (app, pilot):
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        shown = app.screen.query_one("#keys").render()
        text = shown.plain if hasattr(shown, "plain") else str(shown)
        for key in (
            "ctrl+s",
            "undo",
            "toggle the causal mask",
            "nudge",
            "projector mode",
            "the next head",
            "Enter  e",
            "A cell being edited",
        ):
            assert key in text, key
        assert "ctrl+s" in screen_text(app)  # and the first keys are on screen
        await pilot.press("escape")
        assert not isinstance(app.screen, HelpScreen)


async def test_the_footer_shows_the_keys_that_work_now():
    async with running() as (app, pilot):
        footer = screen_text(app).splitlines()[-1]
        assert "Step" in footer and "Causal" in footer and "Edit" not in footer
        await pilot.press("tab")
        footer = screen_text(app).splitlines()[-1]
        assert "Edit" in footer and "Step" not in footer


@pytest.mark.slow
async def test_the_command_palette_offers_the_actions():
    async with running() as (app, pilot):
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"toggle causal")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await pilot.pause()
        assert debugger(app).session.scenario.options.causal is False


async def test_no_scenario_opens_the_chooser():
    app = AttnApp(None, remember=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, ChooserScreen)
        assert "The cat sat" in screen_text(app)
        await pilot.press("down", "enter")
        await pilot.pause()
        assert debugger(app).session.scenario.title == "The cat sat, without the causal mask"
        assert debugger(app).session.read_only


async def test_resizing_down_to_80_by_24_keeps_everything_usable():
    async with running(size=(120, 40)) as (app, pilot):
        await pilot.resize_terminal(80, 24)
        await pilot.pause()
        text = screen_text(app)
        assert "1 Score" in text and "Q (3×2)" in text and "Why" in text
        await pilot.press("4")
        assert "Step 4 · Softmax" in screen_text(app)
        await pilot.resize_terminal(200, 60)
        await pilot.pause()
        assert "Step 4 · Softmax" in screen_text(app)


async def test_the_modified_marker_survives_a_narrow_terminal():
    async with running(SCENARIOS / "cat_sat_bidirectional.yaml", size=(80, 24)) as (app, pilot):
        await pilot.press("c")
        assert screen_text(app).splitlines()[0].lstrip().startswith("● modified")


@pytest.mark.slow
async def test_repeated_resizes_from_40_by_12_to_300_by_100():
    async with running(size=(120, 40)) as (app, pilot):
        for width, height in [(40, 12), (300, 100), (25, 8), (80, 24), (300, 100), (40, 12)] * 2:
            await pilot.resize_terminal(width, height)
            await pilot.pause()
            text = screen_text(app)
            if width < 30 or height < 10:
                assert "too small" in text
            else:
                assert "Step 1 · Score" in text or "Step 1 ·" in text, (width, height)
        await pilot.press("4", "tab", "5", "enter")
        assert debugger(app).session.scenario.Q[0, 0] == 5.0  # still works after all that
