"""The app, driven by the keys a user presses (Textual's Pilot), checked on state and screen."""

from __future__ import annotations

import numpy as np
import pytest

from attn_tui.core import Scenario
from attn_tui.core import compute
from attn_tui.core import load
from attn_tui.core.numbers import fixed
from attn_tui.tui.app import AttnApp
from attn_tui.tui.screens.choice import ChoiceScreen
from attn_tui.tui.screens.chooser import ChooserScreen
from attn_tui.tui.screens.help import HelpScreen
from attn_tui.tui.screens.save_as import SaveAsScreen
from tests.conftest import SCENARIOS
from tests.tui_helpers import current, debugger, explanation, matrix, running, screen_text, stage_view

SAT = 2


async def test_arrows_step_through_the_stages_and_the_explanation_follows():
    async with running() as (app, pilot):
        screen = debugger(app)
        assert screen.stage == "score" and "Step 1 — Score" in explanation(app)
        assert "q3 · k1 = (1 × 1) + (1 × 0) = 1" in explanation(app)
        await pilot.press("right")
        assert screen.stage == "scale" and "1 / √2 = 1/1.414 = 0.707" in explanation(app)
        await pilot.press("right", "right")
        assert screen.stage == "softmax"
        assert "sum        = 8.169" in explanation(app)
        assert '"sat" pays 25% attention to "the", 25% to "cat", and 50% to itself.' in explanation(app)
        assert "Step 4 · Softmax" in screen_text(app)
        await pilot.press("right", "right")
        assert screen.stage == "weighted_sum"  # stops at the last stage
        await pilot.press("left")
        assert screen.stage == "softmax"
        await pilot.press("home")
        assert screen.stage == "score"
        await pilot.press("end")
        assert screen.stage == "weighted_sum"
        assert "0.248 × [1.0, 0.0] + 0.248 × [0.0, 1.0] + 0.503 × [0.5, 0.5] = [0.500, 0.500]" \
            in explanation(app)
        await pilot.press("3")
        assert screen.stage == "mask"
        await pilot.press("1")
        assert screen.stage == "score"


async def test_up_and_down_choose_the_query_row():
    async with running() as (app, pilot):
        screen = debugger(app)
        assert screen.row == SAT  # the scenario's focus
        await pilot.press("4", "up")
        assert screen.row == 1
        assert '"cat" pays 33% attention to "the" and 67% to itself, and 0% to the future.' \
            in explanation(app)
        assert stage_view(app).cursor[0] == 1 and stage_view(app).marked_rows == {1}
        await pilot.press("up", "up", "up")
        assert screen.row == 0
        await pilot.press("down")
        assert screen.row == 1


async def test_brackets_choose_the_key_and_score_marks_the_q_and_k_rows():
    async with running() as (app, pilot):
        await pilot.press("right_square_bracket")
        assert debugger(app).column == 1
        assert matrix(app, "Q").marked_rows == {SAT} and matrix(app, "K").marked_rows == {1}
        selected = [line for line in app.screen.query_one("ExplanationView").explanation.lines
                    if line.selected]
        assert [line.plain().split(" =")[0] for line in selected] == ["q3 · k2"]
        await pilot.press("5")
        assert matrix(app, "V").marked_rows == {0, 1, 2} and not matrix(app, "Q").marked_rows


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
        expected = compute(Scenario(title="by hand", tokens=("the", "cat", "sat"), inputs={
            "Q": np.array([[1, 0], [0, 1], [1, 5]], float),
            "K": np.array([[1, 0], [0, 1], [1, 1]], float),
            "V": np.array([[1, 0], [0, 1], [0.5, 0.5]], float)}))
        assert np.array_equal(current(app).weights, expected.weights)
        await pilot.press("shift+tab")  # back to the stage view, at Softmax
        assert stage_view(app).row_texts(SAT) == [fixed(w, 3) for w in expected.weights[SAT]]
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
        assert [n.title for n in note] == ["Number refused"] and "overflows float64" in list(note)[0].message
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
        await pilot.press("tab", "down", "down", "right", "7", "enter", "plus", "shift+tab", "c", "s")
        edited = session.scenario
        assert edited.Q[SAT, 1] == 7.1 and not edited.options.causal and edited.options.scale is False
        await pilot.press("u", "u", "ctrl+z", "u")
        assert session.scenario.same_numbers(start)
        assert "● modified" not in screen_text(app)
        await pilot.press("U", "ctrl+y", "U", "U")
        assert session.scenario.same_numbers(edited)


