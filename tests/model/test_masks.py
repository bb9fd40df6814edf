"""core/model/masks.py: which keys a query may see under each rule and all of them together, and
why a cell is hidden. Expected masks are written out by hand, or from the rules as a reader
states them, one cell at a time."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from attn_tui.core.model.masks import SEEN_ROWS, Visibility


def every(n: int) -> np.ndarray:
    return np.arange(n)


def visible_by_rules(i: int, j: int, causal, window, padding, explicit, offset=1) -> bool:
    """One cell, from the rules as said: a query never sees a later key (causal: j < i + offset),
    sees only the ``window`` most recent positions (i − window < j ≤ i), never a padding key,
    and only where the explicit mask says 1."""
    if causal and j >= i + offset:
        return False
    if window is not None and not (i - window < j <= i):
        return False
    if padding is not None and padding[j]:
        return False
    return explicit is None or bool(explicit[i, j])


def test_the_causal_mask_hides_the_future_by_hand():
    hidden = Visibility(causal=True).blocked(every(3), every(3))
    assert hidden.tolist() == [
        [False, True, True],
        [False, False, True],
        [False, False, False],
    ]


def test_a_causal_offset_of_zero_hides_the_diagonal_too_and_two_shows_one_key_ahead():
    assert Visibility(causal=True, causal_offset=0).blocked(every(2), every(2)).tolist() == [
        [True, True],
        [False, True],
    ]
    assert Visibility(causal=True, causal_offset=2).blocked(every(3), every(3)).tolist() == [
        [False, False, True],
        [False, False, False],
        [False, False, False],
    ]


def test_a_window_of_two_sees_itself_and_the_one_before():
    hidden = Visibility(window=2).blocked(every(4), every(4))
    assert (~hidden).tolist() == [
        [True, False, False, False],
        [True, True, False, False],
        [False, True, True, False],
        [False, False, True, True],
    ]


def test_padding_hides_its_keys_from_every_query():
    padding = np.array([False, False, True])
    assert Visibility(padding=padding).blocked(every(2), every(3)).tolist() == [
        [False, False, True],
        [False, False, True],
    ]


def test_rules_combine_a_cell_is_seen_only_if_every_rule_allows_it():
    explicit = np.array([[1, 0, 1], [1, 1, 1], [0, 1, 1]], bool)
    visibility = Visibility(causal=True, padding=np.array([False, True, False]), explicit=explicit)
    assert (~visibility.blocked(every(3), every(3))).tolist() == [
        [True, False, False],  # causal hides 1, 2
        [True, False, False],  # padding hides 1, causal 2
        [False, False, True],  # the mask hides 0, padding 1
    ]


def test_a_window_of_rows_and_columns_is_the_same_cells_as_the_whole():
    visibility = Visibility(causal=True, window=3)
    whole = visibility.blocked(every(8), every(8))
    rows, cols = np.arange(4, 7), np.arange(2, 6)
    assert visibility.blocked(rows, cols).tolist() == whole[np.ix_(rows, cols)].tolist()


def test_the_rules_in_force_are_told_in_one_order():
    assert Visibility().rules == ()
    everything = Visibility(
        causal=True, window=2, padding=np.zeros(2, bool), explicit=np.ones((2, 2), bool)
    )
    assert everything.rules == ("causal", "window", "padding", "mask")


def test_each_hidden_key_says_every_rule_that_hides_it():
    visibility = Visibility(causal=True, window=2, padding=np.array([True, False, False, False]))
    # row 2 sees keys 1 and 2; key 0 is outside the window and padding; key 3 is the future,
    # which the window (the most recent positions, itself included) leaves out too
    assert visibility.reasons(2, every(4)) == [
        ("window", "padding"),
        (),
        (),
        ("causal", "window"),
    ]


@pytest.mark.parametrize(
    ("causal", "window", "padded", "explicit"),
    [
        (False, None, False, False),
        (True, None, False, False),
        (False, 3, False, False),
        (True, 2, True, False),
        (True, None, True, True),
        (False, 4, False, True),
    ],
)
def test_a_key_seen_by_any_row_agrees_with_the_rules_cell_by_cell(causal, window, padded, explicit):
    T = 20
    random = np.random.default_rng(7)
    padding = random.random(T) < 0.2 if padded else None
    mask = random.random((T, T)) < 0.6 if explicit else None
    visibility = Visibility(causal=causal, window=window, padding=padding, explicit=mask)
    for start, stop in [(0, T), (0, 1), (5, 9), (12, 20), (19, 20)]:
        expected = [
            any(visible_by_rules(i, j, causal, window, padding, mask) for i in range(start, stop))
            for j in range(T)
        ]
        assert visibility.seen_by_any(range(start, stop), T).tolist() == expected, (start, stop)


def test_an_explicit_mask_is_read_a_few_rows_at_a_time_and_each_row_counts():
    """More rows than SEEN_ROWS: a key seen by the last row alone is seen."""
    T = SEEN_ROWS + 5
    mask = np.zeros((T, T), bool)
    mask[T - 1, 3] = True
    seen = Visibility(explicit=mask).seen_by_any(range(T), T)
    assert np.flatnonzero(seen).tolist() == [3]


def test_blocked_agrees_with_the_rules_on_every_cell():
    T = 9
    random = np.random.default_rng(3)
    padding = random.random(T) < 0.3
    mask = random.random((T, T)) < 0.7
    for causal, window in itertools.product((False, True), (None, 1, 4)):
        visibility = Visibility(causal=causal, window=window, padding=padding, explicit=mask)
        hidden = visibility.blocked(every(T), every(T))
        for i, j in itertools.product(range(T), range(T)):
            assert hidden[i, j] == (not visible_by_rules(i, j, causal, window, padding, mask))
