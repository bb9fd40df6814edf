"""Backward step: dQ = dL/d(Q·Kᵀ)·K — a query moves toward the keys whose scores should rise
(and, under RoPE, the gradient is turned back by the query's angle)."""

from __future__ import annotations

import numpy as np

from attn_tui.core.engine.stages import DIMS, Stage
from attn_tui.core.engine.stages.back_output import has_loss
from attn_tui.core.engine.stages.contract import OF_THE_BACKWARD, OF_THE_BACKWARD_PASS
from attn_tui.core.numbers import fixed


def heading(scenario, options) -> str:
    turned = ", turned back by RoPE" if scenario.rope is not None else ""
    return f"dQ = dScores·K{turned}"


def compute(w) -> np.ndarray:
    return w.attention.backward.head(w.head)["dQ"][
        w.rows.start : w.rows.stop, w.cols.start : w.cols.stop
    ]


def explain(w) -> str:
    a, p, i, h = w.attention, w.p, w.row, w.h
    back = a.backward
    raw = back.d_raw_scores(h, range(i, i + 1), range(a.scenario.T_k))[0]
    K = a.inputs.K(h)
    for k in w.keys():
        if isinstance(k, str):
            w.note(k)
            continue
        w.add(
            (f"  dScore[{w.query}, {w.keys_labels[k]}] × k{k + 1} = ", "token"),
            (f"{fixed(raw[k], p, True)} × {w.vector(K[k], p, True, nested=True)}", "number"),
        )
    found = back.head(h)
    if a.scenario.rope is not None:
        w.add(
            ("Σ = dQ as RoPE left it: ", ""), (w.vector(found["dQ_turned"][i], p, True), "number")
        )
        w.note(
            "RoPE turned q by its position's angle; its "
            "gradient turns back by the same angle (Rᵀ = R⁻¹)."
        )
    w.add((f"dq{i + 1} = ", ""), (w.vector(w.r.own, p, True), "result"))
    if a.scenario.kind == "projection":
        w.note("With projections, dWq = Xᵀ·dQ and dQ·Wqᵀ flows on into dX.")
    return f"how the loss changes with {w.query_quoted}'s query"


STAGE = Stage(
    name="d_queries",
    title="dQ",
    key="d_queries",
    reads=("d_raw_scores", "K"),
    changes="every edit changes it",
    columns=DIMS,
    palette="diverging",
    heading=heading,
    compute=compute,
    explain=explain,
    applies=lambda scenario: has_loss(scenario),
    row_wide=True,
    backward=True,
    gradient=OF_THE_BACKWARD_PASS,
    score_range=OF_THE_BACKWARD,
)
