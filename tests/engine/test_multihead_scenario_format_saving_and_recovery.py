"""Heads in the scenario format (issue 13): written by hand or as a list of matrices, from an
npz, split from projections as PyTorch does, located errors for a layout that does not fit;
an edit of one head saved in place or rewritten, and restored from a recovery copy."""

from __future__ import annotations

import numpy as np
import pytest

from attn_tui.core import ScenarioError, load, loads
from attn_tui.core.editing.session import Session
from attn_tui.core.engine.attention import Attention
from tests.conftest import SCENARIOS
from tests.engine.test_multihead_against_the_reference_and_pytorch import HAND_MADE, THREE_D


def test_heads_written_by_hand_are_heads_written_as_a_list_of_matrices():
    by_hand, three_d = loads(HAND_MADE), loads(THREE_D)
    assert by_hand.heads == three_d.heads == 2 and by_hand.head_names == three_d.head_names == (
        "previous",
        "itself",
    )
    assert by_hand.same_numbers(three_d)
    assert by_hand.inputs["Q"].shape == (2, 3, 2) and by_hand.inputs["bo"].shape == (1, 2)


def test_heads_from_an_npz_of_3d_arrays(tmp_path):
    rng = np.random.default_rng(1)
    np.savez(
        tmp_path / "m.npz",
        Q=rng.normal(size=(4, 5, 2)),
        K=rng.normal(size=(2, 5, 2)),
        V=rng.normal(size=(2, 5, 3)),
        Wo=rng.normal(size=(12, 4)),
        bo=rng.normal(size=4),
    )
    (tmp_path / "s.yaml").write_text("npz: m.npz\nheads: 4\nkv_heads: 2\n")
    scenario = load(tmp_path / "s.yaml")
    assert (scenario.heads, scenario.kv_heads, scenario.d_k, scenario.d_v, scenario.d_out) == (
        4,
        2,
        2,
        3,
        4,
    )


def test_projections_split_by_columns_as_pytorch_does():
    X = [[1, 0, 2], [0, 1, 1]]
    Wq = [[1, 2, 3, 4], [5, 6, 7, 8], [9, 1, 2, 3]]
    text = f"X: {X}\nWq: {Wq}\nWk: {Wq}\nWv: {Wq}\nheads: 2\ncausal: false\n"
    scenario = loads(text)
    attention = Attention(scenario)
    full = np.array(X, float) @ np.array(Wq, float)
    assert np.array_equal(attention.inputs.Q(1), full[:, 2:4])  # head 2: columns 3 and 4
    assert scenario.d_k == 2 and scenario.d_v == 2


@pytest.mark.parametrize(
    "text, fragment",
    [
        (
            "heads: 3\nQ: [[1, 0]]\nK: [[1, 0]]\nV: [[1, 0]]\n",
            "heads: 3 needs one Q, K and V per head",
        ),
        (
            "heads: 2\nQ: [[[1]], [[1]]]\nK: [[[1]], [[1]], [[1]]]\nV: [[[1]], [[1]], [[1]]]\n",
            "2 query heads cannot share 3 key/value heads",
        ),
        (
            "X: [[1, 0]]\nWq: [[1, 0, 1], [0, 1, 0]]\nWk: [[1, 0, 1], [0, 1, 0]]\nWv: [[1], [0]]\n"
            "heads: 2\n",
            "3 columns cannot be split among 2 heads",
        ),
        (
            "query_tokens: [x, y]\ntokens: [a, b, c]\nQ: [[1], [2]]\nK: [[1], [2], [3]]\n"
            "V: [[1], [2], [3]]\n"
            "causal: true\n",
            "causal: true needs as many queries as keys (2 queries, 3 keys); for cross-attention",
        ),
        (
            "query_tokens: [x, y]\ntokens: [a, b, c]\nQ: [[1], [2]]\nK: [[1], [2], [3]]\n"
            "V: [[1], [2], [3]]\n"
            "window: 2\n",
            "window needs as many queries as keys",
        ),
        (
            "tokens: [a, b]\nQ: [[1], [2]]\nK: [[1], [2]]\nV: [[1], [2]]\npadding: [0]\n",
            "padding has 1 flags but there are 2 tokens",
        ),
        (
            "tokens: [a, b]\nQ: [[1], [2]]\nK: [[1], [2]]\nV: [[1], [2]]\npadding: [0, 2]\n",
            "padding 2 must be 0 or 1",
        ),
        (
            "tokens: [a, b]\nQ: [[1], [2]]\nK: [[1], [2]]\nV: [[1], [2]]\nmask: [[1, 0]]\n",
            "mask is 1×2 but the scores are 2×2",
        ),
        (
            "tokens: [a, b]\nQ: [[1], [2]]\nK: [[1], [2]]\nV: [[1], [2]]\nrope: {base: 10000}\n",
            "d_k must be even",
        ),
        (
            "tokens: [a, b]\nX: [[1], [2]]\nX_q: [[1], [2]]\nWq: [[1]]\nWk: [[1]]\nWv: [[1]]\n",
            "X_q holds the queries of cross-attention: give query_tokens too",
        ),
        ("tokens: [a]\nQ: [[1]]\nK: [[1]]\nV: [[1]]\nWo: [[1, 2], [3, 4]]\n", "so it needs 1 rows"),
        (
            "tokens: [a]\nQ: [[1]]\nK: [[1]]\nV: [[1]]\nbo: [1]\n",
            "bo is the output projection's bias",
        ),
        (
            "tokens: [a]\nQ: [[1]]\nK: [[1]]\nV: [[1]]\nX_q: [[1]]\n",
            "X_q goes with X, Wq, Wk and Wv",
        ),
        ("X: [[1]]\nWq: [[[1]]]\nWk: [[1]]\nWv: [[1]]\n", "Wq must be one matrix"),
        (
            "heads: [{name: a, Q: [[1]], K: [[1]], V: [[1]]}, "
            "{name: a, Q: [[1]], K: [[1]], V: [[1]]}]\n",
            "heads 1 and 2 are both named 'a'",
        ),
        ("tokens: [a]\nQ: [[1]]\nK: [[1]]\nV: [[1]]\nexpect: {concat: [[1]]}\n", "no Concat step"),
        (
            "heads: 2\nQ: [[[1]], [[1]]]\nK: [[[1]], [[1]]]\nV: [[[1]], [[1]]]\n"
            "expect: {weights: [[1]]}\n",
            "expect weights is 1×1 but that stage is 2 heads × 1×1",
        ),
    ],
)
def test_a_layout_that_does_not_fit_is_a_located_error(text, fragment):
    with pytest.raises(ScenarioError) as raised:
        loads(text)
    assert fragment in str(raised.value) and raised.value.line is not None


