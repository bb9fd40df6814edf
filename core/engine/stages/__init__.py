"""The stages of attention, declared once: the registry every list of stages is derived from.

Each stage lives in a module of its own in this package and declares there, as one
:class:`Stage`, its arithmetic (``compute``, over a window of rows and columns on demand), its
text (``title``, ``heading``, ``explain``) and every fact the rest of the program asks about
it: what it reads (inputs and stages: for highlighting, invalidation and what a prediction
gives away), its shape, whether its rows can be empty, its number format, whether a student
may give (``expect:``) or guess (``predict:``) it and under which key, what ``--json`` writes
of it, and the scenario keys that turn it on (that form, :class:`Stage` and its parts, is
``core.engine.stages.declaration``). The order of ``REGISTRY`` is the step order.

The keys 1…9 and 0, the step strip, help, the palette, ``--json``, ``--print``,
``--markdown``, ``expect:`` and its shapes, ``--check``'s names, highlighting and the
prediction-hiding rule all ask the functions below, which read ``REGISTRY`` when called: adding
a stage is its module, one line in :func:`_registry`, and the reader of its scenario keys.

Two parts every stage must declare, or it is refused when its module is imported: its
``gradient`` and its ``score_range`` (its effect on the range of the scores), each one of the
small kinds of ``core.engine.stages.contract``. The backward pass, the overflow checks and the
mask's leak check ask them and name no stage (docs/architecture.md, "How to add a stage").
"""

from __future__ import annotations

from typing import Any

from attn_tui.core.engine.stages.contract import check_registry
from attn_tui.core.engine.stages.declaration import (
    CONCAT,
    DIMS,
    INPUTS,
    KEYS,
    MODEL,
    OUT,
    PREVIOUS,
    VALUES,
    Stage,
    Summary,
)

# What a stage's module is written with is declared in ``declaration`` and given here, beside
# the registry of the stages made with it: every stage imports it from this package (``from
# attn_tui.core.engine.stages import PREVIOUS, Stage``), as a stage plugged in from outside does.
# This package uses the names above itself; these it only gives (so the redundant aliases).
from attn_tui.core.engine.stages.declaration import TILES as TILES
from attn_tui.core.engine.stages.declaration import Arithmetic as Arithmetic
from attn_tui.core.engine.stages.declaration import Display as Display
from attn_tui.core.engine.stages.declaration import Extra as Extra
from attn_tui.core.engine.stages.declaration import Reported as Reported
from attn_tui.core.engine.stages.declaration import Teaching as Teaching
from attn_tui.core.engine.stages.declaration import Toggle as Toggle
from attn_tui.core.engine.stages.declaration import TurnedOn as TurnedOn
from attn_tui.core.model.labels import concat_dims, dims, token_labels


def _registry() -> tuple[Stage, ...]:
    from attn_tui.core.engine.stages import (
        backward_steps,
        bias,
        concat,
        decode,
        mask,
        online,
        project,
        qk_norm,
        rotate,
        scale,
        score,
        softcap,
        softmax,
        weighted_sum,
    )

    registry = (
        qk_norm.STAGE,
        rotate.STAGE,
        score.STAGE,
        scale.STAGE,
        bias.STAGE,
        softcap.STAGE,
        mask.STAGE,
        softmax.STAGE,
        weighted_sum.STAGE,
        online.STAGE,
        decode.STAGE,
        concat.STAGE,
        project.STAGE,
        *backward_steps.STAGES,  # the backward pass, from the output back to the inputs
    )
    check_registry(registry)
    return registry


_indexed: tuple[tuple[Stage, ...], dict[str, Stage], dict[str, Stage]] | None = None


def _index() -> tuple[dict[str, Stage], dict[str, Stage]]:
    """The registry by name and by key (rebuilt when a test puts another registry in place)."""
    global _indexed
    if _indexed is None or _indexed[0] is not REGISTRY:
        check_registry(REGISTRY)  # (a registry put in place is held to what the one built here is)
        _indexed = (
            REGISTRY,
            {stage.name: stage for stage in REGISTRY},
            {stage.key: stage for stage in REGISTRY},
        )
    return _indexed[1], _indexed[2]


def stages_for(scenario: Any) -> tuple[Stage, ...]:
    """The stages this scenario steps through, in order."""
    _index()
    return tuple(stage for stage in REGISTRY if stage.applies(scenario))


def needing_causal(scenario: Any) -> Stage | None:
    """The stage turned on in ``scenario`` that holds only under the causal mask, if one is."""
    return next(
        (
            stage
            for stage in REGISTRY
            if stage.turned_on.needs_causal is not None and stage.name in scenario.stage_settings
        ),
        None,
    )


def stage_named(name: str) -> Stage:
    try:
        return _index()[0][name]
    except KeyError:
        raise ValueError(f"unknown stage {name!r}; stages are {', '.join(_index()[0])}") from None


def stage_keyed(key: str) -> Stage:
    """The stage a key of ``expect:``, ``predict:`` or ``--json`` names."""
    return _index()[1][key]


def expect_keys(scenario: Any = None) -> tuple[str, ...]:
    """The names a student may write under ``expect:`` and ``predict:``, in step order: of
    every stage, or of those ``scenario`` has."""
    stages = REGISTRY if scenario is None else stages_for(scenario)
    return tuple(stage.key for stage in stages if stage.teaching.predictable)


