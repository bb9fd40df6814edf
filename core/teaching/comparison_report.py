"""A comparison told: what ``--check`` prints (each stage's verdict, the first differing cells,
the diagnosis) and writes for ``--json``, and the Why pane's lines for a student's values (the
comparison itself is ``core.teaching.compare``).
"""

from __future__ import annotations

import math

import numpy as np

from attn_tui.core.engine.explanation import Line, Span
from attn_tui.core.engine.stages import column_labels, stage_keyed
from attn_tui.core.model.labels import token_labels
from attn_tui.core.model.scenario import Scenario
from attn_tui.core.numbers import fixed
from attn_tui.core.teaching.compare import Comparison

MAX_LISTED = 5


def summary(comparison: Comparison, scenario: Scenario) -> str:
    """What ``--check`` prints: each stage's verdict, the first differing cells, the diagnosis."""
    rows = token_labels(scenario.row_tokens)
    lines = []
    p = max(scenario.precision, 3)
    for stage in comparison.stages:
        if stage.matches:
            lines.append(f"{stage.name}: ✓ matches (tolerance {comparison.tolerance:g})")
            continue
        columns = column_labels(scenario, stage_keyed(stage.stage))
        lines.append(
            f"{stage.name}: ✗ {stage.count} cell{'s differ' if stage.count > 1 else ' differs'}"
        )
        for i, j in np.argwhere(stage.differs)[:MAX_LISTED]:
            yours, correct = _pair(stage.yours[i, j], stage.correct[i, j], p)
            lines.append(
                f"  ({rows[i]}, {columns[j]}): yours {yours}, attention {correct} "
                f"(off by {_signed(stage.difference[i, j])})"
            )
        if stage.count > MAX_LISTED:
            lines.append(f"  … and {stage.count - MAX_LISTED} more")
    first = comparison.first_difference
    if first is None:
        return "\n".join(lines)
    lines.append(f"The first stage that differs is {first.name}.")
    diagnosis = comparison.diagnosis
    if diagnosis is not None:
        if diagnosis.tolerance is not None:
            lines.append(
                f"At the tolerance {comparison.tolerance:g} they match none of the known "
                f"mistakes, but within {diagnosis.tolerance:g} (your numbers look rounded) "
                "they match one:"
            )
        if len(diagnosis.mistakes) == 1:
            lines.append(
                f"Likely bug: {diagnosis.what} — your {first.stage} values match attention "
                f"computed that way. Fix: {diagnosis.fix}."
            )
        else:
            lines.append(
                f"Likely bug, one of: {diagnosis.what} — this scenario gives the same "
                f"{first.stage} for each, so it cannot tell them apart. Fix: {diagnosis.fix}."
            )
            lines.append(f"To tell them apart: {diagnosis.suggestion}.")
    elif comparison.rounded is not None:
        lines.append(
            f"Your {first.stage} values match attention's within {comparison.rounded:g}: they "
            f"look rounded. Set expect_tolerance: {comparison.rounded:g} if that is close enough."
        )
    else:
        lines.append(
            "They match none of the known mistakes; step through that stage in the app "
            "(attn-tui FILE) to see where your arithmetic departs."
        )
    return "\n".join(lines)


def to_json(comparison: Comparison) -> dict:
    first = comparison.first_difference
    diagnosis = comparison.diagnosis
    return {
        "ok": comparison.ok,
        "tolerance": comparison.tolerance,
        "first_difference": first.stage if first else None,
        "first_difference_head": first.head if first else None,
        "stages": [
            {
                "stage": stage.stage,
                "head": stage.head,
                "matches": stage.matches,
                "differing_cells": stage.count,
                "cells": [[int(i), int(j)] for i, j in np.argwhere(stage.differs)],
            }
            for stage in comparison.stages
        ],
        "diagnosis": None
        if diagnosis is None
        else {
            "mistake": diagnosis.key,
            "what": diagnosis.what,
            "fix": diagnosis.fix,
            "same_numbers_as": [mistake.key for mistake in diagnosis.mistakes[1:]],
            "needs_tolerance": diagnosis.tolerance,
            "suggestion": diagnosis.suggestion,
        },
        "rounded_within": comparison.rounded,
    }


