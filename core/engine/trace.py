"""Every stage of one head as dense arrays (``Trace``): for small scenarios, the handouts and
the tests, assembled from the same blocks the app's views read (``core.engine.attention``)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from attn_tui.core.engine.attention import Attention
from attn_tui.core.engine.stages import Stage
from attn_tui.core.model.options import Options
from attn_tui.core.model.scenario import Scenario


@dataclass(eq=False)
class Trace:
    """Every stage of one head as dense arrays (for small scenarios and tests): ``values`` by
    stage key (``trace.weights``, ``trace.scores``, …, or ``trace["weights"]``), and ``blocked``,
    True where a mask hides a key from a query, and ``empty``, the rows that see no key."""

    tokens: tuple[str, ...]
    options: Options
    precision: int
    divisor: float
    Q: np.ndarray
    K: np.ndarray
    V: np.ndarray
    blocked: np.ndarray
    empty: np.ndarray
    values: dict[str, np.ndarray] = field(default_factory=dict)
    statistics: dict[str, np.ndarray] = field(default_factory=dict)  # every stage's, by their names
    steps: tuple[Stage, ...] = ()

    def __getattr__(self, name: str) -> np.ndarray:
        for found in (self.__dict__.get("values", {}), self.__dict__.get("statistics", {})):
            if name in found:
                return found[name]
        raise AttributeError(f"this trace has no stage or statistic {name!r}")

    def __getitem__(self, key: str) -> np.ndarray:
        return self.values[key]

    @property
    def T(self) -> int:
        return len(self.tokens)

    @property
    def d_k(self) -> int:
        return self.Q.shape[1]

    @property
    def d_v(self) -> int:
        return self.V.shape[1]

    def stage(self, name: str) -> np.ndarray:
        """The matrix a stage (by name) produces."""
        return self.values[next(step.key for step in self.steps if step.name == name)]

    def before(self, name: str) -> np.ndarray:
        """The matrix of the head's stage just before ``name``."""
        names = [step.name for step in self.steps if step.arithmetic.per_head]
        return self.stage(names[names.index(name) - 1])


def trace(attention: Attention, h: int = 0) -> Trace:
    """Head ``h`` of ``attention`` as dense arrays, assembled from the same blocks a view reads."""
    head = attention.head(h)
    scenario = attention.scenario
    rows, keys = range(attention.T), range(scenario.T_k)
    steps = tuple(step for step in attention.steps if step.arithmetic.per_head)
    values = {
        step.name: head.values(
            step.name, range(step.row_count(scenario)), range(step.column_count(scenario))
        )
        for step in steps
    }
    statistics: dict[str, np.ndarray] = {}
    for step in steps:
        if step.arithmetic.statistics is not None:
            statistics.update(head.statistics(step.name, rows))
        for summary in step.reported.summaries:
            statistics[summary.name] = summary.values(head, rows)
    return Trace(
        tokens=scenario.row_tokens,
        options=attention.options,
        precision=scenario.precision,
        divisor=attention.divisor,
        Q=head.Q,
        K=head.K,
        V=head.V,
        blocked=head.blocked(rows, keys),
        empty=head.empty(rows),
        values={step.key: values[step.name] for step in steps},
        statistics=statistics,
        steps=steps,
    )


def compute(scenario: Scenario, options: Options | None = None, causal_offset: int = 1) -> Trace:
    """Every stage of ``scenario``'s first head (under other ``options``, for a variant).

    ``causal_offset`` is where the causal mask starts: 1, the future, for attention itself; the
    diagnosis of a student's off-by-one mask recomputes with 0 or 2.
    """
    options = options or scenario.options
    attention = Attention(scenario, options, visibility=scenario.visibility(options, causal_offset))
    return trace(attention)


def compute_all(scenario: Scenario) -> dict[str, Trace]:
    """The scenario's own trace under ``""``, and one per variant under its name."""
    traces = {"": compute(scenario)}
    for variant in scenario.variants:
        traces[variant.name] = compute(scenario, variant.options(scenario.options))
    return traces
