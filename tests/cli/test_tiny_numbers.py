"""Issue 47 (1): ``print`` and ``markdown`` never write a non-zero value as 0. A table whose
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
    assert score[2].split() == ["a", "1", "1.0e−5"]  # Q·Kᵀ's [0, 1] = 1e-5 (score is tiny in the app too)


def test_markdown_writes_a_tiny_input_with_an_exponent() -> None:
    q = input_tables(loads(SCENARIO))[1]
    row = [cell.strip() for cell in q.splitlines()[2].strip("|").split("|")]
    assert row == ["a", "1", "1.0e−5"]
