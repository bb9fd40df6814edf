"""A key that means nothing for a scenario says why when pressed.

cat_sat.yaml has no loss (so no training), one head, no lesson, no teacher to follow and one mask
rule (causal): t, v, h, a, n, N, f and m are hidden from its footer (the footer tells the truth)
and, pressed, each says its one sentence in the bar and changes nothing.
"""

from __future__ import annotations

from contextlib import asynccontextmanager

import pytest

from attn_tui.core import load
from attn_tui.tui.app import AttnApp
from attn_tui.tui.key_availability import OFF_BECAUSE
from tests.conftest import SCENARIOS
from tests.tui_helpers import debugger, screen_text


@asynccontextmanager
async def running(path, size):
    """As tests.tui_helpers.running, with the toasts drawn (run_test leaves them out by default)."""
    app = AttnApp(load(path), remember=False)
    async with app.run_test(size=size, notifications=True) as pilot:
        await pilot.pause()
        yield app, pilot


SAID = {
    "t": "t: this scenario has no training (add a `train:` section",
    "v": "v: this scenario has no loss to check a gradient of (add a `loss: {target: …}` section)",
    "h": "h: this scenario has one head: there is no other to switch to",
    "a": "a: this scenario has one head: there are no heads to lay side by side",
    "n": "n: this scenario has no lesson (add a `lesson:` section",
    "N": "N: this scenario has no lesson (add a `lesson:` section",
    "f": "f: not following a teacher",
    "m": "m: this scenario's mask has one rule (causal): there is nothing to cycle",
}


def said(app) -> list[str]:
    return [note.message for note in app._notifications]


@pytest.mark.parametrize("size", [(80, 24), (120, 36)])
@pytest.mark.parametrize("pane", ["stage view", "input matrix"])
async def test_each_meaningless_key_says_why_and_does_nothing(size, pane):
    async with running(SCENARIOS / "cat_sat.yaml", size=size) as (app, pilot):
        screen = debugger(app)
        await pilot.press("3")  # the Mask step, where m would cycle rules if there were two
        if pane == "input matrix":
            await pilot.press("tab")
        before = (screen.step, screen.row, screen.head, app.screen, screen.session.history.can_undo)
        footer = screen_text(app).splitlines()[-1]
        for word in ("Train", "Check ∂L", "Head", "All heads", "Next beat", "Follow"):
            assert word not in footer, word  # hidden: the footer tells the truth
        for key, sentence in SAID.items():
            app.clear_notifications()
            await pilot.press(key)
            await pilot.pause()
            assert len(said(app)) == 1 and said(app)[0].startswith(sentence), (key, said(app))
            assert "this scenario" in screen_text(app) or "not following" in screen_text(
                app
            )  # on screen
            assert (
                screen.step,
                screen.row,
                screen.head,
                app.screen,
                screen.session.history.can_undo,
            ) == before, key  # and nothing else happened


async def test_m_away_from_the_mask_step_names_the_step_and_where_it_works():
    async with running(SCENARIOS / "sliding_window.yaml", size=(120, 36)) as (app, pilot):
        screen = debugger(app)
        await pilot.press("4")  # softmax: two rules (causal, window), but this step draws no mask
        assert screen.described.name == "softmax"
        await pilot.press("m")
        assert said(app) == [OFF_BECAUSE["not_mask_step"].format(step="Softmax")]


async def test_a_key_that_works_says_nothing_of_the_sort():
    async with running(SCENARIOS / "learning_to_attend.yaml", size=(120, 36)) as (app, pilot):
        await pilot.press("v")  # a loss: v checks the gradient
        assert not any(note.startswith("v: this scenario") for note in said(app))


async def test_a_burst_of_meaningless_keys_says_each_sentence_once():
    """Keys sent at once (a paste, a fast typist over SSH): 160 presses of eight keys that mean
    nothing here are eight sentences in the bar, not 160 toasts, and move nothing."""
    from tests.tui_helpers import post

    async with running(SCENARIOS / "cat_sat.yaml", size=(80, 24)) as (app, pilot):
        screen = debugger(app)
        await post(app, *("tvhanfmN" * 20))
        await pilot.pause(0.3)
        assert sorted(note.message.split(":")[0] for note in said_notes(app)) == sorted("tvhanfmN")
        assert (screen.step, screen.row, screen.head, app.screen) == (0, 2, 0, screen)


def said_notes(app):
    return list(app._notifications)
