"""With heads (issue 13): the built-ins teach what they say (a head that looks back, cross-
attention, a sliding window, full padding), and --json, --check, --print, the mask's and the
rotate step's words, c and the variants speak of every head."""

from __future__ import annotations

import json

import numpy as np
import pytest

from attn_tui.core import load, loads
from attn_tui.core.editing.session import Session
from attn_tui.core.engine.attention import Attention
from attn_tui.core.model.scenario import Scenario
from attn_tui.core.teaching.compare import compare
from attn_tui.tui.cli import main
from tests.conftest import SCENARIOS
from tests.engine.test_multihead_against_the_reference_and_pytorch import THREE_D

# ---- the built-ins teach what they say ---------------------------------------------------------


def largest_key(scenario: Scenario, h: int = 0) -> list[str]:
    attention = Attention(scenario)
    weights = attention.head(h).values("softmax", range(scenario.T), range(scenario.T_k))
    return [scenario.tokens[j] for j in weights.argmax(axis=1)]


def test_two_heads_one_looks_back_one_looks_at_itself():
    scenario = load(SCENARIOS / "two_heads.yaml")
    assert largest_key(scenario, 0)[1:] == ["the", "cat", "sat"]  # the token before
    assert largest_key(scenario, 1) == list(scenario.tokens)  # the token itself


def test_cross_attention_finds_the_word_that_means_the_same():
    assert largest_key(load(SCENARIOS / "cross_attention.yaml")) == ["le", "chat", "dort"]


def test_the_sliding_window_keeps_eight_from_its_best_matches():
    scenario = load(SCENARIOS / "sliding_window.yaml")
    weights = Attention(scenario).head(0).values("softmax", range(8), range(8))
    assert (weights[7, :5] == 0).all() and weights[7, 5:].sum() == pytest.approx(1.0)
    assert scenario.K[0, 0] == scenario.K[3, 0] == 3  # the matches it cannot see are the strongest


