"""docs/writing-scenarios.md and its examples: every example loads, every number the guide quotes
is what the program computes, and the key numbers agree with attention computed here from the
YAML text with NumPy alone."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
import yaml

from attn_tui import core
from attn_tui.core.engine.stages import scenario_keys
from attn_tui.core.loading.scenario_file import KEYS, check
from attn_tui.core.numbers import fixed
from tests.conftest import ROOT
from tests.reference import attention as reference_attention

DOCS = ROOT / "docs"
GUIDE = DOCS / "writing-scenarios.md"
EXAMPLES = sorted((DOCS / "examples").glob("*.yaml"))
MARKER = re.compile(r"^<!-- numbers: (\S+) -->$", re.M)


def guide() -> str:
    return GUIDE.read_text(encoding="utf-8")


def quoted_numbers() -> dict[str, list[dict[str, str]]]:
    """Each marked table of the guide, by example file: rows of stage, row, column, value."""
    lines = guide().split("\n")
    tables: dict[str, list[dict[str, str]]] = {}
    for number, line in enumerate(lines):
        match = MARKER.match(line)
        if not match:
            continue
        head = [cell.strip() for cell in lines[number + 1].strip("|").split("|")]
        assert head == ["stage", "row", "column", "value"], head
        rows = []
        for row_line in lines[number + 3 :]:
            if not row_line.startswith("|"):
                break
            rows.append(dict(zip(head, (cell.strip() for cell in row_line.strip("|").split("|")))))
        assert rows, match.group(1)
        tables[match.group(1)] = rows
    return tables


def example_sections() -> dict[str, str]:
    """The text of each worked example, by the file it is about."""
    text = guide()
    start = text.index("## Three worked examples")
    end = text.index("\n## ", start + 1)
    sections = re.split(r"\n(?=### \d\. )", text[start:end])[1:]
    by_file = {}
    for section in sections:
        file = MARKER.search(section).group(1)
        by_file[file] = section
    return by_file


# ---- the examples load, and the guide covers each ---------------------------------------------


def test_there_are_three_examples_and_each_loads_and_checks():
    assert len(EXAMPLES) == 3
    for path in EXAMPLES:
        scenario = core.load(path)
        checked = check(path)
        assert (checked.T, checked.d_k, checked.d_v) == (scenario.T, scenario.d_k, scenario.d_v)
        assert scenario.description and scenario.title
        core.compute_all(scenario)


def test_every_example_has_a_table_of_quoted_numbers_and_a_link_in_the_guide():
    tables = quoted_numbers()
    assert sorted(tables) == sorted(path.name for path in EXAMPLES)
    for name in tables:
        assert f"(examples/{name})" in guide()
        assert f"attn-tui docs/examples/{name}" in guide()


# ---- every quoted number is core's --------------------------------------------------------------

STAGE = re.compile(r"(?P<stage>[A-Za-z ]+?)(?: \((?P<variant>[^)]+)\))?")
INDEXED = re.compile(r"(?P<number>\d+) \((?P<label>.+)\)")


def core_value(scenario, traces, stage: str, variant: str | None, row: str, column: str) -> float:
    trace = traces[variant or ""]
    if stage == "divisor":
        assert row == column == "—"
        return trace.divisor
    i, row_label = _index(row)
    assert scenario.tokens[i] == row_label, (row, scenario.tokens)
    if stage == "max weight":
        assert column == "—"
        return float(trace.max_weight[i])
    j, column_label = _index(column)
    if stage in ("Q", "K", "V", "X"):
        assert variant is None
        assert column_label == f"d{j + 1}"
        return float(scenario.matrix(stage)[i, j])
    values = trace.stage(stage.replace(" ", "_"))  # a stage's name, as the guide writes it
    expected_label = f"d{j + 1}" if stage == "weighted sum" else scenario.tokens[j]
    assert column_label == expected_label, (column, expected_label)
    return float(values[i, j])


def _index(cell: str) -> tuple[int, str]:
    match = INDEXED.fullmatch(cell)
    assert match, cell
    return int(match.group("number")) - 1, match.group("label")


def decimals_of(text: str) -> int:
    return len(text.split(".")[1]) if "." in text else 0


@pytest.mark.parametrize("name", sorted(quoted_numbers()))
def test_every_number_the_guide_quotes_is_what_the_program_computes(name):
    scenario = core.load(DOCS / "examples" / name)
    traces = core.compute_all(scenario)
    rows = quoted_numbers()[name]
    for quoted in rows:
        match = STAGE.fullmatch(quoted["stage"])
        assert match, quoted
        value = core_value(
            scenario,
            traces,
            match.group("stage"),
            match.group("variant"),
            quoted["row"],
            quoted["column"],
        )
        # formatted as the program formats it, at the decimals the guide shows
        assert fixed(value, decimals_of(quoted["value"])) == quoted["value"], (quoted, value)


def test_numbers_in_the_examples_prose_are_all_in_their_checked_tables():
    """A number written in the text of an example (0.552, 55%) is one of the checked ones, so
    the prose cannot say something the tables do not."""
    tables = quoted_numbers()
    for name, section in example_sections().items():
        prose = section.split("<!-- numbers:")[0]
        checked = {row["value"] for row in tables[name]}
        for number in re.findall(r"(?<![\w.])\d+\.\d{3}(?![\d])", prose):
            assert number in checked, (name, number)
        values = [float(value) for value in checked]
        for percent in re.findall(r"(\d+)%", prose):
            assert any(round(100 * value) == int(percent) for value in values), (name, percent)


def test_the_guides_key_table_lists_exactly_the_keys_the_loader_knows():
    text = guide()
    start = text.index("## Every key")
    table = [line for line in text[start:].split("\n## ")[0].split("\n") if line.startswith("| `")]
    listed = set()
    for line in table:
        first_cell = line.split("|")[1]
        listed.update(re.findall(r"`(\w+)`", first_cell))
    assert listed == set(KEYS) | set(scenario_keys())  # the scenario's own and its stages' keys


def test_the_guide_mentions_the_commands_a_teacher_needs():
    text = guide()
    assert 'attn-tui new my_scenario.yaml --tokens "the cat sat" --d-k 2' in text
    for option in ("--d-v", "--random", "--force", "--check", "--print"):
        assert option in text


# ---- the key numbers, computed independently -------------------------------------------------


def read(name: str) -> dict:
    return yaml.safe_load((DOCS / "examples" / name).read_text(encoding="utf-8"))


def attention(Q, K, V, causal, divisor=None):
    """One head's scores, weights and output by the float64 reference (tests/reference.py)."""
    visible = np.tri(len(Q), len(K), dtype=bool) if causal else np.ones((len(Q), len(K)), bool)
    (head,), _, _ = reference_attention(Q[None], K[None], V[None], visible=visible, divisor=divisor)
    return head["scores"], head["weights"], head["output"]


