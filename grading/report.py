"""What a case's result reads as: one line (✓, or ✗ with the first difference and the mistake),
and the scenario with the student's numbers as ``expect:`` (for check's full report and --open)."""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from attn_tui.core.engine.stages import column_labels, stage_keyed
from attn_tui.core.lessons.lesson import Position
from attn_tui.core.model.labels import token_labels
from attn_tui.core.model.options import Expected
from attn_tui.core.model.scenario import Scenario
from attn_tui.core.numbers import fixed
from attn_tui.core.text import visible
from attn_tui.grading.calling import FLOAT32, CaseResult
from attn_tui.grading.empty_rows import CONVENTIONS


def with_expect(result: CaseResult) -> Scenario:
    """The case's scenario with what the student's code returned as its ``expect:`` (every cell
    given: a NaN it returned is a value), at the tolerance it was judged at."""
    scenario = result.case.scenario
    expect = {}
    if result.weights is not None:
        expect["weights"] = Expected(np.array(result.weights), np.ones(result.weights.shape, bool))
    if result.output is not None:
        expect["output"] = Expected(np.array(result.output), np.ones(result.output.shape, bool))
    tolerance = (
        max(scenario.expect_tolerance, FLOAT32) if result.float32 else scenario.expect_tolerance
    )
    return dataclasses.replace(scenario, expect=expect, expect_tolerance=tolerance)


def first_wrong_place(comparison) -> Position | None:
    """Where ``--open`` opens: the first stage that differs, its first differing row and cell
    (None when every stage matches)."""
    first = comparison.first_difference
    if first is None:
        return None
    row, column = (int(i) for i in np.argwhere(first.differs)[0])
    return Position(stage_keyed(first.stage).name, row, column)


def read_as(result: CaseResult) -> str:
    """The convention the code was read in, said once."""
    if result.way is None:
        return ""
    text = f"read as: {result.way.describe()}; returns {result.returns or '?'}"
    if result.float32:
        text += f"; float32 results, judged at float32's tolerance {FLOAT32:g}"
    return text


def chosen_line(info: dict, name: str, choose: str = "--impl FILE.py:NAME") -> str | None:
    """When no function had the asked ``name`` and the one function that takes (Q, K, V) was
    graded instead (the worker's ``chosen``), the sentence that says so, and how to choose;
    None otherwise."""
    chosen = info.get("chosen")
    if not chosen:
        return None
    return (
        f"No {visible(name)} in it: graded {visible(str(chosen))}, the one function that takes "
        f"(Q, K, V) ({choose} chooses another)."
    )


def case_line(result: CaseResult) -> str:
    """✓, ✗ with the first difference and the mistake, or – for a case not run."""
    name = visible(result.case.name)
    if result.not_run is not None:
        return f"– {name}: not run: {visible(result.not_run)}"
    if result.ok:
        read = f": read as {CONVENTIONS[result.empty_as]}" if result.empty_as else ""
        return f"✓ {name}{read}"
    if result.error is not None:
        return f"✗ {name}: {visible(result.error)}"
    if result.masked_row is not None:
        return f"✗ {name}: {visible(result.masked_row)}"
    wrong = result.first_wrong
    if wrong is None:
        return f"✗ {name}"
    return f"✗ {name}: {first_cell(result.case.scenario, wrong)} — {mistake_words(wrong)}"


def first_cell(scenario: Scenario, wrong) -> str:
    cells = differing_cells(scenario, wrong.comparison, 1)
    return f"{wrong.stage} {cells[0]}" if cells else wrong.stage


def differing_cells(scenario: Scenario, compared, limit: int) -> list[str]:
    """The first ``limit`` differing cells of a stage's comparison, each as "(row, column): yours
    …, attention …" with the scenario's labels (made visible)."""
    rows = token_labels(scenario.row_tokens)
    columns = column_labels(scenario, stage_keyed(compared.stage))
    return [
        f"({visible(rows[i])}, {visible(columns[j])}): "
        f"yours {number(compared.yours[i, j])}, attention {number(compared.correct[i, j])}"
        for i, j in np.argwhere(compared.differs)[:limit]
    ]


def mistake_words(wrong) -> str:
    if wrong.diagnosis is None:
        return "matches no known mistake"
    return wrong.diagnosis.what


def number(value: float) -> str:
    value = float(value)
    if math.isnan(value):
        return "nan"
    if math.isinf(value):
        return "inf" if value > 0 else "−inf"
    return fixed(value, 3) if abs(value) < 1e6 else f"{value:.3g}"
