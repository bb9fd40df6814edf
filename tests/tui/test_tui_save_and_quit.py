"""Saving and quitting in the app (Textual's Pilot): a save keeps the file's comments, asks
before overwriting a file changed on disk, puts a built-in elsewhere and commits a cell still
being typed; quitting with unsaved edits asks, in a dialog that fits a small window."""

from __future__ import annotations

from attn_tui.core import load
from attn_tui.tui.screens.choice import ChoiceScreen
from attn_tui.tui.screens.save_as import SaveAsScreen
from tests.conftest import SCENARIOS
from tests.tui_helpers import debugger, matrix, running, screen_text

SAT = 2


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


async def test_quit_then_save_saves_the_file_and_quits(tmp_path):
    # Save in the quit question goes through the saving controller: a wrong call there crashes
    # the app (exit 3, "unexpected keyword argument 'then'")
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
