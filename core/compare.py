"""Check a student's own attention: compare their numbers with ours, stage by stage, and name
the mistake when their numbers match a known one.

Each known mistake is recognised by recomputing attention the mistaken way and comparing
again; nothing is guessed from the size of the difference.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from attn_tui.core.attention import Trace, compute
from attn_tui.core.explanation import Line, Span
from attn_tui.core.errors import NumericError
from attn_tui.core.numbers import fixed
from attn_tui.core.options import Expected
from attn_tui.core.scenario import Scenario
from attn_tui.core.softmax import softmax_rows

EXPECT_STAGES = ("scores", "scaled", "weights", "output")
STAGE_OF = {"scores": "score", "scaled": "scale", "weights": "softmax", "output": "output"}
MAX_LISTED = 5


@dataclass(frozen=True)
class Mistake:
    """A known way to get attention wrong: what it is, and how to fix it."""

    key: str
    what: str
    fix: str


@dataclass(frozen=True)
class StageComparison:
    stage: str                 # scores, scaled, weights or output
    differs: np.ndarray        # bool, where the student's value is off by more than the tolerance
    difference: np.ndarray     # student − correct (NaN where either is NaN)

    @property
    def matches(self) -> bool:
        return not self.differs.any()

    @property
    def count(self) -> int:
        return int(self.differs.sum())


@dataclass(frozen=True)
class Comparison:
    """The student's stages against ours, the first that differs, and the likely mistake."""

    stages: tuple[StageComparison, ...]
    tolerance: float
    diagnosis: Mistake | None = None
    mistaken: dict[str, np.ndarray] = field(default_factory=dict)  # the mistake's own stages
    mistaken_trace: Trace | None = None  # when the mistake is attention with other options

    @property
    def ok(self) -> bool:
        return all(stage.matches for stage in self.stages)

    @property
    def first_difference(self) -> StageComparison | None:
        return next((stage for stage in self.stages if not stage.matches), None)

    def stage(self, name: str) -> StageComparison | None:
        return next((stage for stage in self.stages if stage.stage == name), None)


MISTAKES = {
    "transposed": Mistake("transposed", "the scores are transposed (K·Qᵀ instead of Q·Kᵀ)",
                          "compute scores = Q @ K.T, so that row i holds query i against every key"),
    "unscaled": Mistake("unscaled", "the scores were not divided by √d_k",
                        "divide the scores by np.sqrt(d_k) before the softmax"),
    "divided_by_d_k": Mistake("divided_by_d_k", "the scores were divided by d_k instead of √d_k",
                              "divide by np.sqrt(d_k), not by d_k"),
    "no_mask": Mistake("no_mask", "the causal mask was not applied",
                       "before the softmax, set the scores where j > i to -inf "
                       "(np.triu(np.ones((T, T)), k=1))"),
    "mask_hides_self": Mistake("mask_hides_self", "the mask is off by one: a token cannot see itself",
                               "use np.triu(…, k=1), not k=0: the diagonal must stay visible"),
    "mask_sees_ahead": Mistake("mask_sees_ahead", "the mask is off by one: a token sees one step ahead",
                               "use np.triu(…, k=1), not k=2: only the future is hidden"),
    "mask_after_softmax": Mistake("mask_after_softmax", "the mask was applied after the softmax",
                                  "mask the scores (set them to -inf) before the softmax, so each "
                                  "row still sums to 1"),
    "softmax_axis": Mistake("softmax_axis", "the softmax runs over the wrong axis (columns)",
                            "normalise each row: softmax(scores, axis=-1)"),
    "k_as_v": Mistake("k_as_v", "the weights multiply K where V belongs", "the output is weights @ V"),
}


def compare(scenario: Scenario, trace: Trace | None = None) -> Comparison:
    """Compare the student's stages (the scenario's ``expect``) with ``trace`` (default: the
    scenario's own); name the mistake their first differing stage matches, if any."""
    trace = trace or compute(scenario)
    expect, tolerance = scenario.expect, scenario.expect_tolerance
    stages = tuple(_compare(name, expect[name], trace_stage(trace, name), tolerance)
                   for name in EXPECT_STAGES if name in expect)
    comparison = Comparison(stages, tolerance)
    first = comparison.first_difference
    if first is None:
        return comparison
    for key, make in _mistaken_ways(scenario, trace):
        mistaken = make()
        if mistaken is None or first.stage not in mistaken:
            continue
        theirs = mistaken[first.stage]
        same_as_correct = _close(theirs, trace_stage(trace, first.stage), tolerance)
        if theirs.shape != expect[first.stage].values.shape or same_as_correct:
            continue  # a mistake that changes nothing here cannot be told apart
        if _compare(first.stage, expect[first.stage], theirs, tolerance).matches:
            mistaken_trace = mistaken.get("trace")
            arrays = {name: value for name, value in mistaken.items() if name != "trace"}
            return Comparison(stages, tolerance, MISTAKES[key], arrays, mistaken_trace)
    return comparison