def test_pronoun_it_attends_mostly_to_cat():
    raw = read("pronoun.yaml")
    Q, K, V = (np.array(raw[name], dtype=float) for name in "QKV")
    scores, weights, output = attention(Q, K, V, causal=raw["causal"])
    it, cat, mouse = (
        raw["tokens"].index("it"),
        raw["tokens"].index("cat"),
        raw["tokens"].index("mouse"),
    )
    assert (scores[it, cat], scores[it, mouse]) == (4, 2)
    # by hand: exp(4/√3) over exp(4/√3) + exp(2/√3) + five exp(0)
    e_cat, e_mouse = math.exp(4 / math.sqrt(3)), math.exp(2 / math.sqrt(3))
    assert weights[it, cat] == pytest.approx(e_cat / (e_cat + e_mouse + 5))
    assert round(weights[it, cat], 3) == 0.552 and round(weights[it, mouse], 3) == 0.174
    assert np.round(output[it], 3).tolist() == [0.552, 0.174]
    assert weights[it].argmax() == cat
    # the causal mask hides nothing from the last token
    assert np.allclose(attention(Q, K, V, causal=False)[1][it], weights[it])


def test_projections_tea_looks_at_green_and_the_output_is_three_wide():
    raw = read("projections_dv3.yaml")
    X, Wq, Wk, Wv = (np.array(raw[name], dtype=float) for name in ("X", "Wq", "Wk", "Wv"))
    Q, K, V = X @ Wq, X @ Wk, X @ Wv
    assert (Q.shape, K.shape, V.shape) == ((4, 2), (4, 2), (4, 3))
    tea, green, like, me = 3, 2, 1, 0
    assert Q[tea].tolist() == [2, 0] and K[tea].tolist() == [0.5, 0]
    _, weights, output = attention(Q, K, V, causal=raw["causal"])
    assert weights.shape == (4, 4) and output.shape == (4, 3)
    assert round(weights[tea, green], 3) == 0.505 and round(weights[tea, tea], 3) == 0.249
    assert np.round(output[tea], 3).tolist() == [0.123, 0.123, 0.630]
    assert round(weights[like, me], 3) == 0.670


