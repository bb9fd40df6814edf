"""The footer keeps ? Help, ^s Save and q Quit at every terminal size, 80×24 and smaller, with
one head or two, after an edit."""

from __future__ import annotations

import pytest

from tests.conftest import SCENARIOS
from tests.tui_helpers import running, screen_text

TWO_HEADS = SCENARIOS / "two_heads.yaml"


@pytest.mark.parametrize(
    "path, size",
    [
        (SCENARIOS / "cat_sat.yaml", (80, 24)),
        (TWO_HEADS, (80, 24)),
        (TWO_HEADS, (120, 40)),
        (SCENARIOS / "cat_sat.yaml", (50, 16)),
        (TWO_HEADS, (30, 10)),
    ],
)
async def test_the_footer_keeps_help_save_and_quit_at_every_size(path, size):
    async with running(path, size=size) as (app, pilot):
        await pilot.press("c")  # an edit: Undo joins the footer, and Save matters most
        await pilot.pause()
        footer = next(line for line in reversed(screen_text(app).splitlines()) if line.strip())
        for shown in ("? Help", "^s Save", "q Quit"):
            assert shown in footer, footer