def step_number(scenario: Any, name: str) -> int:
    """The 1-based step of a stage in this scenario (the key that jumps to it)."""
    return [stage.name for stage in stages_for(scenario)].index(name) + 1


def step_keys() -> tuple[str, ...]:
    """The keys that jump to steps 1, 2, …: 1 … 9 then 0, for as many steps as the registry
    has stages (a scenario with more reaches the rest with g or the palette)."""
    return tuple("1234567890"[: len(REGISTRY)])


def summary(name: str) -> Summary:
    """A per-row summary by its name (``max_weight``: the variants compare each row's)."""
    return next(
        found for stage in REGISTRY for found in stage.reported.summaries if found.name == name
    )


def toggled() -> tuple[Stage, ...]:
    """The stages a person may turn on and off (a command-line option, a key, the palette)."""
    return tuple(stage for stage in REGISTRY if stage.turned_on.toggle is not None)


def scenario_keys() -> dict[str, Stage]:
    """Every scenario key a stage declares, with its stage."""
    return {key: stage for stage in REGISTRY for key in stage.turned_on.keys}


# ---- what reads what, in one scenario's steps ---------------------------------------------------


def reads(stage: Stage, steps: tuple[Stage, ...]) -> tuple[str, ...]:
    """What ``stage`` reads among ``steps`` (a scenario's), PREVIOUS resolved and stages the
    scenario does not have left out."""
    names = {step.name for step in steps}
    found = []
    for name in stage.arithmetic.reads:
        if name == PREVIOUS:
            before = [
                step
                for step in steps[: steps.index(stage)]
                if (step.arithmetic.per_head or not stage.arithmetic.per_head)
                and not step.arithmetic.branch
            ]
            if before:
                found.append(before[-1].name)
        elif name in INPUTS or name in names:
            found.append(name)
    return tuple(found)


def upstream(name: str, steps: tuple[Stage, ...]) -> set[str]:
    """Every stage and input ``name`` is computed from, directly or not (itself excluded)."""
    by_name = {step.name: step for step in steps}
    found: set[str] = set()
    todo = list(reads(by_name[name], steps))
    while todo:
        current = todo.pop()
        if current not in found:
            found.add(current)
            if current in by_name:
                todo.extend(reads(by_name[current], steps))
    return found


def gives_away(name: str, steps: tuple[Stage, ...]) -> set[str]:
    """The stages whose values showing ``name`` (its cells or its arithmetic) gives away:
    itself and every stage it is computed from. Anything computed from a hidden value is
    hidden too (see ``core.teaching.predictions``)."""
    return {name} | (upstream(name, steps) - set(INPUTS))


def inputs_read(name: str, steps: tuple[Stage, ...]) -> set[str]:
    """The inputs a stage depends on, directly or through the stages it reads (what an edit of
    them makes stale)."""
    return upstream(name, steps) & set(INPUTS)


ROW, KEY, ALL = "row", "key", "all"  # of an input: the query's row, the key's row, every row


def highlights(name: str, steps: tuple[Stage, ...]) -> dict[str, str]:
    """The input rows a cell (query i, column j) of stage ``name`` is read from, directly or
    through stages that work cell by cell: Q's row i, K's row j (the column's key), or every
    row of an input that a row-wide stage reads. A row-wide stage upstream (softmax) ends the
    trail: what it reads is a step of its own."""
    by_name = {step.name: step for step in steps}
    found: dict[str, str] = {}

    def visit(stage: Stage) -> None:
        for read in reads(stage, steps):
            if read in by_name:
                if not stage.arithmetic.row_wide and not by_name[read].arithmetic.row_wide:
                    visit(by_name[read])
            elif read in ("Q", "K", "V"):
                found[read] = ALL if stage.arithmetic.row_wide else ROW if read == "Q" else KEY

    visit(by_name[name])
    return found


# Last, so that a stage module may read what this package gives (Stage, PREVIOUS, …) while it
# loads.
REGISTRY: tuple[Stage, ...] = _registry()


def row_labels(scenario, stage) -> tuple[str, ...]:
    """The row labels of a stage's matrix: the query tokens, or the keys' (dK, dV)."""
    return token_labels(scenario.tokens if stage.arithmetic.rows == "keys" else scenario.row_tokens)


def column_labels(scenario, stage) -> tuple[str, ...]:
    """The column labels of a stage's matrix ."""
    if stage.arithmetic.labels is not None:
        return stage.arithmetic.labels(scenario)
    return {
        KEYS: lambda: token_labels(scenario.tokens),
        DIMS: lambda: dims(scenario.d_k),
        VALUES: lambda: dims(scenario.d_v),
        CONCAT: lambda: concat_dims(scenario.heads, scenario.d_v),
        OUT: lambda: (
            dims(scenario.d_out, "o")
            if "Wo" in scenario.inputs
            else concat_dims(scenario.heads, scenario.d_v)
        ),
        MODEL: lambda: dims(stage.column_count(scenario), "m"),
    }[stage.arithmetic.columns]()


def expected_shape(scenario: Any, key: str) -> tuple[int, ...] | None:
    """The shape of a student's values for stage ``key`` (``expect:``): one matrix per head
    for a stage of every head when there are several; None if the scenario has no such stage."""
    return stage_keyed(key).shape(scenario) if key in expect_keys(scenario) else None
