"""core/reading/options.py: ``causal:``, ``scale:``, ``mask_value:`` and the ``variants:`` that
override them, as read, and each mistake as one line at its place (columns counted by hand)."""

from __future__ import annotations

import math

import pytest

from attn_tui.core import ScenarioError, loads
from attn_tui.core.model.options import Options, Variant

BASE = """\
tokens: [a, b]
Q: [[1, 0], [0, 1]]
K: [[1, 0], [0, 1]]
V: [[1, 2], [3, 4]]
"""


def error(text: str) -> str:
    with pytest.raises(ScenarioError) as caught:
        loads(text, "o.yaml")
    return str(caught.value)


def test_the_defaults_are_causal_divided_by_root_dk_and_masked_to_minus_infinity():
    assert loads(BASE).options == Options(causal=True, scale=True, mask_value=-math.inf)


def test_options_as_written():
    scenario = loads(BASE + "causal: no\nscale: 2.5\nmask_value: -1e9\n")
    assert scenario.options == Options(causal=False, scale=2.5, mask_value=-1e9)
    assert loads(BASE + "scale: false\n").options.scale is False


def test_variants_keep_only_what_they_set():
    scenario = loads(
        BASE + "causal: false\nvariants:\n  - {name: ' scaled '}\n  - {name: raw, scale: false}\n"
    )
    assert scenario.variants == (Variant("scaled"), Variant("raw", scale=False))


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ("scale: 0\n", "o.yaml:5:8: scale must be positive: scores are divided by it (got 0)"),
        ("scale: -2\n", "o.yaml:5:8: scale must be positive: scores are divided by it (got -2)"),
        (
            "variants:\n  - {scale: false}\n",
            "o.yaml:6:5: variant 1 needs a name: {name: unscaled, scale: false}",
        ),
        (
            "variants:\n  - {name: u, scale: false}\n  - {name: u}\n",
            "o.yaml:7:12: two variants are named 'u'; names must differ",
        ),
        ("variants:\n  - {name: '  '}\n", "o.yaml:6:12: variant 1 has an empty name"),
    ],
)
def test_each_mistake_is_one_line_at_its_place(extra, message):
    assert error(BASE + extra) == message


def test_at_most_sixteen_variants():
    listed = "".join(f"  - {{name: v{i}}}\n" for i in range(17))
    assert error(BASE + "variants:\n" + listed) == "o.yaml:6:3: 17 variants; at most 16"
    assert len(loads(BASE + "variants:\n" + "".join(listed.splitlines(True)[:16])).variants) == 16