def test_bank_sees_river_only_without_the_mask():
    raw = read("bank_causal_vs_not.yaml")
    Q, K, V = (np.array(raw[name], dtype=float) for name in "QKV")
    assert {variant["name"]: variant["causal"] for variant in raw["variants"]} == {
        "causal": True,
        "bidirectional": False,
    }
    bank, river = 1, 4
    _, causal, _ = attention(Q, K, V, causal=True)
    _, bidirectional, output = attention(Q, K, V, causal=False)
    assert causal[bank].tolist() == [0.5, 0.5, 0, 0, 0]
    e = math.exp(4 / math.sqrt(2))
    assert bidirectional[bank, river] == pytest.approx(e / (e + 4))
    assert (
        round(bidirectional[bank, river], 3) == 0.809
        and round(100 * bidirectional[bank, river]) == 81
    )
    assert np.round(output[bank], 3).tolist() == [0.809, 0.0]
    assert np.round(causal.max(axis=1), 3).tolist() == [1.0, 0.5, 0.333, 0.25, 0.2]
    assert np.round(bidirectional.max(axis=1), 3).tolist() == [0.2, 0.809, 0.2, 0.2, 0.2]


def test_the_expect_example_is_diagnosed_as_the_guide_says():
    from attn_tui.core.teaching.compare import compare
    from attn_tui.core.teaching.comparison_report import summary

    text = guide()
    snippet = re.search(r"<!-- expect-example -->\n```yaml\n(.*?)```\n", text, flags=re.S).group(1)
    scenario = core.loads(snippet, "checked.yaml")
    assert set(scenario.expect) == {"weights"} and scenario.expect_tolerance == 0.001
    # the student's weights are those of attention without the division by √2, by hand:
    e = math.e
    unscaled = [
        [1, 0, 0],
        [1 / (1 + e), e / (1 + e), 0],
        [e / (2 * e + e * e), e / (2 * e + e * e), e * e / (2 * e + e * e)],
    ]
    assert np.allclose(scenario.expect["weights"].values, unscaled, atol=0.0005)
    comparison = compare(scenario)
    assert not comparison.ok and comparison.diagnosis.key == "unscaled"
    printed = summary(comparison, scenario).split("\n")
    quoted = re.search(r"\$ attn-tui --check checked.yaml\n(.*?)```", text, flags=re.S).group(1)
    for line in quoted.strip().split("\n"):
        assert line == "…" or line in printed, line


def test_the_bank_example_asks_for_a_prediction_of_the_weights():
    assert core.load(DOCS / "examples" / "bank_causal_vs_not.yaml").predict == ("weights",)
