"""Editing a cell in the app, driven by the keys a user presses (Textual's Pilot) and checked on
state and screen: typing, committing, refusing, nudging, undo and redo, and every stage that
depends on the cell recomputed and repainted."""

from __future__ import annotations

import numpy as np
import pytest

from attn_tui.core import Scenario, compute
from attn_tui.core.numbers import fixed
from tests.conftest import SCENARIOS
from tests.tui_helpers import current, debugger, matrix, running, screen_text, stage_view

SAT = 2


async def test_editing_q_sat_2_to_5_recomputes_every_stage_and_shows_it():
    async with running() as (app, pilot):
        await pilot.press("4", "tab")
        q = matrix(app, "Q")
        assert q.has_focus
        await pilot.press("down", "down", "right", "enter")
        assert q.editing and q.editor_text == "1"
        await pilot.press("backspace", "5", "enter")
        assert not q.editing
        session = debugger(app).session
        assert session.scenario.Q[SAT, 1] == 5.0
        expected = compute(
            Scenario(
                title="by hand",
                tokens=("the", "cat", "sat"),
                inputs={
                    "Q": np.array([[1, 0], [0, 1], [1, 5]], float),
                    "K": np.array([[1, 0], [0, 1], [1, 1]], float),
                    "V": np.array([[1, 0], [0, 1], [0.5, 0.5]], float),
                },
            )
        )
        assert np.array_equal(current(app).weights, expected.weights)
        await pilot.press("shift+tab")  # back to the stage view, at Softmax
        assert stage_view(app).row_texts(SAT) == [
            fixed(w, 3, tiny=False) for w in expected.weights[SAT]
        ]
        assert "0.019  0.324  0.657" in screen_text(app)
        assert "● modified" in screen_text(app)
        # the cells the edit changed are underlined: sat's row, nothing else
        assert stage_view(app).changed_cells == {(SAT, 0), (SAT, 1), (SAT, 2)}
        await pilot.press("right", "left")  # seen since: no longer marked
        assert not stage_view(app).changed_cells


async def test_typing_a_digit_starts_editing_and_tab_commits_and_moves_right():
    async with running() as (app, pilot):
        await pilot.press("tab", "tab", "tab")  # V
        v = matrix(app, "V")
        assert v.has_focus and v.cursor == (0, 0)
        await pilot.press("2", ".", "5", "tab")
        assert v.cursor == (0, 1) and not v.editing
        await pilot.press("3", "tab")
        assert v.cursor == (1, 0)
        assert debugger(app).session.scenario.V[0].tolist() == [2.5, 3.0]


async def test_refused_text_leaves_the_value_and_keeps_what_was_typed():
    async with running() as (app, pilot):
        await pilot.press("tab")
        q = matrix(app, "Q")
        for text in ("abc", "", "1e999", "nan"):
            await pilot.press("enter", *["backspace"] * 3, *list(text), "enter")
            assert q.editing and q.editor_text == text, text
            assert "✗" in str(q.border_subtitle)
            await pilot.press("escape")
            assert not q.editing
        assert debugger(app).session.scenario.Q[0, 0] == 1.0
        assert not debugger(app).session.history.can_undo


async def test_a_number_that_would_overflow_is_refused_as_such_not_as_not_a_number():
    async with running() as (app, pilot):
        await pilot.press("tab", "down", "down")  # Q, row "sat"
        q = matrix(app, "Q")
        for move in ([], ["right"]):
            await pilot.press(*move, "enter", *["backspace"] * 3, *"1.7e308", "enter")
        assert q.editing and q.editor_text == "1.7e308"  # the second: q·k of sat overflows
        note = app._notifications
        assert [n.title for n in note] == ["Number refused"] and "overflows float64" in list(note)[
            0
        ].message
        assert debugger(app).session.scenario.Q[SAT, 1] == 1.0  # kept as it was
        await pilot.press("escape", "enter", *["backspace"] * 3, *"abc", "enter")
        assert [n.title for n in app._notifications][-1] == "Not a number"


async def test_plus_and_minus_nudge_by_a_tenth():
    async with running() as (app, pilot):
        await pilot.press("tab", "plus", "plus", "plus")
        assert debugger(app).session.scenario.Q[0, 0] == 1.3
        await pilot.press("minus")
        assert debugger(app).session.scenario.Q[0, 0] == 1.2