def trace_stage(trace: Trace, name: str) -> np.ndarray:
    return {"scores": trace.scores, "scaled": trace.scaled, "weights": trace.weights,
            "output": trace.output}[name]


def summary(comparison: Comparison, tokens: tuple[str, ...]) -> str:
    """What ``--check`` prints: each stage's verdict, the first differing cells, the diagnosis."""
    lines = []
    for stage in comparison.stages:
        if stage.matches:
            lines.append(f"{stage.stage}: ✓ matches (tolerance {comparison.tolerance:g})")
            continue
        lines.append(f"{stage.stage}: ✗ {stage.count} cell{'s' if stage.count > 1 else ''} differ")
        for i, j in np.argwhere(stage.differs)[:MAX_LISTED]:
            column = tokens[j] if stage.stage != "output" else f"d{j + 1}"
            lines.append(f"  ({tokens[i]}, {column}): yours differs by {_signed(stage.difference[i, j])}")
        if stage.count > MAX_LISTED:
            lines.append(f"  … and {stage.count - MAX_LISTED} more")
    first = comparison.first_difference
    if first is not None:
        lines.append(f"The first stage that differs is {first.stage}.")
        if comparison.diagnosis is not None:
            mistake = comparison.diagnosis
            lines.append(f"Likely bug: {mistake.what} — your {first.stage} values match attention "
                         f"computed that way. Fix: {mistake.fix}.")
        else:
            lines.append("They match none of the known mistakes; step through that stage in the app "
                         "(attn-tui FILE) to see where your arithmetic departs.")
    return "\n".join(lines)


def to_json(comparison: Comparison) -> dict:
    first = comparison.first_difference
    return {
        "ok": comparison.ok,
        "tolerance": comparison.tolerance,
        "first_difference": first.stage if first else None,
        "stages": [{"stage": stage.stage, "matches": stage.matches, "differing_cells": stage.count,
                    "cells": [[int(i), int(j)] for i, j in np.argwhere(stage.differs)]}
                   for stage in comparison.stages],
        "diagnosis": None if comparison.diagnosis is None else {
            "mistake": comparison.diagnosis.key, "what": comparison.diagnosis.what,
            "fix": comparison.diagnosis.fix},
    }


def cell_note(comparison: Comparison, stage: str, row: int, col: int) -> str | None:
    """One line about a student's cell: "yours 0.250, off by +0.002 ✗" (None if not given)."""
    compared = comparison.stage(stage)
    if compared is None or math.isnan(compared.difference[row, col]) and not compared.differs[row, col]:
        return None
    if compared.differs[row, col]:
        return f"yours differs by {_signed(compared.difference[row, col])} ✗"
    return "yours matches ✓"


def comparison_lines(comparison: Comparison, stage: str, row: int, col: int | None,
                     tokens: tuple[str, ...], precision: int) -> list[Line]:
    """What the explanation pane adds for a student's values: their cell and row against ours,
    and, when their numbers match a known mistake, that mistake's arithmetic for the row."""
    compared = comparison.stage(stage)
    if compared is None:
        return []
    lines = [Line((Span("Your values (expect:)", "token"),))]
    columns = tokens if stage != "output" else tuple(f"d{j + 1}" for j in range(compared.differs.shape[1]))
    if col is not None and col < compared.differs.shape[1]:
        note = cell_note(comparison, stage, row, col)
        if note:
            lines.append(Line((Span(f"({tokens[row]}, {columns[col]}): ", "token"),
                               Span(note, "masked" if compared.differs[row, col] else "result")), True))
    bad = int(compared.differs[row].sum())
    verdict = (f"row {tokens[row]!r}: {bad} of {compared.differs.shape[1]} cells differ ✗" if bad
               else f"row {tokens[row]!r}: matches ✓")
    lines.append(Line((Span(verdict, "masked" if bad else "result"),)))
    mistake = comparison.diagnosis
    if mistake is not None and comparison.first_difference is not None:
        lines.append(Line((Span(f"Likely bug: {mistake.what}. Fix: {mistake.fix}.", "masked"),)))
        if comparison.mistaken_trace is not None:
            from attn_tui.core.explanation import explain

            wrong = explain(comparison.mistaken_trace, STAGE_OF[stage], row, col)
            lines.append(Line((Span("The mistaken way, for this row:", "note"),)))
            lines += [Line(tuple(Span(span.text, "note" if span.role == "text" else span.role)
                                 for span in line.spans), line.selected) for line in wrong.lines]
        elif stage in comparison.mistaken:
            values = comparison.mistaken[stage][row]
            shown = ", ".join(fixed(float(v), precision) for v in values[:8]) + (", …" if len(values) > 8 else "")
            lines.append(Line((Span(f"The mistaken way gives this row: [{shown}]", "note"),)))
    return lines