def cell_note(
    comparison: Comparison, stage: str, row: int, col: int, precision: int, head: int | None = None
) -> str | None:
    """One line about a student's cell: "yours 0.250, attention 0.248 ✗" (None if not given)."""
    compared = comparison.stage(stage, head)
    if (
        compared is None
        or math.isnan(compared.difference[row, col])
        and not compared.differs[row, col]
    ):
        return None
    yours, correct = _pair(compared.yours[row, col], compared.correct[row, col], precision)
    if compared.differs[row, col]:
        return f"yours {yours}, attention {correct} ✗"
    return f"yours {yours}, matches ✓"


def comparison_lines(
    comparison: Comparison,
    scenario: Scenario,
    stage: str,
    row: int,
    col: int | None,
    head: int | None = None,
) -> list[Line]:
    """What the explanation pane adds for a student's values: their cell and row against ours,
    and, when their numbers match a known mistake, that mistake's arithmetic for the row."""
    compared = comparison.stage(stage, head)
    if compared is None:
        return []
    rows = token_labels(scenario.row_tokens)
    columns = column_labels(scenario, stage_keyed(stage))
    p = scenario.precision
    lines = [Line((Span("Your values (expect:)", "token"),))]
    if col is not None and col < compared.differs.shape[1]:
        note = cell_note(comparison, stage, row, col, p, head)
        if note:
            lines.append(
                Line(
                    (
                        Span(f"({rows[row]}, {columns[col]}): ", "token"),
                        Span(note, "masked" if compared.differs[row, col] else "result"),
                    ),
                    True,
                )
            )
    bad = int(compared.differs[row].sum())
    verdict = (
        f'row "{rows[row]}": {bad} of {compared.differs.shape[1]} cells differ ✗'
        if bad
        else f'row "{rows[row]}": matches ✓'
    )
    lines.append(Line((Span(verdict, "masked" if bad else "result"),)))
    diagnosis = comparison.diagnosis
    first = comparison.first_difference
    if diagnosis is not None and first is not None and (first.stage, first.head) == (stage, head):
        lines.append(
            Line((Span(f"Likely bug: {diagnosis.what}. Fix: {diagnosis.fix}.", "masked"),))
        )
        if diagnosis.suggestion:
            lines.append(Line((Span(f"To tell them apart: {diagnosis.suggestion}.", "note"),)))
        if comparison.mistaken_attention is not None:
            from attn_tui.core.engine.explanation import explain

            wrong = explain(comparison.mistaken_attention, stage_keyed(stage).name, row, col)
            lines.append(Line((Span("The mistaken way, for this row:", "note"),)))
            lines += [
                Line(
                    tuple(
                        Span(span.text, "note" if span.role == "text" else span.role)
                        for span in line.spans
                    ),
                    line.selected,
                )
                for line in wrong.lines
            ]
        elif stage in comparison.mistaken:
            values = comparison.mistaken[stage][row]
            shown = ", ".join(fixed(float(v), p) for v in values[:8]) + (
                ", …" if len(values) > 8 else ""
            )
            lines.append(Line((Span(f"The mistaken way gives this row: [{shown}]", "note"),)))
    return lines


def _pair(yours: float, correct: float, precision: int) -> tuple[str, str]:
    """Both values with enough decimals that different numbers read differently."""

    def text(value: float, decimals: int) -> str:
        return "nan (not a number)" if math.isnan(value) else fixed(float(value), decimals)

    decimals = precision
    while decimals < 12 and yours != correct and text(yours, decimals) == text(correct, decimals):
        decimals += 1
    return text(yours, decimals), text(correct, decimals)


def _signed(value: float) -> str:
    if math.isnan(value):
        return "nan (not a number)"
    text = fixed(abs(value), 6) if abs(value) >= 1e-6 else f"{abs(value):.2e}"
    return ("+" if value >= 0 else "−") + text
