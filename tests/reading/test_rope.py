"""core/reading/rope.py: ``rope: {base, pairs, dims}`` as read, and each mistake as one line at
its place (columns counted by hand)."""

from __future__ import annotations

import pytest

from attn_tui.core import ScenarioError, loads
from attn_tui.core.model.rope import Rope

EVEN = "tokens: [a, b]\nQ: [[1, 0], [0, 1]]\nK: [[1, 0], [0, 1]]\nV: [[1, 2], [3, 4]]\n"
ODD = "tokens: [a, b]\nQ: [[1, 0, 1], [0, 1, 1]]\nK: [[1, 0, 1], [0, 1, 1]]\nV: [[1], [3]]\n"


def error(text: str) -> str:
    with pytest.raises(ScenarioError) as caught:
        loads(text, "r.yaml")
    return str(caught.value)


def test_no_rope_and_the_defaults():
    assert loads(EVEN).rope is None
    assert loads(EVEN + "rope: {}\n").rope == Rope(base=10000.0, pairs="half", dims=None)


def test_every_key_as_written():
    read = loads(ODD + "rope: {dims: 2, pairs: interleaved, base: 500}\n").rope
    assert read == Rope(base=500.0, pairs="interleaved", dims=2)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            EVEN + "rope: {base: 1}\n",
            "r.yaml:5:14: rope base must be more than 1 (10000 is usual), not 1",
        ),
        (
            EVEN + "rope: {pairs: odd}\n",
            "r.yaml:5:15: rope pairs must be 'half' (dimension j with j + d/2, as Llama) or "
            "'interleaved' (j with j + 1), not 'odd'",
        ),
        (EVEN + "rope: {dims: 3}\n", "r.yaml:5:14: rope dims must be from 2 to 2, not 3"),
        (ODD + "rope: {dims: 1}\n", "r.yaml:5:14: rope dims must be from 2 to 3, not 1"),
        (
            ODD + "rope: {}\n",
            "r.yaml:5:1: rope turns pairs of dimensions: d_k must be even, not 3 (or turn only "
            "some: rope: {dims: N})",
        ),
    ],
)
def test_each_mistake_is_one_line_at_its_place(text, message):
    assert error(text) == message


def test_an_odd_number_of_dimensions_to_turn_is_refused():
    four = EVEN.replace("[1, 0]", "[1, 0, 0, 0]").replace("[0, 1]", "[0, 1, 0, 0]")
    assert error(four + "rope: {dims: 3}\n") == (
        "r.yaml:5:14: rope dims turns pairs of dimensions: it must be even, not 3"
    )