async def test_c_and_s_change_the_weights():
    async with running() as (app, pilot):
        await pilot.press("4")
        before = current(app).weights
        await pilot.press("c")
        assert "causal off" in screen_text(app)
        after = current(app).weights
        assert after[0, 1] > 0 and before[0, 1] == 0
        await pilot.press("s")
        assert "no scaling" in screen_text(app)
        unscaled = current(app).weights
        assert unscaled[SAT, SAT] > after[SAT, SAT]
        await pilot.press("s")
        assert "÷√2 = 1.414" in screen_text(app)


async def test_save_keeps_a_comment_and_reloads_to_the_edited_value(tmp_path):
    path = tmp_path / "mine.yaml"
    path.write_text((SCENARIOS / "cat_sat.yaml").read_text())
    async with running(path) as (app, pilot):
        await pilot.press("tab", "down", "down", "right", "5", "enter", "ctrl+s")
        await pilot.pause()
        assert not debugger(app).session.modified
    text = path.read_text()
    assert "# Queries: what each token is looking for (one row per token)." in text
    assert "  - [1, 5]   # sat: looks for both features" in text
    assert load(path).Q[SAT, 1] == 5.0


async def test_save_onto_a_file_changed_on_disk_asks_first(tmp_path):
    path = tmp_path / "mine.yaml"
    path.write_text((SCENARIOS / "cat_sat.yaml").read_text())
    async with running(path) as (app, pilot):
        await pilot.press("c")
        path.write_text(path.read_text().replace("The cat sat", "Changed elsewhere"))
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, ChoiceScreen)
        assert "changed on disk" in app.screen.question
        await pilot.press("escape")  # cancel: nothing written
        assert "Changed elsewhere" in path.read_text() and "causal: false" not in path.read_text()
        await pilot.press("ctrl+s")
        await pilot.pause()
        await pilot.press("o")  # overwrite
        await pilot.pause()
    assert load(path).options.causal is False


