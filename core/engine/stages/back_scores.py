"""Backward step: back through each stage between the scores and the mask, by the ChainRule it
declares (each cell of the gradient times that stage's derivative there), to the raw scores Q·Kᵀ."""

from __future__ import annotations

import numpy as np

from attn_tui.core.engine.stages import KEYS, Stage
from attn_tui.core.engine.stages.back_output import has_loss
from attn_tui.core.engine.stages.contract import (
    OF_THE_BACKWARD,
    OF_THE_BACKWARD_PASS,
    between_scores_and_mask,
)
from attn_tui.core.numbers import fixed


def heading(scenario, options) -> str:
    from attn_tui.core.engine.stages import stages_for

    crossed = reversed(between_scores_and_mask(stages_for(scenario)))
    return "dL/d(Q·Kᵀ) = dS" + "".join(
        stage.gradient.heading(scenario, options) for stage in crossed
    )


def compute(w) -> np.ndarray:
    return w.attention.backward.d_raw_scores(w.head, w.rows, w.cols, w.keep)


def explain(w) -> str:
    a, p, i, h = w.attention, w.p, w.row, w.h
    back = a.backward
    keys = range(a.scenario.T_k)
    dS = back.d_scores(h, range(i, i + 1), keys)[0]
    crossed = back.derivatives(h, range(i, i + 1), keys)  # (stage, its derivative), in step order
    for stage, _ in crossed:
        said = stage.gradient.before(w)
        if said:
            w.note(said)
    for k in w.keys():
        if isinstance(k, str):
            w.note(k)
            continue
        factors = "".join(
            stage.gradient.factor(w, float(np.broadcast_to(derivative, (1, len(keys)))[0, k]))
            for stage, derivative in reversed(crossed)
        )
        w.add(
            (f"({w.query}, {w.keys_labels[k]}): ", "token"),
            (f"{fixed(dS[k], p, True)}{factors}", "number"),
            (" = ", ""),
            (fixed(w.r.own[k], p, True), "result"),
            selected=k == w.col,
        )
    for stage, _ in crossed:
        said = stage.gradient.after(w)
        if said:
            w.note(said)
    names = [f"the {stage.title.lower()}" for stage, _ in reversed(crossed)]
    through = " and ".join([", ".join(names[:-1]), names[-1]] if len(names) > 1 else names)
    return (
        f"back through {through} to {w.query_quoted}'s raw scores"
        if crossed
        else "the raw scores' gradient"
    )


STAGE = Stage(
    name="d_raw_scores",
    title="dScores",
    key="d_raw_scores",
    reads=("d_scores",),  # (what it crosses is upstream of dS)
    changes="every edit changes it",
    columns=KEYS,
    palette="diverging",
    heading=heading,
    compute=compute,
    explain=explain,
    applies=lambda scenario: has_loss(scenario),
    row_wide=True,
    backward=True,
    gradient=OF_THE_BACKWARD_PASS,
    score_range=OF_THE_BACKWARD,
    in_json=False,
)  # (d_scores times each derivative on the way: a third T × T matrix in --json)
