"""Check a student's own attention: compare their numbers with ours, stage by stage, and name
the mistake their numbers match.

Each known mistake is recognised by recomputing attention the mistaken way and comparing
again; nothing is guessed from the size of the difference. When several mistakes match, the
closest is named; when two give the same numbers for this scenario, both are named with what
to change so the scenario could tell them apart; when none matches at the given tolerance but
one would at a looser one (a student who rounded to three decimals), that is said. How a
comparison is told (``--check``, ``--json``, the Why pane) is ``core.teaching.comparison_report``.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field

import numpy as np

from attn_tui.core.engine.attention import Attention
from attn_tui.core.engine.stages import expect_keys, stage_keyed
from attn_tui.core.engine.trace import trace
from attn_tui.core.model.options import Expected
from attn_tui.core.model.scenario import Scenario
from attn_tui.core.teaching.mistakes import Mistake
from attn_tui.core.text import visible

ROUNDED = 0.005  # a student's numbers this close to a computation look rounded, not wrong
SAME = 1e-12  # two computations this close give "the same numbers"


@dataclass(frozen=True)
class StageComparison:
    stage: str  # the expect: name: scores, scaled, weights or output
    differs: np.ndarray  # bool, where the student's value is off by more than the tolerance
    difference: np.ndarray  # student − correct (NaN where either is NaN)
    yours: np.ndarray  # the student's values
    correct: np.ndarray  # attention's
    given: np.ndarray | None = None  # bool, the cells the student gave (None: all)
    head: int | None = None  # which head, for a stage of every head when there are several
    head_name: str = ""

    @property
    def name(self) -> str:
        """``weights`` or, of one head of several, ``weights of head 2`` (its name)."""
        return self.stage if self.head is None else f"{self.stage} of {visible(self.head_name)}"

    @property
    def matches(self) -> bool:
        return not self.differs.any()

    @property
    def count(self) -> int:
        return int(self.differs.sum())


@dataclass(frozen=True)
class Diagnosis:
    """The mistake (or mistakes: ones this scenario cannot tell apart) the student's numbers
    match; ``tolerance`` is set when they match only at a looser tolerance than the scenario's."""

    mistakes: tuple[Mistake, ...]
    tolerance: float | None = None
    suggestion: str | None = None

    @property
    def key(self) -> str:
        return self.mistakes[0].key

    @property
    def what(self) -> str:
        return " or ".join(mistake.what for mistake in self.mistakes)

    @property
    def fix(self) -> str:
        return "; or ".join(mistake.fix for mistake in self.mistakes)


@dataclass(frozen=True)
class Comparison:
    """The student's stages against ours, the first that differs, and the likely mistake."""

    stages: tuple[StageComparison, ...]
    tolerance: float
    diagnosis: Diagnosis | None = None
    mistaken: dict[str, np.ndarray] = field(default_factory=dict)  # the mistake's own stages
    mistaken_attention: Attention | None = None  # when the mistake is attention with other options
    rounded: float | None = None  # the student's values match attention's within this, only

    @property
    def ok(self) -> bool:
        return all(stage.matches for stage in self.stages)

    @property
    def first_difference(self) -> StageComparison | None:
        return next((stage for stage in self.stages if not stage.matches), None)

    def stage(self, name: str, head: int | None = None) -> StageComparison | None:
        """The comparison of stage ``name`` (of ``head``, for a stage of every head when
        there are several)."""
        return next(
            (stage for stage in self.stages if stage.stage == name and stage.head == head), None
        )


def compare(scenario: Scenario, attention: Attention | None = None) -> Comparison:
    """Compare the student's stages (the scenario's ``expect``) with attention's; name the
    mistake their first differing stage matches, if any. With several heads (or Wo), each
    head is compared as a scenario of its own (its Q, K, V, rotated if RoPE turns them), and
    then the heads side by side (concat) and the output projection."""
    attention = attention or Attention(scenario)
    if not scenario.multi_head:
        return _compare_one(scenario, attention)
    stages: list[StageComparison] = []
    per_head: dict[int, Comparison] = {}
    for h in range(scenario.heads):
        expect = {
            key: _of_head(expected, h, scenario.heads)
            for key, expected in scenario.expect.items()
            if stage_keyed(key).arithmetic.per_head and not stage_keyed(key).arithmetic.backward
        }
        if not expect:
            continue
        single = head_scenario(scenario, attention, h, expect)
        found = _compare_one(single, Attention(single))
        name = scenario.head_names[h]
        stages += [
            dataclasses.replace(stage, head=h if scenario.heads > 1 else None, head_name=name)
            for stage in found.stages
        ]
        per_head[h] = found
    rows = range(scenario.T)
    empty = attention.empty(rows)
    for stage in attention.steps:  # a head's backward steps need the layer's loss: read whole
        if stage.arithmetic.backward and stage.arithmetic.per_head and stage.key in scenario.expect:
            rows_of, cols = range(stage.row_count(scenario)), range(stage.column_count(scenario))
            for h in range(scenario.heads):
                found = _compare(
                    stage.key,
                    _of_head(scenario.expect[stage.key], h, scenario.heads),
                    attention.values(stage.name, h, rows_of, cols),
                    scenario.expect_tolerance,
                )
                stages.append(
                    dataclasses.replace(
                        found,
                        head=h if scenario.heads > 1 else None,
                        head_name=scenario.head_names[h],
                    )
                )
    for stage in attention.steps:
        if not stage.arithmetic.per_head and stage.key in scenario.expect:
            correct = attention.values(stage.name, None, rows, range(stage.column_count(scenario)))
            expected = _without_empty_rows(scenario.expect[stage.key], empty, stage.key)
            stages.append(_compare(stage.key, expected, correct, scenario.expect_tolerance))
    stages.sort(key=lambda stage: (expect_keys().index(stage.stage), stage.head or 0))
    comparison = Comparison(tuple(stages), scenario.expect_tolerance)
    first = comparison.first_difference
    # the diagnosis is the one of the stage reported first (its head's own recomputation)
    diagnosed = (
        per_head.get(first.head or 0)
        if first is not None and stage_keyed(first.stage).arithmetic.per_head
        else None
    )
    if diagnosed is None:
        return comparison
    return dataclasses.replace(
        comparison,
        diagnosis=diagnosed.diagnosis,
        mistaken=diagnosed.mistaken,
        mistaken_attention=diagnosed.mistaken_attention,
        rounded=diagnosed.rounded,
    )


