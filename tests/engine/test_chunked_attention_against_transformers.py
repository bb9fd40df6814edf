"""Chunked attention (Llama 4's ``attention_chunk_size``) against the mask written here from
transformers 5's ``transformers/masking_utils.py``, with nothing of attn_tui's:

    chunked_overlay: (kv_idx - left_padding) // chunk_size == (q_idx - left_padding) // chunk_size
    chunked_causal_mask_function = and_masks(chunked_overlay(...), causal_mask_function)

and the weights against a dense softmax over that mask."""

from __future__ import annotations

import json

import numpy as np
import pytest

from attn_tui.core import load
from attn_tui.core.engine.attention import Attention
from attn_tui.core.errors import ScenarioError
from attn_tui.core.loading.scenario_file import loads
from tests.conftest import SCENARIOS
from tests.reference import softmax

RNG = np.random.default_rng(64)


def chunked_causal(T: int, chunk: int, left_padding: int = 0) -> np.ndarray:
    q, kv = np.arange(T)[:, None], np.arange(T)[None, :]
    same_chunk = (kv - left_padding) // chunk == (q - left_padding) // chunk
    return same_chunk & (kv <= q)


def qkv_text(Q, K, V, extra: str) -> str:
    return (
        f"Q: {json.dumps(Q.tolist())}\nK: {json.dumps(K.tolist())}\n"
        f"V: {json.dumps(V.tolist())}\n{extra}"
    )


@pytest.mark.parametrize(("T", "chunk"), [(8, 3), (9, 3), (5, 1), (6, 6), (7, 10)])
def test_the_mask_is_transformers_chunked_causal_mask(T, chunk):
    Q, K, V = (RNG.normal(size=(T, 3)) for _ in range(3))
    scenario = loads(qkv_text(Q, K, V, f"chunk: {chunk}\n"))
    attention = Attention(scenario)
    allowed = chunked_causal(T, chunk)
    assert np.array_equal(~attention.blocked(range(T), range(T)), allowed)
    weights = softmax(np.where(allowed, Q @ K.T / np.sqrt(3), -np.inf))
    assert np.allclose(attention.values("softmax", 0, range(T), range(T)), weights, rtol=1e-12)


def test_chunks_start_after_the_left_padding_as_transformers_counts_them():
    T, chunk = 7, 3  # (a chunk of 2 would hide a wrong start: 2 pads are one chunk)
    Q, K, V = (RNG.normal(size=(T, 2)) for _ in range(3))
    scenario = loads(qkv_text(Q, K, V, f"padding: [1, 1, 0, 0, 0, 0, 0]\nchunk: {chunk}\n"))
    attention = Attention(scenario)
    allowed = chunked_causal(T, chunk, left_padding=2) & ~np.isin(np.arange(T), [0, 1])[None, :]
    assert np.array_equal(~attention.blocked(range(T), range(T)), allowed)


def test_online_softmax_skips_the_tiles_no_row_of_a_pass_can_see():
    """seen_by_any works out the chunks from the rules, never building the rows × keys mask."""
    T, chunk = 12, 4
    Q, K, V = (RNG.normal(size=(T, 2)) for _ in range(3))
    scenario = loads(qkv_text(Q, K, V, f"chunk: {chunk}\n"))
    visibility = scenario.visibility()
    for start in range(0, T, 3):
        rows = range(start, min(start + 3, T))
        want = chunked_causal(T, chunk)[start : rows.stop].any(axis=0)
        assert np.array_equal(visibility.seen_by_any(rows, T), want), start


def test_the_built_in_scenario_says_why_a_key_is_hidden():
    from attn_tui.core.engine.explanation import explain

    scenario = load(SCENARIOS / "chunked_attention.yaml")
    attention = Attention(scenario)
    said = explain(attention, "mask", row=5, fold=None).plain()
    assert "is in another chunk" in said


@pytest.mark.parametrize(
    ("extra", "said"),
    [
        ("chunk: 0\n", "chunk"),
        ("chunk: 2\ndecode: true\n", "decode: and chunk: do not go together"),
        ("chunk: 1.5\n", "chunk"),
    ],
)
def test_a_wrong_chunk_is_one_clear_line(extra, said):
    text = "Q: [[1, 0], [0, 1]]\nK: [[1, 0], [0, 1]]\nV: [[1, 0], [0, 1]]\n"
    with pytest.raises(ScenarioError) as raised:
        loads(text + extra)
    assert said in str(raised.value)
