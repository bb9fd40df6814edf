"""core/loading/unknown_keys.py: every unknown key of a scenario file named at once, each at its
line and column (counted by hand below), with the known key it was likely meant to be; inside
variants, rope and the like too."""

from __future__ import annotations

import pytest

from attn_tui.core import ScenarioError, loads

BASE = """\
tokens: [a, b]
Q: [[1, 0], [0, 1]]
K: [[1, 0], [0, 1]]
V: [[1, 2], [3, 4]]
"""


def error(text: str) -> str:
    with pytest.raises(ScenarioError) as caught:
        loads(text, "u.yaml")
    return str(caught.value)


def test_an_unknown_key_at_the_top_is_named_with_what_was_meant():
    assert error(BASE + "casual: true\n") == (
        "u.yaml:5:1: unknown key 'casual' in the scenario; did you mean 'causal'?"
    )


def test_every_unknown_key_is_named_at_once_nested_ones_too():
    text = (
        BASE
        + "casual: true\n"  # line 5
        + "variants:\n"
        + "  - {name: u, scael: false}\n"  # line 7: scael at column 15
        + "  - {name: v, mask_valu: -1}\n"  # line 8
        + "rope: {bse: 10}\n"  # line 9: bse at column 8
    )
    assert error(text).splitlines() == [
        "u.yaml:5:1: unknown key 'casual' in the scenario; did you mean 'causal'?",
        "u.yaml:7:15: unknown key 'scael' in variant 1; did you mean 'scale'?",
        "u.yaml:8:15: unknown key 'mask_valu' in variant 2; did you mean 'mask_value'?",
        "u.yaml:9:8: unknown key 'bse' in rope; did you mean 'base'?",
    ]


def test_a_nested_mapping_written_wrong_is_left_to_its_own_reader():
    """variants: 3 is not a list: its reader says so, not the unknown-key check."""
    assert error(BASE + "variants: 3\n") == (
        "u.yaml:5:11: variants must be a list like [{name: scaled}, {name: unscaled, scale: false}]"
    )


def test_known_keys_pass():
    loads(BASE + "causal: false\nvariants:\n  - {name: u, scale: false}\nrope: {base: 10}\n")
