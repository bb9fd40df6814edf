"""core/model/scenario.py: the Scenario as an immutable value (read-only arrays, edits that make
a new one), the shapes it reports, its one-line description, its mask rules, and equality to the
bit. Expected values by hand."""

from __future__ import annotations

import numpy as np
import pytest

from attn_tui.core.model.options import Expected, Options
from attn_tui.core.model.scenario import Scenario, bits_equal, working_copy


def qkv(**more) -> Scenario:
    return Scenario(
        title="t",
        tokens=("a", "b", "c"),
        inputs={
            "Q": [[1, 0], [0, 1], [1, 1]],
            "K": [[1, 0], [0, 1], [1, 1]],
            "V": [[1, 2, 3], [4, 5, 6], [7, 8, 9]],
        },
        **more,
    )


def projected(**more) -> Scenario:
    """Two heads from X (3 tokens × 2 model dimensions), d_k = 1 and d_v = 2 a head."""
    return Scenario(
        title="p",
        tokens=("a", "b", "c"),
        inputs={
            "X": [[1, 2], [3, 4], [5, 6]],
            "Wq": [[1, 0], [0, 1]],
            "Wk": [[1, 1], [1, 1]],
            "Wv": [[1, 0, 0, 1], [0, 1, 1, 0]],
        },
        heads=2,
        **more,
    )


def test_inputs_are_read_only_float64_copies_of_what_was_given():
    given = np.array([[1, 0], [0, 1], [1, 1]])  # integers
    scenario = Scenario("t", ("a", "b", "c"), {"Q": given, "K": given, "V": given})
    assert scenario.inputs["Q"].dtype == np.float64
    with pytest.raises(ValueError):
        scenario.inputs["Q"][0, 0] = 5.0
    with pytest.raises(TypeError):
        scenario.inputs["Q"] = given  # the mapping itself is read-only
    given[0, 0] = 9
    assert scenario.inputs["Q"][0, 0] == 1.0  # the caller's array stays theirs


def test_a_cell_or_an_option_changed_is_a_new_scenario():
    scenario = qkv()
    edited = scenario.with_cell("V", 1, 2, -6.0)
    assert edited.inputs["V"][1].tolist() == [4, 5, -6]
    assert scenario.inputs["V"][1].tolist() == [4, 5, 6]
    assert edited.inputs["Q"] is scenario.inputs["Q"]  # what did not change is shared
    unscaled = scenario.with_options(scale=False)
    assert (unscaled.options.scale, scenario.options.scale) == (False, True)


def test_defaults_made_from_what_was_given():
    scenario = qkv()
    assert scenario.focus == 2  # -1: the last query row
    assert scenario.heads == scenario.kv_heads == 1
    assert scenario.head_names == ("head 1",)
    assert (scenario.T, scenario.T_k, scenario.d_k, scenario.d_v, scenario.d_out) == (3, 3, 2, 3, 3)
    assert scenario.kind == "qkv"
    assert scenario.editable == ("Q", "K", "V")
    assert not scenario.cross and not scenario.multi_head
    assert scenario.row_tokens == ("a", "b", "c")


def test_a_projected_scenario_splits_the_weights_columns_among_its_heads():
    scenario = projected()
    assert scenario.kind == "projection"
    assert (scenario.d_k, scenario.d_v, scenario.d_out) == (1, 2, 4)
    assert scenario.editable == ("X", "Wq", "Wk", "Wv")
    assert scenario.multi_head
    assert scenario.head_names == ("head 1", "head 2")
    # head 1's Q is X times Wq's first column; its V X times Wv's first two columns
    assert scenario.Q.tolist() == [[1], [3], [5]]
    assert scenario.K.tolist() == [[3], [7], [11]]
    assert scenario.V.tolist() == [[1, 2], [3, 4], [5, 6]]
    assert scenario.matrix("X") is scenario.inputs["X"]


def test_cross_attention_labels_its_rows_by_the_query_tokens():
    scenario = Scenario(
        "x",
        ("k1", "k2", "k3"),
        {"Q": [[1, 0], [0, 1]], "K": np.eye(3, 2), "V": np.eye(3)},
        query_tokens=("q1", "q2"),
    )
    assert scenario.cross
    assert scenario.row_tokens == ("q1", "q2")
    assert (scenario.T, scenario.T_k) == (2, 3)
    assert scenario.focus == 1


def test_a_students_values_read_as_values_and_given_cells():
    scenario = qkv(
        expect={"weights": ([[1, 0, 0]], [[True, False, True]]), "output": ([[2]], None)}
    )
    assert isinstance(scenario.expect["weights"], Expected)
    assert scenario.expect["weights"].given.tolist() == [[True, False, True]]
    assert scenario.expect["output"].given.tolist() == [[True]]  # None: every cell given


def test_the_description_names_every_option_and_rule():
    scenario = qkv(
        options=Options(causal=True, scale=True),
        window=2,
        padding=(False, True, True),
        mask=np.ones((3, 3), bool),
    )
    # √2 = 1.414 to three decimals
    assert scenario.describe() == (
        "causal · ÷√2 = 1.414 · mask −∞ · window 2 · padding (2 keys) · an explicit mask"
    )
    assert qkv(options=Options(causal=False, scale=False)).describe() == (
        "not causal · unscaled · mask −∞"
    )


def test_the_mask_rules_follow_the_options_asked_for():
    scenario = qkv(options=Options(causal=True), padding=(False, False, True))
    rows = cols = np.arange(3)
    assert (~scenario.visibility().blocked(rows, cols)).tolist() == [
        [True, False, False],
        [True, True, False],
        [True, True, False],
    ]
    not_causal = scenario.visibility(Options(causal=False))
    assert (~not_causal.blocked(rows, cols)).tolist() == [[True, True, False]] * 3


def test_same_numbers_compares_bits_so_minus_zero_differs():
    scenario = qkv()
    assert scenario.same_numbers(qkv())
    assert not scenario.same_numbers(scenario.with_cell("Q", 0, 1, -0.0))
    assert not scenario.same_numbers(scenario.with_options(causal=not scenario.options.causal))
    assert not scenario.same_numbers(qkv(expect_tolerance=0.5))
    assert not scenario.same_numbers(qkv(expect={"output": ([[2]], None)}))


def test_bits_equal_tells_minus_zero_apart_and_nan_equal():
    assert bits_equal(np.array([np.nan]), np.array([np.nan]))
    assert not bits_equal(np.array([0.0]), np.array([-0.0]))
    assert not bits_equal(np.zeros(2), np.zeros(3))


def test_a_working_copy_is_written_by_its_owner_alone():
    original = np.array([1.0, 2.0])
    original.flags.writeable = False
    working, view = working_copy(original)
    working[0] = 5.0
    assert view.tolist() == [5.0, 2.0]  # the view sees the owner's writes
    assert original.tolist() == [1.0, 2.0]
    with pytest.raises(ValueError):
        view[1] = 0.0
