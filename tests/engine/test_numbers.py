"""How numbers read and which typed text is a number."""

from __future__ import annotations

import pytest
from hypothesis import given, strategies as st

from attn_tui.core.numbers import decimals_needed, fixed, fixed_row, parse_number
from attn_tui.core.files.yaml_text import yaml_number

import numpy as np


@pytest.mark.parametrize("value,decimals,tiny,text", [
    (0.7071067811865476, 3, False, "0.707"),
    (-0.0001, 3, False, "0.000"),          # no "-0.000"
    (4.5e-5, 3, False, "0.000"),           # a weight may read 0.000, as in the chapter
    (1e-5, 3, True, "1.000e−5"),           # an input of 1e-5 is not zero (− is U+2212)
    (1e308, 3, False, "1.000e308"),        # not 309 digits
    (-12345678.9, 3, False, "−1.235e7"),    # every minus shown is U+2212, as in −∞
    (9999999.4, 3, False, "9999999.400"),
    (float("-inf"), 3, False, "−∞"),
])
def test_fixed(value, decimals, tiny, text):
    assert fixed(value, decimals, tiny) == text


def test_decimals_needed_shows_integers_as_integers():
    assert decimals_needed(np.array([[1.0, 0.0], [0.0, 1.0]]), 3) == 0
    assert decimals_needed(np.array([[1.0, 0.5]]), 3) == 1
    assert decimals_needed(np.array([[0.12345]]), 3) == 3
    big = np.zeros((100, 100))
    big[99, 99] = 0.25  # a sample would miss it; the full check must not
    assert decimals_needed(big, 3) == 2
    assert decimals_needed(np.array([[1e300, -np.inf]]), 3) == 3


@pytest.mark.parametrize("text", ["", "  ", "abc", "1e999", "nan", "-inf", "inf", "1,5", "2/3",
                                  "--1", "0x10", "１", "٣", "1.0１", "1__0", "_1", "1" * 70, "\x00"])
def test_refused_text(text):
    with pytest.raises(ValueError):
        parse_number(text)


@pytest.mark.parametrize("text,value", [("5", 5.0), (" -0 ", -0.0), ("1_000", 1000.0), ("2.5e-3", 0.0025),
                                        (".5", 0.5), ("5.", 5.0), ("+3", 3.0), ("1E3", 1000.0)])
def test_accepted_text(text, value):
    parsed = parse_number(text)
    assert parsed == value and str(parsed) == str(value)  # -0.0 keeps its sign


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_every_finite_float_round_trips_through_its_yaml_text(value):
    assert parse_number(yaml_number(value)) == value or (value == 0 and parse_number(yaml_number(value)) == 0)


@given(st.lists(st.one_of(st.floats(), st.sampled_from([-0.0, -1e-5, -0.0004, 1e7, -1e7, -np.inf, np.inf])),
                max_size=40),
       st.integers(0, 6), st.booleans(), st.integers(0, 12))
def test_a_row_formatted_at_once_reads_as_each_value_alone(values, decimals, tiny, width):
    """--print and --markdown format whole rows in one pass: it must match fixed() exactly."""
    assert fixed_row(np.array(values, dtype=np.float64), decimals, tiny, width) == \
        [fixed(value, decimals, tiny).rjust(width) for value in values]


def test_the_minus_the_app_prints_can_be_typed_back():
    assert parse_number("−1.5") == -1.5
    assert parse_number("2.5e−3") == 0.0025
    assert parse_number(fixed(-0.25, 3)) == -0.25
