"""Unsaved edits survive a crash: a recovery copy is kept, offered back, and removed on save."""

from __future__ import annotations

import os

import numpy as np
import pytest

from attn_tui.core import load
from attn_tui.core.editing.recovery import recovery_path
from attn_tui.core.editing.session import Session
from tests.conftest import SCENARIOS


@pytest.fixture
def mine(tmp_path):
    path = tmp_path / "cat_sat.yaml"
    path.write_text((SCENARIOS / "cat_sat.yaml").read_text())
    return path


def test_edits_are_kept_in_the_state_folder_and_replayed_exactly(mine, state_folder):
    session = Session(load(mine))
    session.set_cell("Q", 2, 1, 5.0)
    session.toggle_causal()
    session.nudge("V", 0, 0, 1)
    copy = recovery_path(str(mine))
    assert os.path.dirname(copy) == str(state_folder / "attn-tui") and os.path.exists(copy)
    assert os.listdir(mine.parent) == ["cat_sat.yaml"]  # nothing left beside the student's file
    # the process dies here; a new one starts with the same file
    again = Session(load(mine))
    found = again.journal.pending()
    assert found is not None and len(found.edits) == 3 and not found.file_changed
    again.journal.restore(found)
    assert again.scenario.same_numbers(session.scenario)
    while again.history.can_undo:  # each restored edit undoes like any other
        again.undo()
    assert again.scenario.same_numbers(load(mine))


def test_only_what_differs_from_the_saved_file_is_kept(mine):
    session = Session(load(mine))
    for value in (2.0, 3.0, 4.0):
        session.set_cell("Q", 0, 0, value)  # three edits of one cell…
    session.set_cell("K", 1, 1, 5.0)
    session.save()
    session.set_cell("V", 2, 0, 7.0)  # …saved, then one more
    session.set_cell("V", 2, 0, 8.0)
    found = Session(load(mine)).journal.pending()
    assert [(e.matrix, e.row, e.col, e.value, e.old) for e in found.edits] == [
        ("V", 2, 0, 8.0, 0.5)
    ]


def test_the_copy_goes_when_the_edits_are_saved_or_undone(mine):
    from pathlib import Path

    copy = Path(recovery_path(str(mine)))
    session = Session(load(mine))
    session.set_cell("Q", 0, 0, 2.0)
    assert copy.exists()
    session.undo()
    assert not copy.exists()  # nothing unsaved any more
    session.redo()
    session.save()
    assert not copy.exists()
    assert Session(load(mine)).journal.pending() is None


def test_a_builtin_keeps_a_copy_too(state_folder):
    session = Session(load(SCENARIOS / "cat_sat.yaml"), read_only=True)
    session.set_cell("K", 1, 1, 3.0)
    kept = list((state_folder / "attn-tui").glob("cat_sat.yaml.*.attn-recover"))
    assert len(kept) == 1 and recovery_path(str(SCENARIOS / "cat_sat.yaml")) == str(kept[0])
    again = Session(load(SCENARIOS / "cat_sat.yaml"), read_only=True)
    again.journal.restore(again.journal.pending())
    assert again.scenario.K[1, 1] == 3.0


def test_a_changed_file_is_flagged_and_a_damaged_copy_ignored(mine):
    session = Session(load(mine))
    session.set_cell("Q", 0, 0, 2.0)
    mine.write_text(mine.read_text().replace("The cat sat", "Another title"))
    found = Session(load(mine)).journal.pending()
    assert found.file_changed
    with open(recovery_path(str(mine)), "w") as file:
        file.write("{not json")
    assert Session(load(mine)).journal.pending() is None


def test_a_students_nan_values_survive_the_copy(mine):
    session = Session(load(mine))
    from attn_tui.core.model.edits import SetExpect
    from attn_tui.core.model.options import Expected

    values = np.array([[np.nan, 1.0, -np.inf], [0.0] * 3, [0.0] * 3])
    session.apply(SetExpect({"weights": Expected(values, np.ones((3, 3), bool))}, {}, 1e-3, 1e-6))
    again = Session(load(mine))
    again.journal.restore(again.journal.pending())
    restored = again.scenario.expect["weights"].values
    assert np.isnan(restored[0, 0]) and restored[0, 2] == -np.inf


def test_a_folder_that_cannot_be_written_says_why_and_keeps_the_edits(mine, monkeypatch):
    def full(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("attn_tui.core.files.private_files.write", full)
    session = Session(load(mine))
    session.set_cell("Q", 0, 0, 2.0)
    assert session.scenario.Q[0, 0] == 2.0
    assert "No space left on device" in session.journal.error


async def test_the_app_offers_the_edits_back(mine):
    from attn_tui.tui.screens.choice import ChoiceScreen
    from tests.tui.test_model_view import wait_for
    from tests.tui_helpers import debugger, running

    crashed = Session(load(mine))
    crashed.set_cell("Q", 2, 1, 5.0)  # …and the terminal was closed
    async with running(mine) as (app, pilot):
        await pilot.pause()
        assert isinstance(app.screen, ChoiceScreen) and "1 unsaved edit" in app.screen.question
        await wait_for(pilot, lambda: app.screen.armed)
        await pilot.press("r")  # Restore
        await pilot.pause()
        session = debugger(app).session
        assert session.scenario.Q[2, 1] == 5.0 and session.modified
        await pilot.press("q")
        await pilot.pause()
        await pilot.press("d")  # quit, discarding: the copy goes too
        await pilot.pause()
    assert Session(load(mine)).journal.pending() is None


async def test_discarding_at_start_removes_the_copy(mine, monkeypatch):
    from tests.tui_helpers import debugger, running

    monkeypatch.setattr("attn_tui.tui.controllers.saving.RECOVERY_SETTLE", 60.0)  # (a slow host)
    Session(load(mine)).set_cell("Q", 0, 0, 9.0)
    async with running(mine) as (app, pilot):
        await pilot.pause()
        dialog = app.screen
        await pilot.press("d", "enter")  # typed for the debugger (Decode) as the question came up
        await pilot.pause()
        assert app.screen is dialog and not dialog.armed  # it answered nothing: the copy is there
        assert "not answers" in str(dialog.query_one("#hint").render())  # and says why
        assert Session(load(mine)).journal.pending() is not None
        dialog.arm()  # what its timer does once the question has settled
        await pilot.pause()
        assert "Enter confirms" in str(dialog.query_one("#hint").render())
        assert "Esc restores too" in str(
            dialog.query_one("#hint").render()
        )  # (it said "Esc cancels")
        await pilot.press("d")
        await pilot.pause()
        assert debugger(app).session.scenario.Q[0, 0] == 1.0
    assert Session(load(mine)).journal.pending() is None
