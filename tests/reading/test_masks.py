"""core/reading/masks.py: the mask rules a scenario file may add to causal (``window:``,
``padding:``, ``mask:`` in YAML or a ``.npy``), what each reads as, and the one located line a
mistake in each gets. Lines and columns are counted by hand in the texts below."""

from __future__ import annotations

import numpy as np
import pytest

from attn_tui.core import ScenarioError, load, loads

THREE = """\
tokens: [a, b, c]
Q: [[1, 0], [0, 1], [1, 1]]
K: [[1, 0], [0, 1], [1, 1]]
V: [[1, 2], [3, 4], [5, 6]]
"""

# two queries against three keys: cross-attention, where the causal mask has no meaning
CROSS = """\
tokens: [a, b, c]
query_tokens: [x, y]
Q: [[1, 0], [0, 1]]
K: [[1, 0], [0, 1], [1, 1]]
V: [[1, 2], [3, 4], [5, 6]]
"""


def error(text: str) -> str:
    with pytest.raises(ScenarioError) as caught:
        loads(text, "m.yaml")
    return str(caught.value)


def test_no_rule_given_reads_as_none():
    scenario = loads(THREE)
    assert (scenario.window, scenario.padding, scenario.mask) == (None, None, None)


def test_padding_reads_one_flag_a_key_in_any_spelling():
    assert loads(THREE + "padding: [0, 0, 1]\n").padding == (False, False, True)
    assert loads(THREE + "padding: [false, no, yes]\n").padding == (False, False, True)
    assert loads(THREE + "padding: [0.0, 1.0, 0]\n").padding == (False, True, False)


def test_a_window_is_a_whole_number_of_positions():
    assert loads(THREE + "window: 2\n").window == 2
    assert error(THREE + "window: 0\n") == "m.yaml:5:9: window must be from 1 to 16384, not 0"


def test_an_explicit_mask_reads_as_booleans_one_per_score():
    scenario = loads(THREE + "causal: false\nmask: [[1, 0, 0], [1, 1, 0], [1.0, 1, true]]\n")
    assert scenario.mask.tolist() == [
        [True, False, False],
        [True, True, False],
        [True, True, True],
    ]


def test_a_mask_row_written_once_and_aliased_reads_the_same():
    scenario = loads(THREE + "causal: false\nmask: [&r [1, 0, 1], *r, *r]\n")
    assert scenario.mask.tolist() == [[True, False, True]] * 3


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (
            "padding: 3\n",
            "m.yaml:5:10: padding must be a list with one 0 or 1 per token, like [0, 0, 1] "
            "(1 = padding, never attended)",
        ),
        (
            "padding: [0, 1]\n",
            "m.yaml:5:10: padding has 2 flags but there are 3 tokens (keys): one 0 or 1 per token",
        ),
        (
            "padding: [0, 2, 1]\n",
            "m.yaml:5:14: padding 2 must be 0 or 1 (or false or true), not '2'",
        ),
        (
            "mask: [[1, 0], [1, 1], [1, 1]]\n",
            "m.yaml:5:7: mask is 3×2 but the scores are 3×3 (queries × keys): one 0 or 1 per score",
        ),
        (
            "mask: [[1,0,0],[1,1,0],[1,1,0.5]]\n",
            "m.yaml:5:29: mask row 3 column 3 must be 0 or 1 (or false or true), not '0.5'",
        ),
    ],
)
def test_each_mistake_is_one_line_at_its_place(extra, message):
    assert error(THREE + extra) == message


HELP = (
    "for cross-attention, hide keys with mask: (a T_q × T_k matrix of 0/1, 1 = may attend) "
    "or padding: (one 0/1 per key, 1 = never attended)"
)


def test_cross_attention_refuses_causal_and_a_window_and_says_what_hides_keys_there():
    assert error(CROSS + "causal: true\n") == (
        f"m.yaml:6:9: causal: true needs as many queries as keys (2 queries, 3 keys); {HELP}"
    )
    assert error(CROSS + "causal: false\nvariants:\n  - {name: c, causal: true}\n") == (
        "m.yaml:8:5: variant 'c': causal needs as many queries as keys (2 queries, 3 keys); " + HELP
    )
    assert error(CROSS + "causal: false\nwindow: 1\n") == (
        "m.yaml:7:1: window needs as many queries as keys (2 queries, 3 keys): it counts "
        f"positions back from the query's; {HELP}"
    )


def test_cross_attention_takes_a_mask_of_queries_by_keys():
    scenario = loads(CROSS + "causal: false\nmask: [[1, 1, 0], [0, 1, 1]]\npadding: [0, 0, 1]\n")
    assert scenario.mask.tolist() == [[True, True, False], [False, True, True]]
    assert scenario.padding == (False, False, True)


def test_a_mask_from_a_npy_file(tmp_path):
    np.save(tmp_path / "m.npy", np.array([[1, 0, 0], [1, 1, 0], [0, 1, 1]], np.int8))
    (tmp_path / "s.yaml").write_text(THREE + "causal: false\nmask: {npy: m.npy}\n")
    assert load(tmp_path / "s.yaml").mask.tolist() == [
        [True, False, False],
        [True, True, False],
        [False, True, True],
    ]


def test_a_npy_mask_of_the_wrong_shape_or_values_is_refused(tmp_path):
    path = tmp_path / "s.yaml"
    path.write_text(THREE + "causal: false\nmask: {npy: m.npy}\n")
    np.save(tmp_path / "m.npy", np.ones((3, 2), np.int8))
    with pytest.raises(ScenarioError, match=r"m\.npy is 3×2 but the scores are 3×3"):
        load(path)
    values = np.ones((3, 3))
    values[1, 2] = 2.0
    np.save(tmp_path / "m.npy", values)
    # [1, 2] counted from 0 is row 2, column 3
    with pytest.raises(ScenarioError) as caught:
        load(path)
    assert str(caught.value).endswith(
        "s.yaml:6:7: mask: m.npy row 2 column 3 is 2; a mask holds 0 (hidden) or 1 (may attend)"
    )
