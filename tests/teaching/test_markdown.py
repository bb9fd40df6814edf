"""The Markdown handout: parsed back as GFM tables and checked against attention computed from
the YAML text by the float64 reference (tests/reference.py), never from core's own arrays."""

from __future__ import annotations

import math

import numpy as np
import pytest
import yaml

from attn_tui import core
from attn_tui.core.outputs.markdown import to_markdown
from tests.conftest import SCENARIOS
from tests.markdown_tables import (
    MINUS_INFINITY,
    Table,
    assert_well_formed,
    fenced_blocks,
    parse_tables,
    table_under,
)
from tests.reference import attention as reference_attention

# ---- attention, computed here --------------------------------------------------------------


def attention(Q, K, V, divisor, causal):
    """One head's stages by the float64 reference (tests/reference.py)."""
    visible = np.tri(len(Q), len(K), dtype=bool) if causal else np.ones((len(Q), len(K)), bool)
    (head,), _, _ = reference_attention(Q[None], K[None], V[None], visible=visible, divisor=divisor)
    return head["scores"], head["scaled"], head["masked"], head["weights"], head["output"]


def assert_table_close(table: Table, expected: np.ndarray, decimals: int) -> None:
    got = table.numbers()
    assert got.shape == expected.shape, (table.heading, got.shape, expected.shape)
    infinite = np.isinf(expected)
    assert np.array_equal(np.isinf(got), infinite), table.heading
    # a printed number is within half a unit of its last decimal (plus float noise)
    assert np.allclose(
        got[~infinite], expected[~infinite], rtol=0, atol=0.5 * 10.0**-decimals + 1e-12
    ), table.heading


# ---- cat_sat ----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def cat_sat():
    path = SCENARIOS / "cat_sat.yaml"
    raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    Q, K, V = (np.array(raw[name], dtype=float) for name in "QKV")
    markdown = to_markdown(core.load(path))
    return markdown, (Q, K, V)


def test_cat_sat_is_well_formed_markdown_with_every_section(cat_sat):
    markdown, _ = cat_sat
    tables = assert_well_formed(markdown)
    assert markdown.startswith("# The cat sat\n\n")
    assert (
        'Tokens (3): "the", "cat", "sat" · d_k = 2 · d_v = 2 · causal · ÷√2 = 1.414 · mask −∞'
        in markdown
    )
    assert [table.heading.split(" (")[0] for table in tables[:3]] == ["Q", "K", "V"]
    stage_headings = [table.heading.split(":")[0] for table in tables[3:]]
    assert stage_headings == [
        "Step 1 — Score",
        "Step 2 — Scale",
        "Step 3 — Mask",
        "Step 4 — Softmax",
        "Step 5 — Weighted sum",
    ]
    for table in tables:
        assert [cells[0] for cells in table.rows] == ["the", "cat", "sat"]


def test_cat_sat_stage_tables_match_attention_computed_from_the_yaml(cat_sat):
    markdown, (Q, K, V) = cat_sat
    tables = parse_tables(markdown)
    scores, scaled, masked, weights, output = attention(Q, K, V, math.sqrt(2), causal=True)

    assert table_under(tables, "Q (").head == ["token", "d1", "d2"]
    assert_table_close(table_under(tables, "Q ("), Q, 0)
    assert_table_close(table_under(tables, "V ("), V, 1)
    score = table_under(tables, "Step 1")
    assert score.head[1:] == ["the", "cat", "sat"]
    assert_table_close(score, scores, 0)
    assert_table_close(table_under(tables, "Step 2"), scaled, 3)
    assert_table_close(table_under(tables, "Step 3"), masked, 3)
    softmax_table = table_under(tables, "Step 4")
    assert softmax_table.head[1:] == ["the", "cat", "sat", "max", "H"]
    entropy = -np.array([sum(w * math.log(w) for w in row if w > 0) for row in weights])
    assert_table_close(softmax_table, np.column_stack([weights, weights.max(axis=1), entropy]), 3)
    out = table_under(tables, "Step 5")
    assert out.head == ["token", "d1", "d2"]
    assert_table_close(out, output, 3)


