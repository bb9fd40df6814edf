"""How numbers read and which typed text is a number."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from attn_tui.core.files.yaml_text import yaml_number
from attn_tui.core.numbers import decimals_needed, fixed, fixed_row, fixed_rows, parse_number


@pytest.mark.parametrize(
    "value,decimals,tiny,text",
    [
        (0.7071067811865476, 3, False, "0.707"),
        (-0.0001, 3, False, "0.000"),  # no "-0.000"
        (4.5e-5, 3, False, "0.000"),  # a weight may read 0.000, as in the chapter
        (1e-5, 3, True, "1.000e−5"),  # an input of 1e-5 is not zero (− is U+2212)
        (1e308, 3, False, "1.000e308"),  # not 309 digits
        (-12345678.9, 3, False, "−1.235e7"),  # every minus shown is U+2212, as in −∞
        (9999999.4, 3, False, "9999999.400"),
        (float("-inf"), 3, False, "−∞"),
    ],
)
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


@pytest.mark.parametrize(
    "text",
    [
        "",
        "  ",
        "abc",
        "1e999",
        "nan",
        "-inf",
        "inf",
        "1,5",
        "2/3",
        "--1",
        "0x10",
        "１",
        "٣",
        "1.0１",
        "1__0",
        "_1",
        "1" * 70,
        "\x00",
    ],
)
def test_refused_text(text):
    with pytest.raises(ValueError):
        parse_number(text)


@pytest.mark.parametrize(
    "text,value",
    [
        ("5", 5.0),
        (" -0 ", -0.0),
        ("1_000", 1000.0),
        ("2.5e-3", 0.0025),
        (".5", 0.5),
        ("5.", 5.0),
        ("+3", 3.0),
        ("1E3", 1000.0),
    ],
)
def test_accepted_text(text, value):
    parsed = parse_number(text)
    assert parsed == value and str(parsed) == str(value)  # -0.0 keeps its sign


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_every_finite_float_round_trips_through_its_yaml_text(value):
    assert parse_number(yaml_number(value)) == value or (
        value == 0 and parse_number(yaml_number(value)) == 0
    )


@given(
    st.lists(
        st.one_of(st.floats(), st.sampled_from([-0.0, -1e-5, -0.0004, 1e7, -1e7, -np.inf, np.inf])),
        max_size=40,
    ),
    st.integers(0, 6),
    st.booleans(),
    st.integers(0, 12),
)
def test_a_row_formatted_at_once_reads_as_each_value_alone(values, decimals, tiny, width):
    """--print and --markdown format whole rows in one pass: it must match fixed() exactly."""
    assert fixed_row(np.array(values, dtype=np.float64), decimals, tiny, width) == [
        fixed(value, decimals, tiny).rjust(width) for value in values
    ]


@given(st.integers(1, 5), st.integers(1, 8), st.integers(0, 7), st.integers(0, 2), st.data())
def test_a_block_formatted_at_once_reads_as_each_value_alone(rows, cols, decimals, spare, data):
    """--print formats a block of rows at once, digit columns by NumPy: each row must read as
    its values through fixed() alone, the blocked ones as the mask's text."""
    value = st.one_of(
        st.floats(-9e6, 9e6),
        st.floats(-1e-3, 1e-3),
        st.sampled_from([-0.0, 0.0, 0.5, 0.0625, 2.5, -0.0005, 1e7, np.nan, np.inf, -np.inf]),
        st.integers(-999, 999).map(lambda n: n / 8),
    )  # exact halves and eighths: ties
    block = np.array(
        data.draw(
            st.lists(st.lists(value, min_size=cols, max_size=cols), min_size=rows, max_size=rows)
        ),
        dtype=np.float64,
    )
    blocked = np.array(
        data.draw(
            st.lists(
                st.lists(st.booleans(), min_size=cols, max_size=cols), min_size=rows, max_size=rows
            )
        )
    )
    width = max(4, *(len(fixed(v, decimals)) for v in block.ravel().tolist())) + spare
    masked = "−∞"
    expected = [
        "  ".join(
            masked.rjust(width) if blocked[i, j] else fixed(block[i, j], decimals).rjust(width)
            for j in range(cols)
        )
        for i in range(rows)
    ]
    assert fixed_rows(block, decimals, width, blocked, masked) == expected
    assert fixed_rows(block, decimals, width) == [
        "  ".join(fixed(v, decimals).rjust(width) for v in row) for row in block.tolist()
    ]


def test_the_minus_the_app_prints_can_be_typed_back():
    assert parse_number("−1.5") == -1.5
    assert parse_number("2.5e−3") == 0.0025
    assert parse_number(fixed(-0.25, 3)) == -0.25
