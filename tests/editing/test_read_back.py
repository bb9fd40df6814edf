"""core/editing/read_back.py: the check a save makes before it writes anything: the text, read
back, gives exactly the scenario being saved, or the save is refused with the reason."""

from __future__ import annotations

import pytest

from attn_tui.core import loads
from attn_tui.core.editing.read_back import LAYOUT, verify
from attn_tui.core.errors import NeedsRewrite, SaveError

TEXT = """\
tokens: [a, b]
Q: [[1, 0], [0, 1]]
K: [[1, 0], [0, 1]]
V: [[1, 2], [3, 4]]
"""


def test_a_text_that_reads_back_to_the_scenario_passes():
    verify(TEXT, loads(TEXT), "s.yaml")
    edited = loads(TEXT).with_cell("V", 0, 0, 0.1 + 0.2)
    verify(TEXT.replace("[[1, 2]", "[[0.30000000000000004, 2]"), edited, "s.yaml")


def test_a_number_one_ulp_off_is_refused():
    edited = loads(TEXT).with_cell("V", 0, 0, 0.1 + 0.2)
    written = TEXT.replace("[[1, 2]", "[[0.3, 2]")  # 0.3 is not 0.1 + 0.2 in float64
    with pytest.raises(NeedsRewrite) as in_place:
        verify(written, edited, "s.yaml")
    assert str(in_place.value) == LAYOUT
    with pytest.raises(SaveError, match="would not give back every number; nothing was written"):
        verify(written, edited, "s.yaml", in_place=False)


def test_minus_zero_written_as_zero_is_refused():
    edited = loads(TEXT).with_cell("Q", 0, 1, -0.0)
    with pytest.raises(NeedsRewrite):
        verify(TEXT, edited, "s.yaml")


def test_the_same_numbers_with_other_tokens_are_refused():
    with pytest.raises(NeedsRewrite):
        verify(TEXT.replace("[a, b]", "[a, c]"), loads(TEXT), "s.yaml")


def test_a_text_that_does_not_load_says_why():
    broken = TEXT.replace("V: [[1, 2], [3, 4]]", "V: [[1, 2]]")
    with pytest.raises(NeedsRewrite, match=r"with the edit in place it would not load: "):
        verify(broken, loads(TEXT), "s.yaml")
    with pytest.raises(SaveError, match=r"^the file would not load \(.*\); nothing was written$"):
        verify(broken, loads(TEXT), "s.yaml", in_place=False)
