"""Projector mode (issue 23): its digit keys jump to a step and its key hint says so; --present
opens it over the debugger; a hidden cell's words stay on one line."""

from __future__ import annotations

import pytest

from attn_tui.tui.screens.debugger import DebuggerScreen
from tests.conftest import SCENARIOS
from tests.tui_helpers import debugger_below, running, screen_text


async def test_projector_mode_jumps_to_a_step_by_its_digit_and_shows_its_keys():
    async with running() as (app, pilot):
        await pilot.press("p")
        await pilot.pause()
        assert type(app.screen).__name__ == "PresentScreen"
        await pilot.press("4")
        await pilot.pause()
        assert debugger_below(app).step == 3
        text = screen_text(app)
        assert 'Step 4 · Softmax — row "sat"' in text
        hint = next(line for line in reversed(text.splitlines()) if line.strip())  # the footer
        for shown in ("→ Step", "12345 Jump to step", "↓ Row", "p Leave projector mode", "q Quit"):
            assert shown in hint, hint
        await pilot.press("1")
        await pilot.pause()
        assert 'Step 1 · Score — row "sat"' in screen_text(app)


async def test_present_at_start_opens_projector_mode_over_the_debugger():
    # the debugger is pushed after Textual's start-up batch (#30): projector mode must still come
    # on top of it, not under it
    from attn_tui.core import load
    from attn_tui.tui.app import AttnApp
    from attn_tui.tui.screens.present import PresentScreen

    app = AttnApp(load(SCENARIOS / "cat_sat.yaml"), present=True, remember=False)
    async with app.run_test() as pilot:
        await pilot.pause()
        await pilot.pause()
        assert isinstance(app.screen, PresentScreen)
        assert isinstance(app.screen_stack[-2], DebuggerScreen)


@pytest.mark.parametrize("size", [(80, 24), (120, 36)])
async def test_projector_mode_keeps_a_hidden_cell_s_words_on_one_line(tmp_path, size):
    """Issue 47: "? (predict it)" wrapped mid-phrase ("? (predict" / "it)") in a cell 12 wide."""
    path = tmp_path / "predict.yaml"
    path.write_text(
        (SCENARIOS / "cat_sat.yaml").read_text(encoding="utf-8") + "predict: [weights]\n",
        encoding="utf-8",
    )
    async with running(path, size=size) as (app, pilot):
        await pilot.press("4")
        await pilot.press("p")
        await pilot.pause()
        lines = screen_text(app).splitlines()
        hidden = [line for line in lines if "? (predict" in line]
        assert hidden and all(line.count("? (predict it)") == 3 for line in hidden), hidden
        assert not any(line.strip().startswith("it)") for line in lines)


async def test_projector_mode_never_draws_a_tiny_score_as_zero(tmp_path):
    """Issue 47 (attacked): a score of 1e−5 was drawn as big 0.000. Q·Kᵀ here is worked out by
    hand: q_a = [1, 1e-5], k_b = [0, 1], so score (a, b) = 1e-5 exactly, and weights stay
    3-decimal."""
    from textual.widgets import Digits

    path = tmp_path / "tiny.yaml"
    path.write_text(
        "tokens: [a, b]\nQ: [[1, 0.00001], [1, 1]]\nK: [[1, 0], [0, 1]]\nV: [[1, 2], [3, 4]]\n"
        "causal: false\n",
        encoding="utf-8",
    )
    async with running(path) as (app, pilot):
        await pilot.press("1", "up", "p")
        await pilot.pause()
        drawn = [str(digits.value) for digits in app.screen.query(Digits)]
        assert drawn == ["1.000", "1.000x10^-5"], drawn  # (projector mode writes the precision, 3)


async def test_projector_mode_says_which_columns_it_shows_when_not_all_fit():
    """Issue 47 (attacked): at 61 columns only "the" and "cat" showed, "sat" gone without a word.
    A cell is CELL_WIDTH wide: (61 − 4) // CELL_WIDTH of cat_sat's 3 keys fit."""
    from attn_tui.tui.screens.present import CELL_WIDTH

    fits = (61 - 4) // CELL_WIDTH
    assert 1 <= fits < 3
    async with running(size=(61, 30)) as (app, pilot):
        await pilot.press("4", "p")
        await pilot.pause()
        title = screen_text(app).splitlines()[1]
        assert (
            title.strip() == f'Step 4 · Softmax — row "sat" · 1–{fits} of 3 ([ ] for more)'
        )  # (one line)
    async with running(size=(120, 30)) as (app, pilot):
        await pilot.press("4", "p")
        await pilot.pause()
        assert screen_text(app).splitlines()[1].strip() == 'Step 4 · Softmax — row "sat"'


async def test_projector_mode_cuts_a_long_token_with_an_ellipsis(tmp_path):
    """Issue 47 (attacked): "extraordinarily…" was cut to "extraordinaril", no sign of the rest."""
    token = "extraordinarily_long_token_name"
    path = tmp_path / "long.yaml"
    path.write_text(
        f"tokens: [a, {token}]\nQ: [[1, 0], [0, 1]]\nK: [[1, 0], [0, 1]]\nV: [[1, 0], [0, 1]]\n",
        encoding="utf-8",
    )
    async with running(path) as (app, pilot):
        await pilot.press("p")
        await pilot.pause()
        # a's score for it is 0: big 0.000, four digits 3 cells wide and a point of 1, 13 cells
        assert f" {token[:12]}… " in screen_text(app)