def test_cat_sat_reads_as_the_chapter(cat_sat):
    markdown, _ = cat_sat
    tables = parse_tables(markdown)
    assert table_under(tables, "Step 4").row("sat")[:3] == ["0.248", "0.248", "0.503"]
    assert table_under(tables, "Step 4").row("sat")[3] == "0.503"  # the largest weight
    mask = table_under(tables, "Step 3")
    assert mask.row("the") == ["0.707", MINUS_INFINITY, MINUS_INFINITY]
    assert mask.row("cat") == ["0.000", "0.707", MINUS_INFINITY]
    assert MINUS_INFINITY not in mask.row("sat")
    assert table_under(tables, "Step 5").row("sat") == ["0.500", "0.500"]


def test_the_focus_rows_arithmetic_is_in_code_blocks_with_the_chapters_lines(cat_sat):
    markdown, _ = cat_sat
    assert '\n## Row 3, "sat", step by step\n' in markdown
    blocks = fenced_blocks(markdown)
    assert len(blocks) == 5  # one per stage
    lines = [line for block in blocks for line in block.split("\n")]
    assert '"sat" pays 25% attention to "the", 25% to "cat", and 50% to itself.' in lines
    assert "0.248 × [1.0, 0.0] + 0.248 × [0.0, 1.0] + 0.503 × [0.5, 0.5] = [0.500, 0.500]" in lines
    assert 'q3 · k3 = (1 × 1) + (1 × 1) = 2    how relevant is "sat" to itself?' in lines
    assert "√d_k = √2 = 1.414" in lines
    for number, title in enumerate(["Score", "Scale", "Mask", "Softmax", "Weighted sum"], 1):
        assert f"\n### Step {number} — {title}: " in markdown


def test_rows_override_the_focus_as_in_to_text():
    scenario = core.load(SCENARIOS / "cat_sat.yaml")
    markdown = to_markdown(scenario, rows=[0, 1])
    assert '## Row 1, "the", step by step' in markdown
    assert '## Row 2, "cat", step by step' in markdown
    assert "## Row 3" not in markdown
    assert len(fenced_blocks(markdown)) == 10
    assert '"cat" pays 33% attention to "the" and 67% to itself, and 0% to the future.' in markdown
    assert "Row " not in to_markdown(scenario, rows=[]).replace("rows", "")
    with pytest.raises(ValueError, match="out of range"):
        to_markdown(scenario, rows=[3])


# ---- variants ------------------------------------------------------------------------------


def test_scaled_vs_unscaled_variants_table_matches_an_independent_computation():
    state = np.random.get_state()
    try:
        np.random.seed(0)
        Q = np.random.randn(5, 8)
        K = np.random.randn(5, 8)
        V = np.random.randn(5, 8)
    finally:
        np.random.set_state(state)
    *_, scaled_weights, _ = attention(Q, K, V, math.sqrt(8), causal=False)
    *_, unscaled_weights, _ = attention(Q, K, V, 1.0, causal=False)

    markdown = to_markdown(core.load(SCENARIOS / "scaled_vs_unscaled_t5.yaml"))
    tables = assert_well_formed(markdown)
    variants = table_under(tables, "Variants")
    assert variants.head == ["token", "scaled", "unscaled"]
    assert [cells[0] for cells in variants.rows] == ["t1", "t2", "t3", "t4", "t5"]
    expected = np.column_stack([scaled_weights.max(axis=1), unscaled_weights.max(axis=1)])
    assert_table_close(variants, expected, 3)
    assert variants.rows[4][1:] == [f"{expected[4, 0]:.3f}", f"{expected[4, 1]:.3f}"]
    # the lesson of the exercise: without the scaling every row is closer to one-hot
    assert (variants.numbers()[:, 1] > variants.numbers()[:, 0]).all()
    assert "\n- scaled: not causal · ÷√8 = 2.828 · mask −∞\n" in markdown
    assert "\n- unscaled: not causal · unscaled · mask −∞\n" in markdown
    assert_table_close(
        table_under(tables, "Step 4"),
        np.column_stack(
            [
                scaled_weights,
                scaled_weights.max(axis=1),
                -(scaled_weights * np.log(scaled_weights)).sum(axis=1),
            ]
        ),
        3,
    )


