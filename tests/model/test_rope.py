"""core/model/rope.py: rotary position embeddings, checked against the rotation written out by
hand for small cases (cos and sin of known angles) and against the properties a rotation has."""

from __future__ import annotations

import math

import numpy as np

from attn_tui.core.model.rope import HALF, INTERLEAVED, Rope


def test_the_pairs_of_half_and_interleaved():
    a, b = Rope(pairs=HALF).pair_indices(6)
    assert (a.tolist(), b.tolist()) == ([0, 1, 2], [3, 4, 5])
    a, b = Rope(pairs=INTERLEAVED).pair_indices(6)
    assert (a.tolist(), b.tolist()) == ([0, 2, 4], [1, 3, 5])
    a, b = Rope(pairs=HALF, dims=4).pair_indices(6)  # partial: the first 4 among themselves
    assert (a.tolist(), b.tolist()) == ([0, 1], [2, 3])


def test_the_frequencies_are_base_to_minus_2k_over_d():
    # d = 4, base 100: pair 0 turns 1 a position, pair 1 100^(-2/4) = 0.1
    assert Rope(base=100.0).frequencies(4).tolist() == [1.0, 0.1]
    # partial: r = 2 in place of d
    assert Rope(base=100.0, dims=2).frequencies(8).tolist() == [1.0]


def test_position_zero_turns_nothing():
    values = np.array([[1.0, 2.0, 3.0, 4.0]])
    assert Rope().rotate(values, np.array([0])).tolist() == values.tolist()


def test_a_quarter_turn_by_hand():
    """base 1: every pair turns by the position itself. At position π/2, (x_a, x_b) = (1, 0)
    turns to (0, 1), and (0, 1) to (−1, 0)."""
    rope = Rope(base=1.0, pairs=INTERLEAVED)
    turned = rope.rotate(np.array([[1.0, 0.0, 0.0, 1.0]]), np.array([math.pi / 2]))
    np.testing.assert_allclose(turned, [[0.0, 1.0, -1.0, 0.0]], atol=1e-15)


def test_half_pairs_turn_dimension_j_with_j_plus_half():
    rope = Rope(base=1.0, pairs=HALF)
    turned = rope.rotate(np.array([[1.0, 0.0, 0.0, 0.0]]), np.array([math.pi / 2]))
    # dimension 0 pairs with dimension 2: (1, 0) → (cos, sin) = (0, 1)
    np.testing.assert_allclose(turned, [[0.0, 0.0, 1.0, 0.0]], atol=1e-15)


def test_dimensions_past_the_partial_rotary_pass_through():
    values = np.array([[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]])
    turned = Rope(dims=4).rotate(values, np.array([3]))
    assert turned[0, 4:].tolist() == [5.0, 6.0]
    assert turned[0, :4].tolist() != [1.0, 2.0, 3.0, 4.0]


def test_a_rotation_keeps_lengths_and_scores_depend_on_the_distance_alone():
    """|Rx| = |x|; and q at p, k at p' score q·k by p − p' alone (the reason RoPE is used)."""
    random = np.random.default_rng(5)
    q, k = random.normal(size=(1, 8)), random.normal(size=(1, 8))
    rope = Rope(base=10000.0)
    for p in (0, 1, 7, 100):
        length = np.linalg.norm(rope.rotate(q, np.array([p])))
        assert math.isclose(length, np.linalg.norm(q), rel_tol=1e-14)
    score = [
        (rope.rotate(q, np.array([p + 3])) @ rope.rotate(k, np.array([p])).T)[0, 0]
        for p in (0, 5, 40)
    ]
    assert math.isclose(score[0], score[1], rel_tol=1e-12)
    assert math.isclose(score[0], score[2], rel_tol=1e-12)