@pytest.mark.slow
async def test_undo_and_redo_restore_exactly():
    async with running() as (app, pilot):
        session = debugger(app).session
        start = session.scenario
        await pilot.press(
            "tab", "down", "down", "right", "7", "enter", "plus", "shift+tab", "c", "s"
        )
        edited = session.scenario
        assert (
            edited.Q[SAT, 1] == 7.1 and not edited.options.causal and edited.options.scale is False
        )
        await pilot.press("u", "u", "ctrl+z", "u")
        assert session.scenario.same_numbers(start)
        assert "● modified" not in screen_text(app)
        await pilot.press("U", "ctrl+y", "U", "U")
        assert session.scenario.same_numbers(edited)


async def test_a_projection_scenario_edits_x_and_the_ws():
    async with running(SCENARIOS / "projections.yaml") as (app, pilot):
        await pilot.press("tab")
        assert matrix(app, "X").has_focus
        await pilot.press("9", "enter")
        session = debugger(app).session
        assert session.scenario.inputs["X"][0, 0] == 9.0
        assert (
            session.scenario.Q[0].tolist()
            == (session.scenario.inputs["X"][0] @ session.scenario.inputs["Wq"]).tolist()
        )


async def test_keys_typed_quickly_after_enter_are_taken_in_order():
    from textual import events

    async with running() as (app, pilot):
        await pilot.press("tab")
        q = matrix(app, "Q")
        for key, character in (("enter", "\r"), ("backspace", None), ("5", "5")):
            q.post_message(events.Key(key, character))  # no pause in between
        await pilot.pause()
        assert q.editing and q.editor_text == "5"
        for key, character in (("enter", "\r"), ("down", None), ("9", "9"), ("enter", "\r")):
            q.post_message(events.Key(key, character))
        await pilot.pause()
        assert debugger(app).session.scenario.Q[:2, 0].tolist() == [5.0, 9.0]


async def test_escape_returns_to_the_stage_view_and_ctrl_u_clears_the_editor():
    async with running() as (app, pilot):
        await pilot.press("tab", "enter", "ctrl+u", *"42", "enter")
        assert debugger(app).session.scenario.Q[0, 0] == 42.0
        await pilot.press("escape")
        assert stage_view(app).has_focus
        await pilot.press("right")
        assert debugger(app).stage == "scale"


async def test_a_long_entry_is_shown_whole_while_typing():
    async with running() as (app, pilot):
        await pilot.press("tab", "enter", "ctrl+u", *"12345.678901")
        assert "12345.678901" in screen_text(app)
        await pilot.press("escape")


async def test_huge_values_are_shown_with_an_exponent():
    async with running() as (app, pilot):
        await pilot.press("tab", "enter", "ctrl+u", *"1e300", "enter")
        text = screen_text(app)
        assert "1.0e300" in text or "1.000e300" in text
        assert "000000000" not in text


async def test_a_cell_nudged_again_and_again_is_repainted_each_time(monkeypatch):
    """The session edits its working copy of Q in place: the view must still see that the
    cell's line changed and repaint it (it showed 1.2 while the scores used 1.4)."""
    async with running() as (app, pilot):
        await pilot.press("tab")
        q = matrix(app, "Q")
        painted: list = []
        original = type(q).refresh

        def refresh(self, *regions, **kwargs):
            if self is q:
                painted.extend(regions or ["all"])
            return original(self, *regions, **kwargs)

        monkeypatch.setattr(type(q), "refresh", refresh)
        for nudge in range(1, 5):
            painted.clear()
            await pilot.press("plus")
            await pilot.pause()
            assert debugger(app).session.scenario.Q[0, 0] == pytest.approx(1 + nudge / 10)
            assert "all" in painted or any(region.y == 1 for region in painted), (nudge, painted)


async def test_a_derived_matrix_scrolled_out_of_view_shows_the_edit_when_it_comes_back():
    # Q, K, V = X·W below the inputs are not redrawn while out of view (a refresh off screen
    # costs a layout of the whole screen at every edit): they catch up when scrolled to
    async with running(SCENARIOS / "projections.yaml", size=(100, 26)) as (app, pilot):
        screen = debugger(app)
        V = screen.input_views["V"]
        pane = screen.inputs_pane
        assert not V.region.overlaps(pane.scrollable_content_region)
        await pilot.press("tab", "plus")  # X[the, 0] one step up
        await pilot.pause()
        X = screen.session.scenario.inputs["X"]
        assert X[0, 0] != 1.0
        pane.scroll_end(animate=False)
        await pilot.pause()
        await pilot.pause()
        assert V.region.overlaps(pane.scrollable_content_region)
        expected = X @ screen.session.scenario.inputs["Wv"]
        assert np.array_equal(V.grid.values, expected)
        assert expected[0, 0] == 1.1 * 1.0 + 1.0 * 0.5  # the: X·Wv[:, 0] = 1.1 + 0.5
        assert "1.6" in screen_text(app)