def test_a_scenario_without_variants_has_no_variants_section():
    assert "Variants" not in to_markdown(core.load(SCENARIOS / "cat_sat.yaml"))


# ---- projections, mask values, escaping -------------------------------------------------------


def test_a_projection_scenario_shows_x_and_the_ws_and_the_projected_q_k_v():
    path = SCENARIOS / "projections.yaml"
    raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    X, Wq, Wk, Wv = (np.array(raw[name], dtype=float) for name in ("X", "Wq", "Wk", "Wv"))
    tables = assert_well_formed(to_markdown(core.load(path)))
    assert [table.heading.split(" ")[0] for table in tables[:7]] == [
        "X",
        "Wq",
        "Wk",
        "Wv",
        "Q",
        "K",
        "V",
    ]
    assert table_under(tables, "Wq").head == ["row", "d1", "d2"]
    # the model's dimensions read m1 … m4 both as X's columns and as the W's rows
    assert [cells[0] for cells in table_under(tables, "Wq").rows] == ["m1", "m2", "m3", "m4"]
    assert table_under(tables, "X (").head[1:] == ["m1", "m2", "m3", "m4"]
    assert_table_close(table_under(tables, "X ("), X, 0)
    assert table_under(tables, "K (").heading == "K (keys = X·Wk) (3×2)"
    assert_table_close(table_under(tables, "K ("), X @ Wk, 0)
    assert_table_close(table_under(tables, "V ("), X @ Wv, 1)
    *_, weights, output = attention(X @ Wq, X @ Wk, X @ Wv, math.sqrt(2), causal=True)
    assert_table_close(table_under(tables, "Step 5"), output, 3)


def test_a_finite_mask_value_is_shown_as_written():
    text = (SCENARIOS / "cat_sat.yaml").read_text(encoding="utf-8") + "mask_value: -1e9\n"
    tables = parse_tables(to_markdown(core.loads(text, "cat_sat_1e9.yaml")))
    mask = table_under(tables, "Step 3")
    assert mask.heading.endswith("future keys set to −1e9")
    assert mask.row("the") == ["0.707", "−1e9", "−1e9"]


def test_markdown_streams_a_block_of_rows_at_a_time():
    """With a loss at T = 8,192 a whole ``markdown`` at once would need 3.6 GB before writing
    anything. Its tables come a block of rows at a time, as ``print``'s do: no piece holds more than
    ROWS_AT_A_TIME rows of a table, and the pieces joined are the document."""
    from attn_tui.core.loading.scenario_file import loads
    from attn_tui.core.outputs.markdown import markdown_chunks
    from attn_tui.core.outputs.markdown_syntax import ROWS_AT_A_TIME

    T = 3 * ROWS_AT_A_TIME + 5
    scenario = loads(f"random: {{seed: 1, T: {T}, d_k: 2}}\nloss: {{grad: {[[1.0, -1.0]] * T}}}\n")
    pieces = list(markdown_chunks(scenario))
    rows = [piece.count("\n|") for piece in pieces if piece.lstrip("\n").startswith("|")]
    assert len(rows) > 20 and max(rows) <= ROWS_AT_A_TIME, max(
        rows
    )  # (the walk of a row is one piece)
    document = "".join(pieces)
    tables = [block for block in document.split("\n\n") if block.startswith("| query ↓ · key →")]
    assert len(tables) >= 6  # scores, scaled, masked, weights and the backward pass's dP and dS
    for table in tables:
        lines = table.splitlines()
        assert len(lines) == T + 2 and len({len(line) for line in lines}) == 1  # whole, and aligned