def _compare(name: str, expected: Expected, correct: np.ndarray, tolerance: float) -> StageComparison:
    values = expected.values
    if values.shape != correct.shape:  # a mistaken variant of another shape (K where V belongs)
        return StageComparison(name, np.ones(values.shape, bool), np.full(values.shape, np.nan))
    with np.errstate(invalid="ignore", over="ignore"):
        difference = values - correct
        both_nan = np.isnan(values) & np.isnan(correct)
        same_inf = np.isinf(values) & (values == correct)
        near = np.abs(difference) <= tolerance
    differs = expected.given & ~(near | both_nan | same_inf)
    return StageComparison(name, differs, np.where(expected.given, difference, np.nan))


def _close(a: np.ndarray, b: np.ndarray, tolerance: float) -> bool:
    if a.shape != b.shape:
        return False
    with np.errstate(invalid="ignore"):
        return bool(np.all((np.abs(a - b) <= tolerance) | (np.isnan(a) & np.isnan(b)) | (a == b)))


def _mistaken_ways(scenario: Scenario, trace: Trace) -> list[tuple[str, Callable[[], dict | None]]]:
    """Each known mistake as a recomputation of the stages it changes."""
    options = trace.options
    d_k = trace.d_k

    def as_trace(mask_offset: int = 1, **changes) -> Callable[[], dict | None]:
        def make() -> dict | None:
            try:
                other = compute(scenario, dataclasses.replace(options, **changes), mask_offset)
            except NumericError:
                return None
            return {"scaled": other.scaled, "weights": other.weights, "output": other.output,
                    "trace": other}
        return make

    def transposed() -> dict:
        scores = trace.scores.T
        other = _from_scores(scores, trace)
        return {"scores": scores, **other}

    def mask_after_softmax() -> dict | None:
        if not options.causal:
            return None
        weights = softmax_rows(trace.scaled)[3] * ~trace.blocked
        return {"weights": weights, "output": weights @ trace.V}

    def softmax_axis() -> dict:
        with np.errstate(invalid="ignore"):
            weights = softmax_rows(trace.masked.T)[3].T
        return {"weights": weights, "output": weights @ trace.V}

    def k_as_v() -> dict | None:
        return {"output": trace.weights @ trace.K} if trace.K.shape == trace.V.shape else None

    ways: list[tuple[str, Callable[[], dict | None]]] = [("transposed", transposed)]
    if options.scale is not False:
        ways.append(("unscaled", as_trace(scale=False)))
    if options.scale is True and d_k != 1:  # for d_k = 1 the two are the same
        ways.append(("divided_by_d_k", as_trace(scale=float(d_k))))
    if options.causal:
        ways += [("no_mask", as_trace(causal=False)), ("mask_hides_self", as_trace(mask_offset=0)),
                 ("mask_sees_ahead", as_trace(mask_offset=2))]
    ways += [("mask_after_softmax", mask_after_softmax), ("softmax_axis", softmax_axis),
             ("k_as_v", k_as_v)]
    return ways


def _from_scores(scores: np.ndarray, trace: Trace) -> dict:
    scaled = scores / trace.divisor
    masked = np.where(trace.blocked, trace.options.mask_value, scaled)
    weights = softmax_rows(masked)[3]
    return {"scaled": scaled, "weights": weights, "output": weights @ trace.V}


def _signed(value: float) -> str:
    if math.isnan(value):
        return "nan (not a number)"
    return ("+" if value >= 0 else "") + (fixed(value, 6) if abs(value) >= 1e-6 else f"{value:.2e}")