async def test_a_builtin_saves_elsewhere(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    async with running(SCENARIOS / "cat_sat.yaml", read_only=True) as (app, pilot):
        await pilot.press("c", "ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, SaveAsScreen)
        await pilot.press("enter")  # the suggested name, in the current folder
        await pilot.pause()
        assert not debugger(app).session.modified
    assert load(tmp_path / "cat_sat.yaml").options.causal is False
    assert load(SCENARIOS / "cat_sat.yaml").options.causal is True


async def test_quit_with_unsaved_edits_asks():
    async with running() as (app, pilot):
        await pilot.press("c", "q")
        await pilot.pause()
        assert isinstance(app.screen, ChoiceScreen) and "unsaved edits" in app.screen.question
        await pilot.press("c")  # Cancel
        await pilot.pause()
        assert app.is_running and debugger(app).session.modified
        await pilot.press("ctrl+q")
        await pilot.pause()
        await pilot.press("d")  # Discard
        await pilot.pause()
    assert app.return_code == 0


async def test_quit_without_edits_just_quits():
    async with running() as (app, pilot):
        await pilot.press("q")
        await pilot.pause()
        assert not app.is_running


async def test_help_lists_every_key():
    async with running() as (app, pilot):
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        shown = app.screen.query_one("#keys").render()
        text = shown.plain if hasattr(shown, "plain") else str(shown)
        for key in ("ctrl+s", "undo", "toggle the causal mask", "nudge", "projector mode",
                    "the next head", "Enter  e", "A cell being edited"):
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


async def test_variants_are_shown_side_by_side():
    async with running(SCENARIOS / "scaled_vs_unscaled_t5.yaml") as (app, pilot):
        await pilot.press("4")
        text = screen_text(app)
        assert "Variants at Softmax" in text and "scaled" in text and "unscaled" in text
        assert fixed(current(app, "unscaled").max_weight[0], 3) in text
        # the focus row: a line per variant, its name, its setting, then its own weights
        lines = str(app.screen.query_one("VariantsView").render()).split("\n")
        for name, setting in (("scaled", "÷√8 = 2.828"), ("unscaled", "none")):
            weights = current(app, name).weights[4][:3]
            line = next(line for line in lines if line.split()[:1] == [name])
            assert line.split()[1:][:len(setting.split())] == setting.split()
            assert " ".join(fixed(w, 3) for w in weights) in line


async def test_a_projection_scenario_edits_x_and_the_ws():
    async with running(SCENARIOS / "projections.yaml") as (app, pilot):
        await pilot.press("tab")
        assert matrix(app, "X").has_focus
        await pilot.press("9", "enter")
        session = debugger(app).session
        assert session.scenario.inputs["X"][0, 0] == 9.0
        assert session.scenario.Q[0].tolist() == (session.scenario.inputs["X"][0] @ session.scenario.inputs["Wq"]).tolist()


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


async def test_save_commits_a_cell_still_being_typed(tmp_path):
    path = tmp_path / "mine.yaml"
    path.write_text((SCENARIOS / "cat_sat.yaml").read_text())
    async with running(path) as (app, pilot):
        await pilot.press("tab", "7", "ctrl+s")  # the editor is still open
        await pilot.pause()
        assert not matrix(app, "Q").editing
    assert load(path).Q[0, 0] == 7.0


async def test_quit_with_a_cell_still_being_typed_asks_to_save_it():
    async with running() as (app, pilot):
        await pilot.press("tab", "7", "ctrl+q")
        await pilot.pause()
        assert isinstance(app.screen, ChoiceScreen)
        assert app.debugger.session.scenario.Q[0, 0] == 7.0


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


async def test_the_stage_titles_follow_the_options():
    async with running() as (app, pilot):
        await pilot.press("3", "c")
        assert "no mask: every key visible" in str(stage_view(app).border_title)
        await pilot.press("2", "s")
        assert "scaling is off" in str(stage_view(app).border_title)


async def test_the_modified_marker_survives_a_narrow_terminal():
    async with running(SCENARIOS / "cat_sat_bidirectional.yaml", size=(80, 24)) as (app, pilot):
        await pilot.press("c")
        assert screen_text(app).splitlines()[0].lstrip().startswith("● modified")


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


async def test_the_quit_dialog_fits_a_small_window():
    async with running(size=(40, 12)) as (app, pilot):
        await pilot.press("c", "q")
        await pilot.pause()
        text = screen_text(app)
        for label in ("Save", "Discard", "Cancel"):
            assert label in text, text
        await pilot.press("down", "enter")  # the arrows move between the answers too
        await pilot.pause()
    assert app.return_code == 0


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


async def test_the_description_says_when_options_no_longer_match_it():
    async with running() as (app, pilot):
        description = app.screen.query_one("#description")
        await pilot.press("c")
        assert "(written for causal on; now causal off)" in str(description.render())
        await pilot.press("c")
        assert "written for" not in str(description.render())
        await pilot.press("s", "tab", "plus")  # unscaled, and a number of Q nudged
        await pilot.pause()
        assert ("(written for scale ÷√2 = 1.414; now scale none; the numbers have been changed since)"
                in str(description.render()))


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


async def test_quit_then_save_saves_the_file_and_quits(tmp_path):
    # the attack on #29 found it: Save in the quit question crashed the app (exit 3, "unexpected
    # keyword argument 'then'") since the save key became a controller's
    path = tmp_path / "cs.yaml"
    path.write_text((SCENARIOS / "cat_sat.yaml").read_text())
    async with running(path) as (app, pilot):
        await pilot.press("c", "q")
        await pilot.pause()
        await pilot.press("s")
        await pilot.pause()
        await pilot.pause()
    assert app.return_code == 0 and app.crash is None
    assert "causal: false" in path.read_text()