def head_scenario(
    scenario: Scenario, attention: Attention, h: int, expect: dict[str, Expected]
) -> Scenario:
    """Head ``h`` of a multi-head scenario as a one-head scenario: its queries, keys (both
    rotated, when RoPE turns them) and values, the same options and masks, its own part of each
    stage's setting (its bias), and ``expect``."""
    inputs = attention.inputs
    own = {"Q": inputs.Q(h), "K": inputs.K(h), "V": inputs.V(h)}
    if (
        "bias" in scenario.inputs
    ):  # its part of an explicit bias (one matrix for every head, or its own)
        bias = scenario.inputs["bias"]
        own["bias"] = bias[h] if bias.ndim == 3 else bias
    return dataclasses.replace(
        scenario,
        inputs=own,
        heads=1,
        kv_heads=1,
        head_names=(scenario.head_names[h],),
        rope=None,
        variants=(),
        expect=expect,
        files={},
        random=None,
        stage_settings={
            name: part
            for name, setting in scenario.stage_settings.items()
            if (part := setting.of_head(h, scenario.heads)) is not None
        },
    )


def _without_empty_rows(expected: Expected, empty: np.ndarray, name: str) -> Expected:
    """A row that sees no key has no weights and no output: whatever a student wrote there (a
    naive softmax's NaN, the uniform weights a finite mask gives) is not compared."""
    if not stage_keyed(name).arithmetic.empty_rows:
        return expected
    return Expected(expected.values, expected.given & ~empty[:, None])


def _of_head(expected: Expected, h: int, heads: int) -> Expected:
    return Expected(expected.values[h], expected.given[h]) if heads > 1 else expected


def _compare_one(scenario: Scenario, attention: Attention) -> Comparison:
    """:func:`compare` for one head."""
    correct = trace(attention)
    expect, tolerance = scenario.expect, scenario.expect_tolerance
    if correct.empty.any():
        expect = {
            name: _without_empty_rows(expected, correct.empty, name)
            for name, expected in expect.items()
        }
    stages = tuple(
        _compare(name, expect[name], _correct(attention, correct, name), tolerance)
        for name in expect_keys(scenario)
        if name in expect
    )
    comparison = Comparison(stages, tolerance)
    first = comparison.first_difference
    if first is None:
        return comparison
    expected = expect[first.stage]
    from attn_tui.core.teaching.judgement import Judge  # it builds on this module's comparisons

    judge = Judge(scenario, tolerance=tolerance, attention=attention, correct=correct)
    diagnosis = judge.diagnose(first.stage, expected.values, expected.given, first.correct)
    off_correct = _distance(expected.values, first.correct, expected.given)
    rounded = _nice(off_correct) if off_correct <= ROUNDED else None
    if diagnosis is None:
        return dataclasses.replace(comparison, rounded=rounded)
    best = judge.mistaken(diagnosis.key) or {}
    arrays = {name: value for name, value in best.items() if name != "attention"}
    return Comparison(stages, tolerance, diagnosis, arrays, best.get("attention"))


def _correct(attention: Attention, correct, key: str) -> np.ndarray:
    """Attention's values of the stage ``key``: the head's trace holds its own stages; a stage of
    the whole layer (the backward pass's dO and dX) is read from attention whole."""
    if key in correct.values:
        return correct[key]
    stage, scenario = stage_keyed(key), attention.scenario
    return attention.values(
        stage.name, None, range(stage.row_count(scenario)), range(stage.column_count(scenario))
    )


def _compare(
    name: str, expected: Expected, correct: np.ndarray, tolerance: float
) -> StageComparison:
    values = expected.values
    with np.errstate(invalid="ignore", over="ignore"):
        difference = values - correct
        both_nan = np.isnan(values) & np.isnan(correct)
        same_inf = np.isinf(values) & (values == correct)
        near = np.abs(difference) <= tolerance
    differs = expected.given & ~(near | both_nan | same_inf)
    return StageComparison(
        name, differs, np.where(expected.given, difference, np.nan), values, correct, expected.given
    )


def _distance(a: np.ndarray, b: np.ndarray, given: np.ndarray) -> float:
    """The largest difference over the given cells (a NaN against a number: infinitely far)."""
    with np.errstate(invalid="ignore", over="ignore"):
        difference = np.abs(a - b)
    same = (np.isnan(a) & np.isnan(b)) | (a == b)
    difference = np.where(same, 0.0, np.where(np.isnan(difference), np.inf, difference))
    return float(difference[given].max(initial=0.0))


def _nice(distance: float) -> float:
    """A round tolerance at least ``distance``: 1, 2 or 5 times a power of ten."""
    if distance <= 0:
        return 1e-12
    power = 10.0 ** math.floor(math.log10(distance))
    for step in (1, 2, 5, 10):
        if step * power >= distance:
            return float(f"{step * power:.0e}")
    return 10 * power
