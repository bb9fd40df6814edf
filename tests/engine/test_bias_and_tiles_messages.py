"""ALiBi's slopes given in the file, a slope too small to matter said so, and the messages a bias
or a tiles key gets when written wrong (issue 29: each failed before its fix)."""

from __future__ import annotations

import numpy as np
import pytest

from attn_tui.core.engine.attention import Attention
from attn_tui.core.engine.explanation import explain
from attn_tui.core.errors import ScenarioError
from attn_tui.core.loading.scenario_file import loads

QKV = """tokens: [a, b, c]
Q: [[1, 0], [0, 1], [1, 1]]
K: [[1, 0], [0, 1], [1, 1]]
V: [[1, 0], [0, 1], [1, 1]]
"""


def test_one_slope_for_every_head_or_one_per_head():
    scenario = loads(QKV + "alibi: {slope: 1}\n")
    bias = Attention(scenario).values("bias", 0, range(3), range(3)) - Attention(scenario).values(
        "scale", 0, range(3), range(3)
    )
    assert np.allclose(bias, -np.abs(np.arange(3)[:, None] - np.arange(3)[None, :]))
    two = QKV.replace(
        "Q: [[1, 0], [0, 1], [1, 1]]", "Q: [[[1, 0], [0, 1], [1, 1]], [[1, 0], [0, 1], [1, 1]]]"
    )
    two = two.replace(
        "K: [[1, 0], [0, 1], [1, 1]]", "K: [[[1, 0], [0, 1], [1, 1]], [[1, 0], [0, 1], [1, 1]]]"
    )
    two = two.replace(
        "V: [[1, 0], [0, 1], [1, 1]]", "V: [[[1, 0], [0, 1], [1, 1]], [[1, 0], [0, 1], [1, 1]]]"
    )
    scenario = loads(two + "heads: 2\nalibi: {slopes: [2, 0.5]}\n")
    attention = Attention(scenario)
    for h, slope in enumerate((2, 0.5)):
        added = attention.values("bias", h, range(3), range(3)) - attention.values(
            "scale", h, range(3), range(3)
        )
        assert np.allclose(added[2], [-2 * slope, -slope, 0])


def test_a_slope_too_small_to_matter_is_said_so():
    text = explain(Attention(loads(QKV + "alibi: true\n")), "bias", 2).plain()
    assert "m = 2^(−8·1/1) = 0.0039" in text  # the paper's slope for one head: 2^−8
    assert "too small to matter at T = 3" in text and "alibi: {slope: 1}" in text
    assert (
        "too small" not in explain(Attention(loads(QKV + "alibi: {slope: 1}\n")), "bias", 2).plain()
    )
    tiny = explain(Attention(loads(QKV + "alibi: {slope: 1e-9}\n")), "bias", 2).plain()
    assert (
        "m = 1.0000e−9 (given in the file)" in tiny and "0.0000" not in tiny
    )  # it read m = this head's = 0.0000
    assert "A slope of 1.0000e−9 moves no score of this row by more than 2.0000e−9" in tiny


def test_given_slopes_are_saved_as_given():
    setting = loads(QKV + "alibi: {slopes: [0.25]}\n").stage_settings["bias"]
    assert setting.yaml(None) == "alibi: {slopes: [0.25]}\n"
    assert loads(QKV + setting.yaml(None)).stage_settings["bias"] == setting


@pytest.mark.parametrize(
    "text, message",
    [
        ("alibi: {slope: 1, slopes: [1]}\n", "5:8: alibi must be true"),
        ("alibi: {slopes: [1, 2]}\n", "alibi slopes has 2 slopes but the scenario has 1 head"),
        ("alibi: {slope: 0}\n", "an alibi slope must be a positive number"),
        ("alibi: {slope: .inf}\n", "finite"),
        ("alibi: {slop: 1}\n", "did you mean 'slope'?"),
        (
            "alibi: 0.5\n",
            "5:8: alibi must be true, false or a mapping, not the number 0.5: for one slope give "
            "alibi: {slope: 0.5}, for one per head alibi: {slopes: [...]}",
        ),
        ("alibi: 2\n", "alibi: {slope: 2}"),
        ("alibi: maybe\n", "alibi must be true or false, not"),
        # the row named is one whose length is not T_k (3 keys here), even when most rows are wrong
        (
            "bias: [[1, 2], [1, 2, 3], [1, 2, 3]]\n",
            "5:8: bias row 1 has 2 numbers but there are 3 keys: one number per key",
        ),
        (
            "bias: [[1, 2, 3], [1, 2, 3, 4], [1, 2, 3]]\n",
            "5:19: bias row 2 has 4 numbers but there are 3 keys",
        ),
        (
            "bias: [[0, 0, 0, 0], [0, 0, 0], [0, 0, 0, 0]]\n",
            "5:8: bias row 1 has 4 numbers but there are 3 keys",
        ),
        (
            "bias: [[0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]]\n",
            "5:19: bias row 2 has 4 numbers but there are 3 keys",
        ),
        (
            "bias: [[0, 0], [0, 0, 0, 0], [0, 0, 0]]\n",
            "5:8: bias row 1 has 2 numbers but there are 3 keys",
        ),
        ("bias: [[[0, 0, 0], [0, 0, 0], [0, 0, 0]]]\nheads: 1\n", None),
        (
            "bias: [[[0, 0, 0], [0, 0], [0, 0, 0]]]\n",
            "bias of head 1 row 2 has 2 numbers but there are 3 keys",
        ),
        # rows of every length equal but not T_k: the shape is what is wrong
        ("bias: [[0, 0], [0, 0], [0, 0]]\n", "bias is 3×2 but the scores are 3×3"),
        ("tiles: 3\n", "tiles must be a mapping {queries: Br, keys: Bc}"),
        ("tiles: [2, 4]\n", "e.g. tiles: {queries: 2, keys: 4}"),
    ],
)
def test_a_wrong_key_says_what_is_wrong_and_where(text, message):
    if message is None:  # (a case that loads: the ones around it fail for the reason they name)
        loads(QKV + text, "mine.yaml")
        return
    with pytest.raises(ScenarioError) as caught:
        loads(QKV + text, "mine.yaml")
    assert message in str(caught.value)


@pytest.mark.parametrize(
    "rows, message",
    [
        ("[[1, 0], [1, 0, 0], [1, 0, 0, 0]]", "Q row 2 has 3 numbers but 1 row has 2"),
        ("[[1, 0], [1, 0, 0], [1, 0]]", "Q row 2 has 3 numbers but the other rows have 2"),
        ("[[1, 0, 0], [1, 0], [1, 0]]", "Q row 1 has 3 numbers but the other rows have 2"),
    ],
)
def test_a_matrix_of_no_set_width_names_the_row_that_differs_from_most(rows, message):
    with pytest.raises(ScenarioError) as caught:
        loads(QKV.replace("Q: [[1, 0], [0, 1], [1, 1]]", f"Q: {rows}"), "mine.yaml")
    assert message in str(caught.value)


def test_a_query_tile_of_one_row_is_said_in_the_singular():
    # the check of #29: "row 3 ("sat") share this pass … read once for all of them"
    from tests.conftest import SCENARIOS

    scenario = loads((SCENARIOS / "cat_sat.yaml").read_text() + "tiles: {queries: 1, keys: 2}\n")
    text = explain(Attention(scenario), "online", 2).plain()
    assert 'row 3 ("sat") has this pass to itself' in text and "share" not in text
