"""``print`` and ``markdown`` never write a non-zero value as 0. A table whose
other numbers are integers needs no decimals; 1e-5 in it reads 1.0e−5, as the app's grid
shows it (the expected text is written by hand from the scenario below)."""

from __future__ import annotations

from attn_tui.core import loads
from attn_tui.core.outputs.markdown import input_tables
from attn_tui.core.outputs.report import text_chunks

SCENARIO = "tokens: [a, b]\nQ: [[1, 0.00001], [1, 1]]\nK: [[1, 0], [0, 1]]\nV: [[1, 2], [3, 4]]\n"


def test_print_writes_a_tiny_input_with_an_exponent() -> None:
    text = "".join(text_chunks(loads(SCENARIO)))
    q = text.split("Q (queries)")[1].split("\n\n")[0].splitlines()
    assert q[2].split() == ["a", "1", "1.0e−5"]
    score = text.split("Step 1")[1].split("\n\n")[0].splitlines()
    assert score[2].split() == [
        "a",
        "1",
        "1.0e−5",
    ]  # Q·Kᵀ's [0, 1] = 1e-5 (score is tiny in the app too)


def test_markdown_writes_a_tiny_input_with_an_exponent() -> None:
    q = input_tables(loads(SCENARIO))[1]
    row = [cell.strip() for cell in q.splitlines()[2].strip("|").split("|")]
    assert row == ["a", "1", "1.0e−5"]


# Attacked after the first fix: every stage but the weights, and the explanations, kept reading
# 0.000. By hand, with V's a row [1e-5, 2] and the causal mask: Scale (a, b) = 1e-5 / √2 =
# 7.071e−6; the weights of a are [1, 0], so its output is v_a = [1e-5, 2] exactly.
CAUSAL = (
    "tokens: [a, b]\nQ: [[1, 0.00001], [1, 1]]\nK: [[1, 0], [0, 1]]\nV: [[0.00001, 2], [3, 4]]\n"
    "causal: true\n"
)


def table(text: str, step: str) -> list[list[str]]:
    return [line.split() for line in text.split(step)[1].split("\n\n")[0].splitlines()[2:]]


def test_print_writes_no_non_zero_number_of_any_stage_as_zero() -> None:
    text = "".join(text_chunks(loads(CAUSAL), rows=[0]))
    assert table(text, "Step 2")[0] == ["a", "0.707", "7.071e−6"]
    assert table(text, "Step 5")[0] == ["a", "1.000e−5", "2.000"]
    assert table(text, "Step 4")[0][:3] == ["a", "1.000", "0.000"]  # a weight of exactly 0 (masked)
    working = text.split('Row 1, "a", step by step')[1]
    assert "(a, b): 1.0e−5 / √2 = 1.0e−5/1.414 = 7.071e−6" in working
    assert "1.000 × [1.0e−5, 2] + 0.000 × [3, 4] = [1.000e−5, 2.000]" in working


def test_weights_keep_the_chapter_s_three_decimals() -> None:
    """A weight is a share of its row: the chapter's "nearly one-hot (0.999, 0.000, 0.000)". Row
    b's scores [20, 0] / √2 give b itself a weight of 1 / (1 + e^(20/√2)) = 7.2e−7: 0.000, not
    7.2e−7."""
    import math

    text = "".join(
        text_chunks(
            loads(
                "tokens: [a, b]\nQ: [[1, 0], [20, 0]]\nK: [[1, 0], [0, 1]]\n"
                "V: [[1, 2], [3, 4]]\ncausal: false\n"
            )
        )
    )
    share = 1 / (1 + math.exp(20 / math.sqrt(2)))
    assert share > 0 and f"{share:.3f}" == "0.000"
    assert table(text, "Step 4")[1][:3] == ["b", "1.000", "0.000"]