def test_cross_attention_is_not_causal_unless_asked():
    scenario = load(SCENARIOS / "cross_attention.yaml")
    assert scenario.cross and not scenario.options.causal
    assert scenario.T == 3 and scenario.row_tokens == ("the", "cat", "sleeps")


# ---- saving and recovery -------------------------------------------------------------------------


@pytest.mark.parametrize("text", [HAND_MADE, THREE_D])
def test_an_edit_of_one_head_is_saved_in_place_and_reads_back(tmp_path, text):
    path = tmp_path / "heads.yaml"
    path.write_text(text)
    session = Session(load(path))
    session.set_cell("Q", 2, 1, 7.5, head=1)
    session.set_cell("bo", 0, 1, 0.25)
    session.save()
    saved = path.read_text()
    assert "7.5" in saved and "0.25" in saved and saved.count("\n") == text.count("\n")  # in place
    back = load(path)
    assert back.inputs["Q"][1, 2, 1] == 7.5 and back.inputs["Q"][0, 2, 1] == 1.0
    assert back.inputs["bo"][0, 1] == 0.25 and back.head_names == ("previous", "itself")


def test_an_edit_of_a_shared_head_matrix_keeps_the_other_head_as_it_was(tmp_path):
    """Head 2's K is an alias of head 1's: editing head 1's K must not change head 2's."""
    path = tmp_path / "heads.yaml"
    path.write_text(HAND_MADE)
    session = Session(load(path))
    session.set_cell("K", 0, 0, 9.0, head=0)
    session.save()
    back = load(path)
    assert back.inputs["K"][0, 0, 0] == 9.0 and back.inputs["K"][1, 0, 0] == 1.0


def test_a_rewritten_file_keeps_heads_masks_and_rope(tmp_path):
    from attn_tui.core.editing.save import render

    text = (
        "query_tokens: [x, y]\ntokens: [a, b, c]\nheads: 2\nhead_names: [one, two]\n"
        "Q: [[[1, 0], [0, 1]], [[2, 0], [0, 2]]]\nK: [[[1, 0], [0, 1], [1, 1]]]\n"
        "V: [[[1, 0], [0, 1], [1, 1]]]\nkv_heads: 1\npadding: [0, 0, 1]\n"
        "mask: [[1, 1, 0], [0, 1, 1]]\n"
        "rope: {base: 500, pairs: interleaved}\n"
    )
    scenario = loads(text, str(tmp_path / "s.yaml"))
    written = render(scenario, str(tmp_path / "whole.yaml")).text
    back = loads(written, str(tmp_path / "whole.yaml"))
    assert back.same_numbers(scenario)
    for field in ("query_tokens", "heads", "kv_heads", "head_names", "padding", "rope"):
        assert getattr(back, field) == getattr(scenario, field), field
    assert np.array_equal(back.mask, scenario.mask)


def test_a_recovery_copy_restores_an_edit_of_one_head(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    path = tmp_path / "heads.yaml"
    path.write_text(THREE_D)
    first = Session(load(path))
    first.set_cell("V", 1, 0, 4.5, head=1)
    first.journal.flush()
    second = Session(load(path))
    found = second.journal.pending()
    assert found is not None and second.journal.restore(found) == []
    assert (
        second.scenario.inputs["V"][1, 1, 0] == 4.5 and second.scenario.inputs["V"][0, 1, 0] == 0.0
    )


def test_a_mask_may_be_a_boolean_npy_and_a_large_one_is_rewritten_to_a_file(tmp_path):
    from attn_tui.core.editing.save import render

    T = 800  # 640,000 flags: more than a rewritten YAML file may hold
    np.save(tmp_path / "mask.npy", np.tril(np.ones((T, T), bool)))
    np.savez(tmp_path / "qkv.npz", Q=np.ones((T, 2)), K=np.ones((T, 2)), V=np.ones((T, 2)))
    (tmp_path / "s.yaml").write_text("npz: qkv.npz\ncausal: false\nmask: {npy: mask.npy}\n")
    scenario = load(tmp_path / "s.yaml")
    assert scenario.mask.dtype == bool and scenario.mask[0, 1] == False  # noqa: E712
    plan = render(scenario, str(tmp_path / "whole.yaml"))
    assert "mask: {npy:" in plan.text and len(plan.arrays) == 1