def test_full_padding_is_nothing_to_attend_to_and_null_in_json(capsys):
    assert main(["--json", str(SCENARIOS / "padding_mask.yaml")]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["weights"][0] is None and document["output"][1] is None
    assert document["weights"][2] == [0.0, 0.0, 1.0, 0.0, 0.0]
    assert document["masked"][4][:2] == [None, None]


# ---- --json, --check, --print with heads -------------------------------------------------------


def test_json_of_heads_has_each_head_concat_output_and_inputs(capsys):
    assert main(["--json", str(SCENARIOS / "two_heads.yaml")]) == 0
    document = json.loads(capsys.readouterr().out)
    scenario = load(SCENARIOS / "two_heads.yaml")
    attention = Attention(scenario)
    assert [head["name"] for head in document["heads"]] == ["head 1", "head 2"]
    for h, head in enumerate(document["heads"]):
        assert set(head) >= {
            "Q",
            "K",
            "V",
            "scores",
            "scaled",
            "masked",
            "weights",
            "output",
            "row_max",
            "row_sum",
            "diagnostics",
        }
        assert head["weights"] == attention.head(h).values("softmax", range(4), range(4)).tolist()
    concat = np.array(document["concat"])
    assert concat.shape == (4, 4) and np.array_equal(
        concat[:, :2], np.array(document["heads"][0]["output"])
    )
    assert np.array_equal(np.array(document["output"]), concat @ np.array(document["inputs"]["Wo"]))
    assert set(document["inputs"]) == {"X", "Wq", "Wk", "Wv", "Wo"}


def test_check_compares_each_head_and_names_the_mistake(tmp_path, capsys):
    """A student who forgot to scale: their weights of head 2 match attention computed unscaled."""
    scenario = loads(THREE_D)
    attention = Attention(scenario)
    unscaled = Attention(scenario.with_options(scale=False))
    weights = [
        attention.head(0).values("softmax", range(3), range(3)),
        unscaled.head(1).values("softmax", range(3), range(3)),
    ]

    def rows(matrix):
        return (
            "["
            + ", ".join("[" + ", ".join(repr(float(v)) for v in row) + "]" for row in matrix)
            + "]"
        )

    path = tmp_path / "student.yaml"
    path.write_text(THREE_D + f"expect:\n  weights: [{rows(weights[0])}, {rows(weights[1])}]\n")
    assert main(["--check", str(path)]) == 1
    out = capsys.readouterr().out
    assert "weights of previous: ✓ matches" in out and "weights of itself: ✗" in out
    assert "The first stage that differs is weights of itself." in out
    assert "not divided by √d_k" in out
    comparison = compare(load(path))
    assert comparison.stage("weights", 1).count > 0 and comparison.stage("weights", 0).matches


def test_print_and_markdown_walk_through_every_head_then_concat_and_projection(capsys):
    assert main(["--print", str(SCENARIOS / "two_heads.yaml")]) == 0
    printed = capsys.readouterr().out
    for head in ("[head 1]", "[head 2]"):
        assert (
            "Step 4 — Softmax: weights, each row sums to 1 "
            f"(max = largest weight, H = entropy in nats) {head}" in printed
        )
    assert "Step 6 — Concat" in printed and "Step 7 — Project: output = concat·Wo" in printed
    assert main(["--markdown", str(SCENARIOS / "cross_attention.yaml")]) == 0
    markdown = capsys.readouterr().out
    assert (
        'Queries (3): "the", "cat", "sleeps" · keys (3): "le", "chat", "dort" · d_k = 3' in markdown
    )


def test_c_does_not_put_a_causal_mask_between_two_sequences():
    from attn_tui.core.errors import NotApplicable

    session = Session(load(SCENARIOS / "cross_attention.yaml"))
    with pytest.raises(NotApplicable, match="no causal mask in cross-attention"):
        session.toggle_causal()
    assert not session.scenario.options.causal and not session.modified


def test_the_mask_names_how_many_keys_each_rule_hides():
    from attn_tui.core.engine.explanation import explain

    scenario = load(SCENARIOS / "sliding_window.yaml")
    lines = [line.plain() for line in explain(Attention(scenario), "mask", 7, None).lines]
    assert '"eight" sees 3 of 8 keys; 5 hidden: 5 outside the window.' in lines
    scenario = load(SCENARIOS / "padding_mask.yaml")
    lines = [line.plain() for line in explain(Attention(scenario), "mask", 3, None).lines]
    assert '"cat" sees 2 of 5 keys; 3 hidden: 1 in the future, 2 padding.' in lines


def test_the_rotate_step_reads_as_its_formula():
    """θk = position × base^(−2(k−1)/d), pairs counted from 1; no doubled minus."""
    from attn_tui.core.engine.explanation import explain
    from tests.conftest import ROOT

    scenario = load(ROOT / "tests" / "data" / "tiny_llama_l1.yaml")
    lines = [line.plain() for line in explain(Attention(scenario), "rotate", 6, None).lines]
    assert any(line.startswith(f"  θ2 = {6 * 10000 ** (-2 / 16):.3f}: ") for line in lines), lines
    assert any("θk = position × 10000^(−2(k−1)/16)" in line for line in lines)
    assert not any("− −" in line or "· −" in line for line in lines)


def test_c_says_a_window_already_hides_the_future():
    from attn_tui.core.errors import NotApplicable

    session = Session(load(SCENARIOS / "sliding_window.yaml"))
    with pytest.raises(NotApplicable, match="already hides the future"):
        session.toggle_causal()


def test_a_row_that_sees_nothing_is_not_held_against_a_student(tmp_path):
    """A naive softmax gives NaN there, a finite mask uniform weights: neither is a mistake."""
    scenario = load(SCENARIOS / "padding_mask.yaml")
    weights = Attention(scenario).head(0).values("softmax", range(5), range(5))
    weights[:2] = np.nan  # 0/0 in the two rows of padding that see only padding
    rows = ", ".join(
        "[" + ", ".join(".nan" if np.isnan(v) else repr(float(v)) for v in row) + "]"
        for row in weights
    )
    path = tmp_path / "naive.yaml"
    path.write_text(
        (SCENARIOS / "padding_mask.yaml").read_text() + f"expect:\n  weights: [{rows}]\n"
    )
    assert main(["--check", str(path)]) == 0


def test_the_diagnosis_is_the_first_reported_stages(tmp_path):
    """Head 1's output used K (a later stage), head 2's weights are unscaled (an earlier one):
    the first stage reported is head 2's weights, and so is the diagnosis."""
    scenario = loads(THREE_D)
    right, unscaled = Attention(scenario), Attention(scenario.with_options(scale=False))
    weights = [
        right.head(0).values("softmax", range(3), range(3)),
        unscaled.head(1).values("softmax", range(3), range(3)),
    ]
    output = [
        weights[0] @ scenario.inputs["K"][0],
        right.head(1).values("weighted_sum", range(3), range(2)),
    ]

    def rows(matrix):
        return (
            "["
            + ", ".join("[" + ", ".join(repr(float(v)) for v in row) + "]" for row in matrix)
            + "]"
        )

    path = tmp_path / "student.yaml"
    path.write_text(
        THREE_D + f"expect:\n  weights: [{rows(weights[0])}, {rows(weights[1])}]\n"
        f"  output: [{rows(output[0])}, {rows(output[1])}]\n"
    )
    comparison = compare(load(path))
    assert comparison.first_difference.stage == "weights" and comparison.first_difference.head == 1
    assert comparison.diagnosis.key == "unscaled"


def test_variants_of_heads_cover_every_head(capsys):
    text = THREE_D + "variants: [{name: unscaled, scale: false}]\n"
    scenario = loads(text)
    from attn_tui.core.outputs.json_export import json_chunks

    document = json.loads("".join(json_chunks(scenario)))
    variant = document["variants"][0]
    assert [head["name"] for head in variant["heads"]] == ["previous", "itself"]
    unscaled = Attention(scenario.with_options(scale=False))
    assert (
        variant["heads"][1]["weights"]
        == unscaled.head(1).values("softmax", range(3), range(3)).tolist()
    )
    assert np.array(variant["output"]).shape == (3, 2)
