"""core/model/edits.py: each edit kind applied, inverted and described; what each asks of the
session it is made in (``apply_in``); undo's History; nudges and the scale cycle. Expected values
by hand."""

from __future__ import annotations

import numpy as np
import pytest

from attn_tui.core import loads
from attn_tui.core.model.edits import (
    History,
    SetCell,
    SetExpect,
    SetInputs,
    SetOption,
    SetStageSetting,
    nudged,
    scale_cycle,
)
from attn_tui.core.model.options import Expected

THREE = """\
tokens: [the, cat, the]
Q: [[1, 0], [0, 1], [1, 1]]
K: [[1, 0], [0, 1], [1, 1]]
V: [[1, 2], [3, 4], [5, 6]]
"""


@pytest.fixture(scope="module")
def scenario():
    return loads(THREE)


# ---- each kind: applied, inverted, described ----------------------------------------------------


def test_a_cell_edit_sets_one_number_and_its_inverse_puts_it_back(scenario):
    edit = SetCell("V", 2, 1, 7.5, 6.0)
    edited = edit.apply(scenario)
    assert edited.inputs["V"].tolist() == [[1, 2], [3, 4], [5, 7.5]]
    assert scenario.inputs["V"].tolist() == [[1, 2], [3, 4], [5, 6]]  # a new scenario
    assert edit.inverse() == SetCell("V", 2, 1, 6.0, 7.5)
    assert edit.inverse().apply(edited).inputs["V"].tolist() == [[1, 2], [3, 4], [5, 6]]
    assert edit.inverse().inverse() == edit


def test_a_cell_edit_names_its_cell_by_token_and_dimension(scenario):
    # the repeated token is numbered by its position: the₃
    assert SetCell("V", 2, 1, 7.5, 6.0).describe(scenario) == "V[the₃, d2] = 7.5 (was 6)"
    assert SetCell("Q", 1, 0, -0.25, 0.0).describe(scenario) == "Q[cat, d1] = -0.25 (was 0)"


def test_an_option_edit_and_its_words(scenario):
    causal_off = SetOption("causal", False, True)
    assert causal_off.apply(scenario).options.causal is False
    assert causal_off.inverse() == SetOption("causal", True, False)
    assert causal_off.describe(scenario) == "causal mask off"
    assert causal_off.inverse().describe(scenario) == "causal mask on"
    assert SetOption("scale", False, True).describe(scenario) == "scaling: none"
    assert SetOption("scale", 4.0, True).describe(scenario) == "scaling: ÷4"
    # √2 = 1.41421…, to three decimals
    assert SetOption("scale", True, False).describe(scenario) == "scaling: ÷√2 = 1.414"


class Tiles:
    """A stand-in stage setting: all an edit needs of one is ``describe``."""

    def __init__(self, size):
        self.size = size

    def describe(self):
        return f"tiles of {self.size}"


def test_a_stage_setting_is_turned_on_changed_and_off(scenario):
    on = SetStageSetting("tiles", Tiles(2), None)
    with_tiles = on.apply(scenario)
    assert with_tiles.stage_settings["tiles"].size == 2
    assert "tiles" not in scenario.stage_settings
    assert on.describe(scenario) == "tiles of 2 on"
    off = on.inverse()
    assert (off.name, off.value, off.old) == ("tiles", None, on.value)
    assert "tiles" not in off.apply(with_tiles).stage_settings
    assert off.describe(with_tiles) == "tiles of 2 off"


def guessed_weights():
    """A student's weights of row "the₁" (it sees itself alone) and nothing else."""
    values = np.zeros((3, 3))
    values[0, 0] = 1.0
    given = np.zeros((3, 3), bool)
    given[0] = True
    return {"weights": Expected(values, given)}


def test_the_students_values_are_replaced_with_their_tolerance(scenario):
    edit = SetExpect(guessed_weights(), {}, 0.05, 0.001)
    edited = edit.apply(scenario)
    assert list(edited.expect) == ["weights"]
    assert edited.expect["weights"].values[0].tolist() == [1, 0, 0]
    assert edited.expect_tolerance == 0.05
    back = edit.inverse().apply(edited)
    assert (dict(back.expect), back.expect_tolerance) == ({}, 0.001)
    assert edit.describe(scenario) == "predictions kept as expect:"


def test_learned_inputs_replace_whole_matrices_and_say_so_undone(scenario):
    learned = np.array([[2.0, 0.0], [0.0, 2.0], [2.0, 2.0]])
    edit = SetInputs({"Q": learned}, {"Q": scenario.inputs["Q"]})
    assert edit.apply(scenario).inputs["Q"].tolist() == [[2, 0], [0, 2], [2, 2]]
    assert edit.describe(scenario) == "Q learned"
    undone = edit.inverse()
    assert undone.apply(edit.apply(scenario)).inputs["Q"].tolist() == [[1, 0], [0, 1], [1, 1]]
    assert undone.describe(scenario) == "Q learned, undone"


# ---- what each kind asks of the session it is made in -------------------------------------------


