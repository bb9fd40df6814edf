"""The overview's downsampling: a known matrix gives known cells."""

import numpy as np

from attn_tui.core.teaching.overview import block_edges, downsample
from tests.reference import softmax


def test_block_means_of_a_known_matrix():
    values = np.arange(16, dtype=float).reshape(4, 4)
    assert downsample(values, 2, 2).tolist() == [[2.5, 4.5], [10.5, 12.5]]  # (0+1+4+5)/4 = 2.5 …


def test_uneven_blocks_cover_every_row_and_column_once():
    values = np.ones((10, 7))
    edges = block_edges(10, 3)
    assert edges.tolist() == [0, 3, 7, 10]
    assert np.array_equal(downsample(values, 3, 2), np.ones((3, 2)))  # a mean of ones is one
    # blocks of 3, 4 and 3 rows and columns: the diagonal's ones average to 3/9, 4/16, 3/9
    assert np.allclose(downsample(np.eye(10), 3, 3), np.diag([3 / 9, 4 / 16, 3 / 9]))


def test_a_small_matrix_is_not_stretched():
    values = np.array([[1.0, 0.0], [0.25, 0.75]])
    assert np.array_equal(downsample(values, 32, 32), values)


def test_a_diagonal_shows_on_the_diagonal():
    small = downsample(np.eye(1024), 32, 32)
    assert small.shape == (32, 32)
    assert np.allclose(np.diag(small), 1 / 32) and np.allclose(small - np.diag(np.diag(small)), 0)


def test_a_map_computed_in_bigger_blocks_is_the_whole_weights_shrunk():
    """The model view computes 128 query rows at a time (Attention(block=128)); its map is the
    block means of the weights softmax(QKᵀ/√d_k) written here whole, causal, as the app's."""
    from attn_tui.core import loads
    from attn_tui.core.engine.attention import Attention
    from attn_tui.core.teaching.overview import weights_overview

    rng = np.random.default_rng(7)
    T, d = 300, 8
    Q, K, V = (rng.standard_normal((T, d)) for _ in range(3))
    text = (
        "tokens: ["
        + ", ".join(f"t{i}" for i in range(T))
        + "]\n"
        + "".join(f"{name}: {matrix.tolist()}\n" for name, matrix in (("Q", Q), ("K", K), ("V", V)))
    )
    scenario = loads(text)
    scores = Q @ K.T / np.sqrt(d)
    scores[np.triu_indices(T, 1)] = -np.inf
    weights = softmax(scores)
    expected = downsample(weights, 7, 9)
    for block in (16, 128, 1000):
        found = weights_overview(Attention(scenario, block=block), 0, 7, 9, band=128)
        assert np.allclose(found, expected, rtol=0, atol=1e-14), block
