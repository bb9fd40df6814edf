"""core/model/heads.py: each head's Q, K, V as attention reads them: the columns of X·W a head
takes, the key/value head a query head reads (grouped-query attention), RoPE, and an edit
telling exactly which rows of which heads moved while the values stay those of a fresh
computation. Expected values by hand or by X @ W written here."""

from __future__ import annotations

import numpy as np

from attn_tui.core.model.heads import ROWS, HeadInputs
from attn_tui.core.model.rope import Rope
from attn_tui.core.model.scenario import Scenario


def projected(T: int = 3, heads: int = 2, kv_heads: int = 0, rope=None) -> Scenario:
    """X of T tokens × 4, d_k = d_v = 2 a head; entries made by a rule of the test's own."""
    X = np.array([[(t * 4 + m) % 7 - 3 for m in range(4)] for t in range(T)], float)
    kv = kv_heads or heads
    return Scenario(
        title="p",
        tokens=tuple(f"t{t}" for t in range(T)),
        inputs={
            "X": X,
            "Wq": np.arange(4 * 2 * heads, dtype=float).reshape(4, 2 * heads) / 10,
            "Wk": np.ones((4, 2 * kv)) - np.eye(4, 2 * kv),
            "Wv": np.eye(4, 2 * kv) * 2,
        },
        heads=heads,
        kv_heads=kv_heads,
        rope=rope,
    )


def test_a_head_takes_its_own_columns_of_x_times_w():
    scenario = projected()
    inputs = HeadInputs(scenario)
    X, Wq, Wk = (scenario.inputs[name] for name in ("X", "Wq", "Wk"))
    np.testing.assert_array_equal(inputs.Q(0), X @ Wq[:, 0:2])
    np.testing.assert_array_equal(inputs.Q(1), X @ Wq[:, 2:4])
    np.testing.assert_array_equal(inputs.K(1), X @ Wk[:, 2:4])
    # Wv = 2·I: head 2's values are 2 × X's columns 3 and 4
    assert inputs.V(1).tolist() == (2 * X[:, 2:4]).tolist()


def test_query_heads_share_their_groups_key_and_value_head():
    """4 query heads, 2 key/value heads: heads 1-2 read kv head 1, heads 3-4 kv head 2."""
    inputs = HeadInputs(projected(heads=4, kv_heads=2))
    assert [inputs.kv(h) for h in range(4)] == [0, 0, 1, 1]
    assert inputs.K(1) is inputs.K(0) and inputs.V(3) is inputs.V(2)
    assert not np.array_equal(inputs.K(0), inputs.K(2))


def test_rope_turns_q_and_k_but_not_v():
    rope = Rope(base=100.0)
    scenario = projected(rope=rope)
    inputs = HeadInputs(scenario)
    positions = np.arange(3)
    np.testing.assert_array_equal(
        inputs.Q_before_rotation(0), scenario.inputs["X"] @ scenario.inputs["Wq"][:, :2]
    )
    np.testing.assert_array_equal(inputs.Q(0), rope.rotate(inputs.Q_before_rotation(0), positions))
    np.testing.assert_array_equal(inputs.K(1), rope.rotate(inputs.K_before_rotation(1), positions))
    assert inputs.V(0).tolist() == (2 * scenario.inputs["X"][:, :2]).tolist()


def test_the_largest_value_of_a_head_by_hand():
    scenario = Scenario(
        "q",
        ("a", "b"),
        {"Q": [[1, -5], [2, 0]], "K": [[0, 1], [3, 0]], "V": [[-7, 1], [0, 0]]},
    )
    inputs = HeadInputs(scenario)
    assert (inputs.largest("Q", 0), inputs.largest("K", 0), inputs.largest("V", 0)) == (5, 3, 7)
    inputs.update(scenario.with_cell("V", 0, 0, 0.5), "V", 0, 0, None)
    assert inputs.largest("V", 0) == 1.0  # the row edited, measured again


def test_an_embedding_edit_moves_that_row_of_every_projection_of_every_head():
    scenario = projected()
    inputs = HeadInputs(scenario)
    edited = scenario.with_cell("X", 1, 2, 9.0)
    changes = inputs.update(edited, "X", 1, 2, None)
    for change in changes:
        assert (change.q_rows.tolist(), change.k_rows.tolist(), change.v_rows.tolist()) == (
            [1],
            [1],
            [1],
        )
    X, Wq = edited.inputs["X"], edited.inputs["Wq"]
    np.testing.assert_array_equal(inputs.Q(1), X @ Wq[:, 2:4])


def test_a_weight_edit_moves_every_row_of_its_own_head_alone():
    scenario = projected()
    inputs = HeadInputs(scenario)
    before = inputs.Q(0).copy()
    edited = scenario.with_cell("Wq", 0, 3, -1.0)  # column 4: head 2's second column
    changes = inputs.update(edited, "Wq", 0, 3, None)
    assert changes[1].q_rows is None and changes[1].q  # every row
    assert not changes[0].anything
    assert inputs.Q(0).tolist() == before.tolist()
    np.testing.assert_array_equal(inputs.Q(1), edited.inputs["X"] @ edited.inputs["Wq"][:, 2:4])


def test_a_key_weight_edit_moves_every_query_head_of_its_group():
    scenario = projected(heads=4, kv_heads=2)
    inputs = HeadInputs(scenario)
    changes = inputs.update(scenario.with_cell("Wk", 2, 1, 5.0), "Wk", 2, 1, None)
    assert [change.k for change in changes] == [True, True, False, False]
    assert not any(change.q or change.v for change in changes)


def test_an_output_weight_moves_nothing_before_the_heads_outputs():
    scenario = projected()
    scenario = Scenario(
        scenario.title, scenario.tokens, {**scenario.inputs, "Wo": np.eye(4)}, heads=2
    )
    inputs = HeadInputs(scenario)
    changes = inputs.update(scenario.with_cell("Wo", 0, 0, 3.0), "Wo", 0, 0, None)
    assert not any(change.anything for change in changes)


def test_an_edit_past_the_first_tile_gives_what_a_fresh_computation_gives():
    """Projections are computed ROWS rows at a time: an edit recomputes its tile alone, and the
    bits are the same as every tile computed afresh."""
    scenario = projected(T=ROWS * 2 + 5)
    inputs = HeadInputs(scenario)
    row = ROWS + 3
    edited = scenario.with_cell("X", row, 0, 0.123)
    changes = inputs.update(edited, "X", row, 0, None)
    assert changes[0].q_rows.tolist() == [row]
    fresh = HeadInputs(edited)
    for h in range(2):
        assert inputs.Q(h).tobytes() == fresh.Q(h).tobytes()
        assert inputs.K(h).tobytes() == fresh.K(h).tobytes()
        assert inputs.V(h).tobytes() == fresh.V(h).tobytes()


def test_an_array_handed_out_never_changes_under_its_holder():
    scenario = projected()
    inputs = HeadInputs(scenario)
    held = inputs.Q(0)
    copy = held.copy()
    inputs.update(scenario.with_cell("X", 0, 0, 100.0), "X", 0, 0, None)
    assert held.tolist() == copy.tolist()
    assert not held.flags.writeable
