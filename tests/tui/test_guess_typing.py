"""Typing a guess at a predict beat as a student does: a digit opens the guess, Tab
moves on, keys sent all at once stay in the guess, and nothing typed for a guess edits Q.

The lesson is the shipped "the cat sat" lesson; its fourth beat asks for the weights of "sat",
which by hand are exp([1, 1, 2]/√2) / sum = [0.248, 0.248, 0.503]."""

from __future__ import annotations

import numpy as np
import pytest
from textual import events

from tests.conftest import SCENARIOS
from tests.tui_helpers import debugger, running, screen_text, stage_view

SAT = 2
SOFTMAX = 3  # the step index of the softmax (the fourth step)
SIZES = [(80, 24), (120, 36)]


def lesson_copy(folder):
    path = folder / "lesson.yaml"
    path.write_text((SCENARIOS / "cat_sat_lesson.yaml").read_text())
    return path


def keys_of(text: str) -> list[str]:
    """'0.25 tab 0.5' as the keys a terminal sends: each character, and the named keys whole."""
    keys: list[str] = []
    for word in text.split():
        keys += [word] if word in ("tab", "enter", "shift+tab") else list(word)
    return keys


def key_event(key: str) -> events.Key:
    character = {"tab": "\t", "enter": "\r", "shift+tab": None}.get(key, key)
    name = {".": "full_stop", "-": "minus"}.get(key, key)
    return events.Key(name, character)


async def burst(app, pilot, text: str) -> None:
    """Every key posted before the app handles any, as a paste or a fast typist over SSH."""
    for key in keys_of(text):
        app.post_message(key_event(key))
    await pilot.pause()
    await pilot.pause()


async def at_the_predict_beat(pilot, app):
    await pilot.press("n", "n", "n")
    screen = debugger(app)
    assert screen.step == SOFTMAX and screen.row == SAT and screen.revealable()
    return screen


@pytest.mark.parametrize("size", SIZES)
async def test_a_digit_opens_the_guess_and_tab_goes_on(tmp_path, size):
    async with running(lesson_copy(tmp_path), size=size) as (app, pilot):
        screen = await at_the_predict_beat(pilot, app)
        q_before = screen.session.scenario.inputs["Q"].copy()
        await pilot.press(*keys_of("0.25 tab 0.25 tab 0.5 enter"))
        assert screen.step == SOFTMAX  # no digit jumped to a step
        assert stage_view(app).row_texts(SAT) == ["0.250?", "0.250?", "0.500?"]
        await pilot.press("r")
        assert stage_view(app).row_texts(SAT) == ["0.248✓", "0.248✓", "0.503✓"]
        assert np.array_equal(screen.session.scenario.inputs["Q"], q_before)
        assert "3/3 close" in screen_text(app)


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("opening", ["", "enter "])  # (with Enter first: the Tabs alone escaped)
async def test_keys_sent_at_once_stay_in_the_guess(tmp_path, size, opening):
    async with running(lesson_copy(tmp_path), size=size) as (app, pilot):
        screen = await at_the_predict_beat(pilot, app)
        q_before = screen.session.scenario.inputs["Q"].copy()
        await burst(app, pilot, opening + "0.25 tab 0.25 tab 0.5 enter")
        assert screen.step == SOFTMAX and not screen.session.history.can_undo  # Q untouched
        assert stage_view(app).row_texts(SAT) == ["0.250?", "0.250?", "0.500?"]
        assert np.array_equal(screen.session.scenario.inputs["Q"], q_before)
        assert app.focused is screen.stage_view


async def test_a_digit_typed_in_q_while_a_guess_waits_is_the_guess(tmp_path):
    async with running(lesson_copy(tmp_path)) as (app, pilot):
        screen = await at_the_predict_beat(pilot, app)
        await pilot.press("tab")  # the focus on Q, as a student who tabbed out
        assert app.focused.id == "input-Q"
        await burst(app, pilot, "0.3 tab 0.2 tab 0.5 enter")
        assert not screen.session.history.can_undo  # Q untouched
        assert stage_view(app).row_texts(SAT) == ["0.300?", "0.200?", "0.500?"]
        assert screen.step == SOFTMAX


async def test_enter_reopens_a_guess_with_its_value_and_typing_replaces_it(tmp_path):
    async with running(lesson_copy(tmp_path)) as (app, pilot):
        screen = await at_the_predict_beat(pilot, app)
        await pilot.press(*keys_of("0.9 enter"))
        await pilot.press("enter")
        assert screen.stage_view.editor_text == "0.9"
        await pilot.press(*keys_of("0.2 enter"))
        assert stage_view(app).row_texts(SAT)[0] == "0.200?"


async def test_once_revealed_the_digits_jump_to_steps_again(tmp_path):
    async with running(lesson_copy(tmp_path)) as (app, pilot):
        screen = await at_the_predict_beat(pilot, app)
        await pilot.press("r")  # revealed without a guess: nothing left to type
        await pilot.press("2")
        assert screen.step == 1 and not screen.stage_view.editing


async def test_a_digit_on_a_masked_cell_opens_the_rows_first_guess(tmp_path):
    """'cat' at the softmax: its weight on 'sat' is masked (0, known), the other two take
    guesses."""
    path = tmp_path / "mine.yaml"
    path.write_text((SCENARIOS / "cat_sat.yaml").read_text() + "predict: [weights]\n")
    async with running(path) as (app, pilot):
        screen = debugger(app)
        await pilot.press("4", "up")
        assert screen.row == 1
        screen.stage_view.set_cursor((1, 2))  # the masked cell
        await pilot.press(*keys_of("0.4 tab 0.6 enter"))
        assert stage_view(app).row_texts(1) == ["0.400?", "0.600?", "0.000"]
