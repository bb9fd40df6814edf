"""core/model/labels.py: the labels of rows and columns every view shares: tokens made visible
and numbered where repeated, dimensions by the space they belong to. Expected labels by hand."""

from __future__ import annotations

import numpy as np

from attn_tui.core.model.labels import concat_dims, dims, input_labels, token_labels
from attn_tui.core.model.scenario import Scenario


def test_a_repeated_token_is_numbered_by_its_position():
    assert token_labels(["the", "cat", "the"]) == ("the₁", "cat", "the₃")
    assert token_labels(("a",) * 11)[10] == "a₁₁"


def test_a_control_character_in_a_token_is_made_visible():
    (label,) = token_labels(["a\x1b[2Jb"])
    assert "\x1b" not in label and label.startswith("a") and label.endswith("[2Jb")


def test_dimensions_are_numbered_from_one_with_their_spaces_letter():
    assert dims(3) == ("d1", "d2", "d3")
    assert dims(2, "m") == ("m1", "m2")
    assert concat_dims(2, 2) == ("h1·d1", "h1·d2", "h2·d1", "h2·d2")


def test_each_input_matrix_is_labelled_by_what_its_rows_and_columns_are():
    scenario = Scenario(
        "p",
        ("the", "cat"),
        {
            "X": np.ones((2, 3)),
            "Wq": np.ones((3, 4)),
            "Wk": np.ones((3, 4)),
            "Wv": np.ones((3, 2)),
            "Wo": np.ones((2, 3)),
            "bo": np.ones((1, 3)),
        },
        heads=2,
    )
    assert input_labels(scenario, "X") == (("the", "cat"), ("m1", "m2", "m3"))
    assert input_labels(scenario, "Wq") == (
        ("m1", "m2", "m3"),
        ("h1·d1", "h1·d2", "h2·d1", "h2·d2"),
    )
    assert input_labels(scenario, "Wv") == (("m1", "m2", "m3"), ("h1·d1", "h2·d1"))
    assert input_labels(scenario, "Wo") == (("h1·d1", "h2·d1"), ("o1", "o2", "o3"))
    assert input_labels(scenario, "bo") == (("bo",), ("o1", "o2", "o3"))


def test_cross_attention_labels_queries_by_their_tokens_and_keys_by_theirs():
    scenario = Scenario(
        "x",
        ("k1", "k2", "k3"),
        {"Q": np.ones((2, 2)), "K": np.ones((3, 2)), "V": np.ones((3, 1)), "bias": np.ones((2, 3))},
        query_tokens=("q1", "q2"),
    )
    assert input_labels(scenario, "Q") == (("q1", "q2"), ("d1", "d2"))
    assert input_labels(scenario, "K") == (("k1", "k2", "k3"), ("d1", "d2"))
    assert input_labels(scenario, "V") == (("k1", "k2", "k3"), ("d1",))
    assert input_labels(scenario, "bias") == (("q1", "q2"), ("k1", "k2", "k3"))