class Workspace:
    """A session reduced to a log of what an edit asks of it."""

    def __init__(self, scenario):
        self.scenario = scenario
        self.asked = []

    def cell_written(self, edit):
        self.asked.append(("cell_written", edit))
        return "written"

    def inputs_replaced(self, edit, scenario):
        self.asked.append(("inputs_replaced", scenario.inputs["Q"].tolist()))

    def check_scores_fit(self, scenario):
        self.asked.append(("check_scores_fit", scenario.options.scale))

    def check_lesson_keeps(self, stage):
        self.asked.append(("check_lesson_keeps", stage))

    def options_changed(self, scenario):
        self.asked.append(("options_changed", scenario.options.causal, scenario.options.scale))

    def steps_changed(self, scenario):
        self.asked.append(("steps_changed", tuple(scenario.stage_settings)))


def test_a_cell_is_written_by_the_session_itself(scenario):
    """The session writes it in its own copy: the edit hands it over and returns what comes."""
    session = Workspace(scenario)
    edit = SetCell("Q", 0, 0, 3.0, 1.0)
    assert edit.apply_in(session) == "written"
    assert session.asked == [("cell_written", edit)]


def test_a_smaller_scale_is_checked_before_attention_is_rebuilt(scenario):
    session = Workspace(scenario)
    SetOption("scale", 0.5, True).apply_in(session)
    assert session.asked == [("check_scores_fit", 0.5), ("options_changed", True, 0.5)]


def test_the_causal_mask_needs_no_check_of_the_scores(scenario):
    session = Workspace(scenario)
    made = SetOption("causal", False, True).apply_in(session)
    assert made.options.causal is False
    assert session.asked == [("options_changed", False, True)]


def test_a_step_turned_off_asks_the_lesson_first_and_one_turned_on_does_not(scenario):
    session = Workspace(scenario)
    SetStageSetting("tiles", Tiles(2), None).apply_in(session)
    assert session.asked == [("steps_changed", ("tiles",))]
    session = Workspace(SetStageSetting("tiles", Tiles(2), None).apply(scenario))
    SetStageSetting("tiles", None, Tiles(2)).apply_in(session)
    assert session.asked == [("check_lesson_keeps", "tiles"), ("steps_changed", ())]


def test_the_students_values_ask_nothing_of_the_session(scenario):
    session = Workspace(scenario)
    made = SetExpect(guessed_weights(), {}, 0.05, 0.001).apply_in(session)
    assert list(made.expect) == ["weights"]
    assert session.asked == []


def test_learned_inputs_are_handed_to_the_session_applied(scenario):
    session = Workspace(scenario)
    learned = np.zeros((3, 2))
    made = SetInputs({"Q": learned}, {"Q": scenario.inputs["Q"]}).apply_in(session)
    assert made.inputs["Q"].tolist() == [[0, 0]] * 3
    assert session.asked == [("inputs_replaced", [[0, 0]] * 3)]


# ---- History ------------------------------------------------------------------------------------


def test_history_undoes_by_inverses_and_redoes_the_edits_themselves():
    history = History()
    first, second = SetCell("Q", 0, 0, 2.0, 1.0), SetOption("causal", False, True)
    history.push(first)
    history.push(second)
    assert len(history) == 2 and history.done == [first, second]
    assert history.undo() == SetOption("causal", True, False)
    assert history.undo() == SetCell("Q", 0, 0, 1.0, 2.0)
    assert history.undo() is None
    assert not history.can_undo and history.can_redo
    assert history.redo() == first
    assert history.done == [first]


def test_a_push_after_an_undo_empties_redo():
    history = History()
    history.push(SetCell("Q", 0, 0, 2.0, 1.0))
    history.undo()
    history.push(SetCell("K", 0, 0, 5.0, 1.0))
    assert not history.can_redo
    assert history.redo() is None


def test_done_is_a_copy():
    history = History()
    history.push(SetCell("Q", 0, 0, 2.0, 1.0))
    history.done.clear()
    assert len(history) == 1


# ---- nudges and the scale cycle -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "direction", "expected"),
    [(0.2, +1, 0.3), (0.1, -1, 0.0), (0.0, -1, -0.1), (1.05, +1, 1.15), (-0.3, +1, -0.2)],
)
def test_a_nudge_is_a_tenth_rounded_to_twelve_decimals(value, direction, expected):
    """0.2 + 0.1 is 0.30000000000000004 in float64; the nudge gives 0.3, as a person types it."""
    assert nudged(value, direction) == expected


def test_the_scale_cycle_without_a_divisor_of_the_files_own():
    original = loads(THREE)
    unscaled = original.with_options(scale=False)
    assert scale_cycle(original, original) is False
    assert scale_cycle(unscaled, original) is True


def test_the_scale_cycle_with_the_files_own_divisor():
    original = loads(THREE + "scale: 4\n")
    steps, current = [], original
    for _ in range(4):
        current = current.with_options(scale=scale_cycle(current, original))
        steps.append(current.options.scale)
    assert steps == [True, False, 4, True]
