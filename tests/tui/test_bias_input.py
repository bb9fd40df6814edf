"""An explicit bias is an input matrix like Q, K and V, seen and edited as they are: Tab reaches
it, an edit recomputes the stages after it, undo restores it, a save
writes it (comments kept; one read from .npy goes to a new file beside the scenario)."""

from __future__ import annotations

import numpy as np

from attn_tui.core import load
from attn_tui.core.editing.session import Session
from attn_tui.core.engine.trace import compute
from tests.tui_helpers import debugger, explanation, matrix, running

BIASED = """tokens: [a, b, c]
Q: [[1, 0], [0, 1], [1, 1]]
K: [[1, 0], [0, 1], [1, 1]]
V: [[1, 0], [0, 1], [1, 1]]
bias:
  - [0, 1, 2]   # a favours c
  - [0, 0, 0]
  - [1, 0, 0]   # c favours a
"""


def test_an_edited_bias_cell_changes_the_weights_as_a_fresh_load_would(tmp_path):
    path = tmp_path / "b.yaml"
    path.write_text(BIASED)
    session = Session(load(path), keep_recovery=False)
    assert "bias" in session.scenario.editable
    before = session.attention.values("softmax", 0, range(3), range(3)).copy()
    session.set_cell("bias", 2, 1, 3.0)
    after = session.attention.values("softmax", 0, range(3), range(3))
    fresh = compute(load(path).with_cell("bias", 2, 1, 3.0)).weights
    assert np.array_equal(after, fresh) and not np.array_equal(before[2], after[2])
    session.undo()
    assert np.array_equal(session.attention.values("softmax", 0, range(3), range(3)), before)
    session.set_cell("bias", 0, 2, -1.5)
    written = session.save()
    text = open(written).read()
    assert "- [0, 1, -1.5]   # a favours c" in text and "# c favours a" in text
    assert load(written).inputs["bias"][0, 2] == -1.5


def test_a_bias_from_a_data_file_is_saved_to_a_new_one(tmp_path):
    np.save(tmp_path / "bias.npy", np.arange(9.0).reshape(3, 3) / 10)
    path = tmp_path / "b.yaml"
    path.write_text(BIASED.split("bias:")[0] + "bias: {npy: bias.npy}\n")
    session = Session(load(path), keep_recovery=False)
    session.set_cell("bias", 1, 1, 7.0)
    again = load(session.save())
    assert again.inputs["bias"][1, 1] == 7.0
    assert (
        np.load(tmp_path / "bias.npy")[1, 1] == 0.4
    )  # the student's own file is never overwritten


def test_an_edit_that_would_overflow_the_biased_scores_is_refused():
    import pytest

    from attn_tui.core.errors import NumericError
    from attn_tui.core.loading.scenario_file import loads

    session = Session(loads(BIASED), keep_recovery=False)
    with pytest.raises(NumericError):
        session.set_cell("bias", 0, 0, 1e301)
    assert session.scenario.inputs["bias"][0, 0] == 0


async def test_tab_reaches_the_bias_and_an_edit_there_shows_in_the_bias_step(tmp_path):
    path = tmp_path / "b.yaml"
    path.write_text(BIASED)
    async with running(path) as (app, pilot):
        screen = debugger(app)
        await pilot.press("3")
        assert screen.stage == "bias" and "(c, b): 0.707 + (0.000) = 0.707" in explanation(app)
        await pilot.press("tab", "tab", "tab", "tab")
        assert screen.focused is matrix(app, "bias")
        await pilot.press("down", "down", "right", "enter", "2", "enter")
        assert screen.session.scenario.inputs["bias"][2, 1] == 2.0
        assert "(c, b): 0.707 + (2.000) = 2.707" in explanation(app)
        await pilot.press("escape", "u")
        assert screen.session.scenario.inputs["bias"][2, 1] == 0.0
