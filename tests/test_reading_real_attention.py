"""docs/reading-real-attention.md: its two pattern examples load, and every number it quotes is
what the closed formula, NumPy from the YAML text, and attn-tui's own computation all give."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
import yaml

from attn_tui import core
from attn_tui.core.numbers import fixed
from tests.conftest import ROOT
from tests.reference import softmax

DOCS = ROOT / "docs"
PAGE = DOCS / "reading-real-attention.md"
PATTERNS = DOCS / "examples" / "patterns"


def quoted() -> list[tuple[str, str, str, str]]:
    """The rows of the page's numbers table: file, row, column, value."""
    text = PAGE.read_text(encoding="utf-8")
    table = text[text.index("<!-- numbers: patterns -->") :].split("\n")[3:]
    rows = []
    for line in table:
        if not line.startswith("|"):
            break
        cells = [cell.strip() for cell in re.split(r"(?<!\\)\|", line.strip("|"))]
        rows.append(tuple(cells))
    return rows


def numpy_attention(path) -> tuple[np.ndarray, np.ndarray]:
    """Causal, √d_k-scaled attention from the YAML text alone."""
    scenario = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert scenario["causal"] is True and scenario["scale"] is True
    Q, K, V = (np.array(scenario[name], dtype=float) for name in "QKV")
    scores = Q @ K.T / math.sqrt(Q.shape[1])
    scores[np.triu_indices(len(Q), k=1)] = -np.inf
    weights = softmax(scores)
    return weights, weights @ V


def one_answer(s: float, others: int) -> float:
    return math.exp(s) / (math.exp(s) + others)


# the page's formula for each quoted weight: (scaled score of the answering key, other keys seen)
FORMULA = {
    ("attention_sink.yaml", 7, 1): one_answer(4 / math.sqrt(2), 6),
    ("attention_sink.yaml", 7, 2): 1 / (math.exp(4 / math.sqrt(2)) + 6),
    ("attention_sink.yaml", 2, 1): one_answer(4 / math.sqrt(2), 1),
    ("attention_sink.yaml", "output", 7, 1): 3 / (math.exp(4 / math.sqrt(2)) + 6),
    ("previous_token.yaml", 4, 3): one_answer(8 / math.sqrt(6), 3),
    ("previous_token.yaml", 2, 1): one_answer(8 / math.sqrt(6), 1),
    ("previous_token.yaml", 6, 5): one_answer(8 / math.sqrt(6), 5),
    ("previous_token.yaml", "output", 4, 2): one_answer(8 / math.sqrt(6), 3),
}


def test_the_table_quotes_each_number_once_and_the_page_links_the_files():
    rows = quoted()
    assert len(rows) == len(FORMULA) == 8
    page = PAGE.read_text(encoding="utf-8")
    for path in sorted(PATTERNS.glob("*.yaml")):
        assert f"(examples/patterns/{path.name})" in page
        assert f"attn-tui docs/examples/patterns/{path.name}" in page


@pytest.mark.parametrize("row", quoted(), ids=lambda row: " ".join(row[:3]))
def test_every_quoted_number_is_the_formula_numpy_and_attn_tui(row):
    file, where, column, value = row
    path = PATTERNS / file
    weights, output = numpy_attention(path)
    trace = core.compute(core.load(path))
    number = int(re.search(r"\d+", where).group()) - 1
    if where.startswith("output"):
        dimension = int(column.lstrip("d")) - 1
        key = (file, "output", number + 1, dimension + 1)
        computed = [output[number, dimension], trace.output[number, dimension]]
    else:
        key_column = int(re.match(r"\d+", column).group()) - 1
        key = (file, number + 1, key_column + 1)
        computed = [weights[number, key_column], trace.weights[number, key_column]]
    assert value == fixed(FORMULA[key], 3)
    for result in computed:
        assert result == pytest.approx(FORMULA[key], abs=1e-12)
