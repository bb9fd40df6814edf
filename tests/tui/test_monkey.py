"""A monkey at the keyboard: random keys on every built-in, and after every key what the stage view
shows must agree with a fresh computation by core; undoing everything leads back to the file's
numbers bit for bit.

Keys are posted to the app as the terminal driver posts them (``App.post_message``), and the
test waits by yielding to the event loop, not by sleeping, so a key costs what the app does with
it. After every key the cells in view are checked against a fresh computation of just those
cells. ``ATTN_TUI_LONG=1`` runs ten times as many keys (do that when you change the TUI).
"""

from __future__ import annotations

import asyncio
import math
import os
import random

import numpy as np
import pytest
from textual import events

from attn_tui.core import load
from attn_tui.core.engine.attention import Attention
from attn_tui.core.engine.trace import trace
from attn_tui.core.loading.catalog import builtins
from attn_tui.core.numbers import fixed, mask_text
from attn_tui.tui.app import AttnApp
from attn_tui.tui.key_lists import monkey_keys
from attn_tui.tui.screens.debugger import DebuggerScreen
from attn_tui.tui.screens.heads import HeadsScreen

pytestmark = pytest.mark.slow

KEYS_PER_SCENARIO = 3000 if os.environ.get("ATTN_TUI_LONG") else 200
KEYS = monkey_keys() + list("0123456789.-") * 2
TEXT = list("abcxyz_ ,;/éß٣１∞−") + ["1e999", "nan", "-0", "1_000", "9" * 40, "[/x]", "\x1b[2J"]
NAMES = {
    "-": "minus",
    ".": "full_stop",
    " ": "space",
    ",": "comma",
    ";": "semicolon",
    "/": "slash",
    "_": "underscore",
    "+": "plus",
    "[": "left_square_bracket",
    "]": "right_square_bracket",
    "\x1b": "escape",
}


def key_event(key: str) -> events.Key:
    """The event a terminal driver posts for a key name or a typed character."""
    if len(key) == 1:
        return events.Key(
            key if key.isalnum() else NAMES.get(key, key), key if key.isprintable() else None
        )
    return events.Key(key, "\r" if key == "enter" else None)


async def settle(app: AttnApp) -> None:
    """Let the key travel through the app's queues (no wall-clock waiting)."""
    for _ in range(12):
        await asyncio.sleep(0)


def assert_view_matches_a_fresh_computation(screen: DebuggerScreen) -> None:
    """The cells in view (and the focus row) read as a fresh computation of just them."""
    session = screen.session
    view = screen.query_one("#stage")
    window = view.current_window()
    if window is None or not len(window.rows):
        return
    fresh = Attention(session.scenario, session.attention.options)
    stage = screen.described
    values = fresh.values(stage.name, screen.head, window.rows, window.cols)
    if stage.name == "mask" and screen.mask_rule is not None:  # one rule alone: what it would hide
        hidden = fresh.visibility.hidden_by(
            screen.mask_rule,
            np.arange(window.rows.start, window.rows.stop),
            np.arange(window.cols.start, window.cols.stop),
        )
        values = np.where(
            hidden,
            fresh.options.mask_value,
            fresh.head(screen.head).values("scale", window.rows, window.cols),
        )
    for i, row in enumerate(window.rows):
        texts = [view.texts[i][j] for j in range(len(window.cols))]
        assert not any("nan" in text for text in texts), texts
        if window.hidden is not None or window.empty is not None or screen.theirs:
            continue
        for j, col in enumerate(window.cols):
            shown = texts[j].rstrip("✓✗")
            if (
                window.blocked is not None and window.blocked[i, j]
            ):  # masked, or skipped (a tile, the cache)
                assert shown == (
                    stage.display.skipped_text
                    if stage.arithmetic.skipped is not None
                    else mask_text(session.attention.options.mask_value)
                )
            else:
                assert shown == fixed(
                    float(values[i, j]), fresh.stage_decimals(stage.name, screen.head), stage.tiny
                ), (stage.name, row, col)


@pytest.mark.parametrize("name", [b.name for b in builtins()])
async def test_the_app_survives_a_monkey(name):
    rng = random.Random(f"monkey-{name}")
    scenario = load(next(b.path for b in builtins() if b.name == name))
    app = AttnApp(scenario, read_only=True, remember=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, DebuggerScreen)
        edits = pushed = 0  # changes pushed on the history, however many undo took back
        for count in range(KEYS_PER_SCENARIO):
            roll = rng.random()
            if roll < 0.15:  # what a user does most: open a cell, type a number, commit
                number = f"{rng.uniform(-3, 3):.{rng.randint(0, 4)}f}"
                keys = ["enter", *number, "enter"]
            elif roll < 0.9:
                keys = [rng.choice(KEYS)]
            else:
                keys = list(rng.choice(TEXT))
            for key in keys:
                app.post_message(key_event(key))
                await settle(app)
                for _ in range(20):  # "a" typed outside a cell: all heads, until Esc reaches it
                    if not isinstance(app.screen, HeadsScreen):
                        break
                    await pilot.pause()
                    app.post_message(key_event("escape"))
                    await settle(app)
            refused = [
                view for view in screen.query("InputMatrix") if view.editing and view.editor[2]
            ]
            if refused and rng.random() < 0.5:  # a person gives up on text the cell refuses
                app.post_message(key_event("escape"))
                await settle(app)
            assert app.screen is screen, f"left the debugger after {keys!r}"
            assert_view_matches_a_fresh_computation(screen)
            now = len(screen.session.history)
            edits, pushed = edits + max(0, now - pushed), now
            if count % 50 == 0:  # no NaN anywhere a number is shown (typed text may say nan)
                assert "nan" not in screen.query_one("ExplanationView").plain.lower()
        await pilot.pause()  # every key posted handled: one left in the queue when the app
        # ends meets an empty screen stack in Textual (a ScreenStackError, on a loaded machine)
        for view in screen.query("InputMatrix"):
            if view.editing:
                view.close_editor()
        session = screen.session
        # the monkey did edit: a changed key list reshuffles every stream, and some streams
        # undo much of what they do, so this counts every change pushed, not the most held
        assert edits > KEYS_PER_SCENARIO // 100
        while session.history.can_undo:
            session.undo()
        assert session.scenario.same_numbers(scenario)
        back, fresh = trace(session.attention), trace(Attention(scenario))
        for stage in ("scores", "weights", "output"):
            assert np.array_equal(
                getattr(back, stage).view(np.int64), getattr(fresh, stage).view(np.int64)
            )
        assert not any(math.isnan(v) for v in back.row_sum)
