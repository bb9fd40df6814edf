"""A monkey at the keyboard: thousands of random keys on every built-in, and after every key
the screen must agree with a fresh computation by core; undo must lead back exactly.

The keys are sent through the terminal driver as a user's would be, without Pilot's pauses:
after each key the event loop runs until the key has travelled through the app.
Set MONKEY_KEYS for a longer run (default 1000 per scenario; the seed is fixed).
"""

from __future__ import annotations

import asyncio
import os
import random

import numpy as np
import pytest
from textual import events

from attn_tui.core import compute, load
from attn_tui.core.numbers import fixed
from attn_tui.core.catalog import builtins
from attn_tui.tui.app import AttnApp
from attn_tui.tui.screens.debugger import DebuggerScreen

KEYS_PER_SCENARIO = int(os.environ.get("MONKEY_KEYS", "1000"))
# every key of the debugger that does not leave it (quit, save, palette, help and go-to open
# other screens or write files: they have tests of their own)
KEYS = (["right", "left", "up", "down", "home", "end", "pageup", "pagedown", "1", "2", "3", "4", "5",
         "tab", "shift+tab", "enter", "escape", "e", "plus", "minus", "c", "s", "u", "U", "ctrl+z",
         "ctrl+y", "left_square_bracket", "right_square_bracket", "x", "r", "backspace", "delete",
         "ctrl+u", "ctrl+home", "ctrl+end"] + list("0123456789.-") * 3)
TEXT = list("abcxyz_ ,;/éß٣１∞") + ["1e999", "nan", "-0", "1_000", "9" * 40]


def key_event(key: str) -> events.Key:
    if len(key) == 1 or key in ("-", "."):
        return events.Key(key if key.isalnum() else {"-": "minus", ".": "full_stop", " ": "space",
                                                     ",": "comma", ";": "semicolon", "/": "slash",
                                                     "_": "underscore"}.get(key, key), key)
    return events.Key(key, "\r" if key == "enter" else None)


async def settle(rounds: int = 40) -> None:
    for _ in range(rounds):
        await asyncio.sleep(0)


def assert_screen_matches_core(screen: DebuggerScreen) -> None:
    session = screen.session
    fresh = compute(session.scenario)
    trace = session.trace
    size = max(1.0, float(np.abs(fresh.scaled).max()))
    for name in ("scores", "scaled", "masked", "weights", "output"):
        got, want = getattr(trace, name), getattr(fresh, name)
        assert np.allclose(got, want, rtol=1e-12, atol=1e-12 * size * max(1.0, float(np.abs(fresh.V).max()))), name
    # the screen shows the session's trace, to the digit (a stale view would differ); that trace
    # equals a fresh computation within 1e-12 of the scores' size (above), not always to the
    # bit, so a value right on a rounding boundary may print one way or the other
    view = screen.query_one("#stage")
    stage_values = trace.stage(screen.stage)
    p = session.scenario.precision
    for row in range(min(fresh.T, 6)):
        texts = view.row_texts(row)
        assert not any("nan" in text for text in texts), texts
        if view.grid.hidden is None and screen.stage != "score":
            shown = [text.rstrip("✓✗") for text in texts]
            expected = ["−∞" if screen.stage == "mask" and trace.blocked[row, j] else fixed(float(v), p)
                        for j, v in enumerate(stage_values[row])]
            assert shown == expected, (screen.stage, row)


@pytest.mark.parametrize("name", [b.name for b in builtins()])
async def test_the_app_survives_a_monkey(name):
    rng = random.Random(f"monkey-{name}")
    scenario = load(next(b.path for b in builtins() if b.name == name))
    app = AttnApp(scenario, read_only=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, DebuggerScreen)
        for count in range(KEYS_PER_SCENARIO):
            roll = rng.random()
            if roll < 0.15:  # what a user does most: open a cell, type a number, commit
                number = f"{rng.uniform(-3, 3):.{rng.randint(0, 4)}f}"
                key = ["enter", "ctrl+u", *number, "enter"]
            elif roll < 0.9:
                key = [rng.choice(KEYS)]
            else:
                key = list(rng.choice(TEXT))
            for part in key:
                event = key_event(part)
                event.set_sender(app)
                app._driver.send_message(event)
                await settle()
            assert app.screen is screen, f"left the debugger after {key!r}"
            assert_screen_matches_core(screen)
            if count % 100 == 0:  # no NaN anywhere a number is shown (typed text may say nan)
                shown = [screen.query_one("ExplanationView").plain]
                for view in screen.query("MatrixView"):
                    shown += [" ".join(view.row_texts(row)) for row in range(view.shape[0])]
                assert not any("nan" in text.lower() for text in shown)
        for view in screen.query("InputMatrix"):
            if view.editing:
                view.close_editor()
        assert len(screen.session.history) > KEYS_PER_SCENARIO // 50  # the monkey did edit
        while screen.session.history.can_undo:
            screen.session.undo()
        assert screen.session.scenario.same_numbers(scenario)
        assert np.array_equal(screen.session.trace.weights, compute(scenario).weights)
