"""The stages of attention, declared once: the registry every list of stages is derived from.

Each stage lives in a module of its own in this package and declares there, as one
:class:`Stage`: its name and title, what its matrix holds (``heading``), what it is computed
from (``reads``), how one changed input cell changes it (``changes``), how to compute a window
of it (``values``), the arithmetic of one row (``explain``), its name in ``expect:``,
``predict:`` and ``--json`` (``key``), and the kind of its columns. The order of ``REGISTRY`` is
the step order. The keys 1…N, the step strip, help, the palette, ``--json``, ``--print``,
``--markdown``, ``--check`` and what a prediction hides are all derived from it.

Adding a stage is its module plus one line in ``REGISTRY``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

import numpy as np

if TYPE_CHECKING:
    from attn_tui.core.attention import Attention
    from attn_tui.core.explanation import Writer
    from attn_tui.core.options import Options
    from attn_tui.core.scenario import Scenario

# What a stage's columns are: the keys (tokens), a head's dimensions, the heads' dimensions side
# by side, or the output projection's.
KEYS, DIMS, VALUES, CONCAT, OUT = "keys", "dims", "values", "concat", "out"


@dataclass(frozen=True)
class Stage:
    name: str           # "score": how code and keys refer to it
    title: str          # "Score": how the step strip and headings name it
    key: str            # "scores": its name in expect:, predict: and --json
    reads: tuple[str, ...]   # the stages (or inputs Q, K, V, Wo) it is computed from
    changes: str        # how one changed input cell changes it, in words
    columns: str        # KEYS, DIMS, VALUES, CONCAT or OUT
    palette: str        # "weights" (0 to 1) or "diverging" (blue below 0, red above)
    heading: Callable[[Scenario, Options], str]
    values: Callable[[Attention, int, range, range], np.ndarray]
    explain: Callable[[Writer], str]
    applies: Callable[[Scenario], bool] = lambda scenario: True
    per_head: bool = True
    predictable: bool = True  # whether a student can give (expect:) or guess (predict:) it

    def column_count(self, scenario: Scenario) -> int:
        return {KEYS: scenario.T_k, DIMS: scenario.d_k, VALUES: scenario.d_v,
                CONCAT: scenario.heads * scenario.d_v, OUT: scenario.d_out}[self.columns]


def _registry() -> tuple[Stage, ...]:
    from attn_tui.core.stages import (concat, mask, project, rotate, scale, score, softmax,
                                      weighted_sum)

    return (rotate.STAGE, score.STAGE, scale.STAGE, mask.STAGE, softmax.STAGE,
            weighted_sum.STAGE, concat.STAGE, project.STAGE)


REGISTRY: tuple[Stage, ...] = _registry()
BY_NAME = {stage.name: stage for stage in REGISTRY}
BY_KEY = {stage.key: stage for stage in REGISTRY}
# The names a student may write under expect: and predict:, in step order.
EXPECT_KEYS = tuple(stage.key for stage in REGISTRY if stage.predictable)


def stages_for(scenario: Scenario) -> tuple[Stage, ...]:
    """The stages this scenario steps through, in order."""
    return tuple(stage for stage in REGISTRY if stage.applies(scenario))


def stage_named(name: str) -> Stage:
    try:
        return BY_NAME[name]
    except KeyError:
        raise ValueError(f"unknown stage {name!r}; stages are {', '.join(BY_NAME)}") from None


def step_number(scenario: Scenario, name: str) -> int:
    """The 1-based step of a stage in this scenario (the key that jumps to it)."""
    return [stage.name for stage in stages_for(scenario)].index(name) + 1


def upstream(name: str) -> set[str]:
    """Every stage ``name`` is computed from, directly or not (itself excluded)."""
    found: set[str] = set()
    todo = list(BY_NAME[name].reads)
    while todo:
        current = todo.pop()
        if current in BY_NAME and current not in found:
            found.add(current)
            todo.extend(BY_NAME[current].reads)
    return found


def gives_away(name: str) -> set[str]:
    """The stages whose values showing ``name`` (its cells or its arithmetic) gives away:
    itself and everything it is computed from. Anything computed from a hidden value is
    hidden too (see ``core.predictions``)."""
    return {name} | upstream(name)
