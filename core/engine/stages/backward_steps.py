"""The backward pass's steps, from the layer's output back to the inputs: one row each in
:data:`STAGES`, in the order the registry shows them. The scenario's ``loss:`` turns them on (its
keys are read by ``core.reading.loss``).

Each is a view of what ``core.engine.backward`` works out (the gradients themselves), so a row
says only what differs between them: its name and title, its columns and what it reads, its
heading, the slice of the backward pass it shows and its words for one row (in
``backward_to_the_scores`` and ``backward_to_the_inputs``). What every step shares is filled in
by :func:`step`: gradients are drawn blue below 0 and red above, each cell reads whole rows, the
backward pass never crosses a gradient, and no gradient is a score.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from attn_tui.core.engine.stages import (
    DIMS,
    KEYS,
    MODEL,
    OUT,
    PREVIOUS,
    VALUES,
    Arithmetic,
    Display,
    Extra,
    Reported,
    Stage,
    Teaching,
    TurnedOn,
)
from attn_tui.core.engine.stages import backward_to_the_inputs as to_inputs
from attn_tui.core.engine.stages import backward_to_the_scores as to_scores
from attn_tui.core.engine.stages.contract import (
    OF_THE_BACKWARD,
    OF_THE_BACKWARD_PASS,
    between_scores_and_mask,
)
from attn_tui.core.reading import loss as reader

LOSS = "d_output"  # the step whose setting is the scenario's loss:


def loss(scenario):
    """The scenario's ``loss:`` (a ``core.reading.loss.LossSetting``, with its ``train:``), or None:
    what turns the backward pass on. Every other module asks here, not for the setting's name."""
    return scenario.stage_settings.get(LOSS)


def has_loss(scenario) -> bool:
    return loss(scenario) is not None


def step(
    name: str,
    title: str,
    columns: str,
    reads: tuple[str, ...],
    heading: Callable[[Any, Any], str],
    compute: Callable,
    explain: Callable,
    *,
    applies: Callable[[Any], bool] = has_loss,
    changes: str = "every edit changes it",
    per_head: bool = True,
    rows: str = "queries",
    extras: tuple[Extra, ...] = (),
    in_json: bool = True,
    predictable: bool = True,
    turned_on: TurnedOn = TurnedOn(),
) -> Stage:
    """A step of the backward pass: the row's own facts, and what every step shares."""
    return Stage(
        name=name,
        title=title,
        key=name,
        arithmetic=Arithmetic(
            compute=compute,
            reads=reads,
            columns=columns,
            per_head=per_head,
            rows=rows,
            row_wide=True,
            backward=True,
        ),
        display=Display(heading=heading, explain=explain, palette="diverging", changes=changes),
        gradient=OF_THE_BACKWARD_PASS,
        score_range=OF_THE_BACKWARD,
        applies=applies,
        turned_on=turned_on,
        reported=Reported(extras=extras, in_json=in_json),
        teaching=Teaching(predictable=predictable),
    )


def of_head(name: str) -> Callable:
    """The window of one of a head's gradients the backward pass keeps whole (dQ, dK, dV)."""
    return lambda w: w.attention.backward.head(w.head)[name][
        w.rows.start : w.rows.stop, w.cols.start : w.cols.stop
    ]


def _turned(scenario) -> str:
    turned = ", turned back by RoPE" if scenario.rope is not None else ""
    return turned + (", back through QK-norm" if "qk_norm" in scenario.stage_settings else "")


def _d_output_heading(scenario, options) -> str:
    if loss(scenario).target is None:
        return "dL/d output, as the scenario gives it"
    return "dL/d output = output − target, for L = ½·Σ(output − target)²"


def _d_head_output_heading(scenario, options) -> str:
    if "Wo" in scenario.inputs:
        return "dO of each head: its columns of dO·Woᵀ"
    return "dO of each head: its columns of dO"


