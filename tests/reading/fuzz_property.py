"""The fuzzer's property, which every document it draws must keep: loading ends in either

* a Scenario, whose every stage computes to finite numbers (masked cells may be -inf), or
* a ScenarioError that carries a line number.

What must be finite is derived from the stage registry (``finite_parts``), so that a new stage
is checked the day it lands. The strategies are tests/reading/fuzz_yaml.py's (with the words of
tests/reading/fuzz_words.py), tests/reading/fuzz_scenarios.py's,
tests/reading/fuzz_float64_edges.py's and tests/reading/fuzz_mutated_shipped.py's; the tests,
tests/reading/test_loader_never_crashes.py.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import numpy as np
from hypothesis import HealthCheck, settings

from attn_tui.core import Scenario, ScenarioError, compute_all, load, loads
from attn_tui.core.limits import MAX_T
from tests.conftest import ROOT

EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "200"))
COMPUTE_T_LIMIT = 512  # compute_all on a bigger loaded scenario would itself be slow

FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,  # no test asserts on time: benchmarks/limits.py times these inputs
    suppress_health_check=list(HealthCheck),
)

SHIPPED = {path.name: path.read_bytes() for path in sorted((ROOT / "scenarios").glob("*.yaml"))}
LINE_BREAKS = re.compile("\r\n|[\r\n\x85\u2028\u2029]")


class NonFiniteStage(AssertionError):
    """A loaded scenario computed to a NaN or an infinity in ``stage``."""

    def __init__(self, message: str, stage: str) -> None:
        super().__init__(message)
        self.stage = stage


# ---- the property ------------------------------------------------------------------------------


def line_count(text: str) -> int:
    return len(LINE_BREAKS.findall(text)) + 1


def check_outcome(call, text_for_lines: str | None, path: str) -> Scenario | None:
    """Run ``call`` (a load or loads); assert the outcome is a Scenario or a located error."""
    try:
        scenario = call()
    except ScenarioError as error:
        assert error.line is not None, f"a ScenarioError without a line: {error}"
        assert error.line >= 1 and (error.col is None or error.col >= 1), str(error)
        if text_for_lines is not None:
            assert error.line <= line_count(text_for_lines) + 1, f"line past the end: {error}"
        assert str(error).startswith(f"{path}:{error.line}:"), str(error)
        return None
    assert isinstance(scenario, Scenario)
    check_scenario(scenario)
    return scenario


def check_scenario(scenario: Scenario) -> None:
    """A loaded scenario is consistent and never computes to NaN or an overflow."""
    T = len(scenario.tokens)
    assert 1 <= T <= MAX_T
    assert scenario.Q.shape[0] == scenario.K.shape[0] == scenario.V.shape[0] == T
    assert scenario.Q.shape[1] == scenario.K.shape[1]
    assert 0 <= scenario.focus < T
    for name in scenario.inputs:
        assert np.isfinite(scenario.inputs[name]).all(), f"{name} holds a non-finite number"
    if T > COMPUTE_T_LIMIT:
        return
    for variant, trace in compute_all(scenario).items():
        label = f"variant {variant!r}" if variant else "the scenario"
        for stage, values in finite_parts(scenario, trace).items():
            if not np.isfinite(values).all():
                raise NonFiniteStage(f"{label}: {stage} is not finite: {values}", stage)
        for step in trace.steps:  # a cell a mask hides is the mask value (−∞ may be), never NaN
            if step.arithmetic.masks and np.isnan(trace[step.key][trace.blocked]).any():
                raise NonFiniteStage(f"{label}: a masked cell is NaN", step.key)
        # a row that sees no key (full padding, an explicit mask) has no weights at all
        assert np.array_equal(trace.empty, trace.blocked.all(axis=1)), label
        # every row's weights sum to 1, less what a learned sink (sinks:) took of it
        to_sink = trace.statistics.get("sink", 0.0)
        assert np.allclose(
            trace.weights.sum(axis=1), np.where(trace.empty, 0.0, 1.0 - to_sink), rtol=0, atol=1e-9
        ), label


def finite_parts(scenario: Scenario, trace) -> dict[str, np.ndarray]:
    """What must be finite in a head's trace, from the registry (a new stage is checked the day
    it lands): every stage's values, but the cells its mask hides (``masks``) or it skips
    (``skipped``: online softmax's tiles in the future), and every per-row statistic (of the
    cells it does not skip) and summary a stage declares. A branch's statistics tell a walk
    (online softmax's tiles) and say NaN where there is none (no correction at a row's first
    tile): of those, only what is not NaN must be finite."""
    from attn_tui.core.engine.attention import Attention

    attention = Attention(scenario, trace.options)
    rows = range(trace.T)
    parts = {}
    for step in trace.steps:
        values = trace[step.key]
        shown = ~trace.blocked if step.arithmetic.masks else np.ones(values.shape, dtype=bool)
        if step.arithmetic.skipped is not None:
            shown = shown & ~step.arithmetic.skipped(
                attention, 0, range(values.shape[0]), range(values.shape[1])
            )
        parts[
            step.key
            + (" (shown cells)" if step.arithmetic.masks or step.arithmetic.skipped else "")
        ] = values[shown]
        if step.arithmetic.statistics is not None:
            for name, statistic in attention.statistics(step.name, 0, rows).items():
                statistic = statistic[shown] if statistic.shape == shown.shape else statistic
                parts[name] = (
                    statistic[~np.isnan(statistic)] if step.arithmetic.branch else statistic
                )
        for summary in step.reported.summaries:
            parts[summary.name] = trace.statistics[summary.name]
    return parts


def check_text(text: str, path: str = "fuzz.yaml") -> Scenario | None:
    return check_outcome(lambda: loads(text, path), text, path)


def check_bytes(data: bytes, directory: Path, name: str = "fuzz.yaml") -> Scenario | None:
    path = directory / name
    path.write_bytes(data)
    encoding = "utf-16" if data[:2] in (b"\xff\xfe", b"\xfe\xff") else "utf-8-sig"
    text = data.decode(encoding, errors="replace")  # for the line count only
    return check_outcome(lambda: load(path), text + "\n" * data.count(b"\n"), str(path))