def _d_raw_scores_heading(scenario, options) -> str:
    from attn_tui.core.engine.stages import stages_for

    crossed = reversed(between_scores_and_mask(stages_for(scenario)))
    return "dL/d(Q·Kᵀ) = dS" + "".join(
        stage.gradient.heading(scenario, options) for stage in crossed
    )


def rowsum(head, rows: range) -> np.ndarray:
    return head.attention.backward.rowsum(head.h)[rows.start : rows.stop]


STAGES: tuple[Stage, ...] = (
    step(
        LOSS,
        "dO",
        OUT,
        (PREVIOUS,),
        _d_output_heading,
        lambda w: w.attention.backward.d_output()[
            w.rows.start : w.rows.stop, w.cols.start : w.cols.stop
        ],
        to_scores.d_output,
        changes="every input changes the output, so every edit changes dO",
        per_head=False,
        turned_on=TurnedOn(keys=reader.KEYS, read=reader.read),
    ),
    step(
        "d_head_output",
        "dO per head",
        VALUES,
        ("d_output", "Wo"),
        _d_head_output_heading,
        lambda w: w.attention.backward.d_head_output(w.head)[
            w.rows.start : w.rows.stop, w.cols.start : w.cols.stop
        ],
        to_scores.d_head_output,
        applies=lambda scenario: has_loss(scenario) and scenario.multi_head,
        changes="as dO",
    ),
    step(
        "d_values",
        "dV",
        VALUES,
        ("d_head_output", "d_output", "softmax"),
        lambda scenario, options: "dV = Pᵀ·dO (row = key)",
        of_head("dV"),
        to_scores.d_values,
        rows=KEYS,
    ),
    step(
        "d_weights",
        "dP",
        KEYS,
        ("d_head_output", "d_output", "V"),
        lambda scenario, options: "dP = dO·Vᵀ (row = query, column = key)",
        lambda w: w.attention.backward.d_weights(w.head, w.rows, w.cols),
        to_scores.d_weights,
    ),
    step(
        "d_scores",
        "dS",
        KEYS,
        ("d_weights", "softmax", "weighted_sum"),
        lambda scenario, options: "dS = P ∘ (dP − D), D = rowsum(dO ∘ O)",
        lambda w: w.attention.backward.d_scores(w.head, w.rows, w.cols, w.keep),
        to_scores.d_scores,
        extras=(Extra("D", rowsum, per_row=True),),
    ),
    step(
        "d_raw_scores",
        "dScores",
        KEYS,
        ("d_scores",),  # (what it crosses is upstream of dS)
        _d_raw_scores_heading,
        lambda w: w.attention.backward.d_raw_scores(w.head, w.rows, w.cols, w.keep),
        to_inputs.d_raw_scores,
        in_json=False,  # (d_scores times each derivative on the way: a third T × T matrix)
    ),
    step(
        "d_queries",
        "dQ",
        DIMS,
        ("d_raw_scores", "K"),
        lambda scenario, options: f"dQ = dScores·K{_turned(scenario)}",
        of_head("dQ"),
        to_inputs.d_queries,
    ),
    step(
        "d_keys",
        "dK",
        DIMS,
        ("d_raw_scores", "Q"),
        lambda scenario, options: f"dK = dScoresᵀ·Q (row = key){_turned(scenario)}",
        of_head("dK"),
        to_inputs.d_keys,
        rows=KEYS,
    ),
    step(
        "d_inputs",
        "dX",
        MODEL,
        ("d_queries", "d_keys", "d_values"),
        lambda scenario, options: "dX = dQ·Wqᵀ + dK·Wkᵀ + dV·Wvᵀ",
        lambda w: w.attention.backward.inputs()["X"][
            w.rows.start : w.rows.stop, w.cols.start : w.cols.stop
        ],
        to_inputs.d_inputs,
        applies=lambda scenario: (
            has_loss(scenario) and "X" in scenario.inputs and not scenario.cross
        ),
        per_head=False,
        predictable=False,
    ),
)
