"""Backward step: dV = Pᵀ·dO — each value vector moves by the gradients of the outputs it was
blended into, weighted as it was blended. One row per key."""

from __future__ import annotations

import numpy as np

from attn_tui.core.engine.stages import KEYS, VALUES, Stage
from attn_tui.core.engine.stages.back_output import has_loss
from attn_tui.core.engine.stages.contract import OF_THE_BACKWARD, OF_THE_BACKWARD_PASS
from attn_tui.core.numbers import fixed


def heading(scenario, options) -> str:
    return "dV = Pᵀ·dO (row = key)"


def compute(w) -> np.ndarray:
    return w.attention.backward.head(w.head)["dV"][
        w.rows.start : w.rows.stop, w.cols.start : w.cols.stop
    ]


def explain(w) -> str:
    a, p, j, h = w.attention, w.p, w.row, w.h
    back = a.backward
    label = w.keys_labels[j]
    P = back.weights(h, range(a.T), range(j, j + 1))[:, 0]
    dO = back.d_head_output(h)
    queries = w.fold_around(a.T, j, "query")
    for i in queries:
        if isinstance(i, str):
            w.note(i)
            continue
        w.add(
            (f"  P[{w.query_labels[i]}, {label}] × dO of {w.query_labels[i]} = ", "token"),
            (f"{fixed(P[i], p, tiny=False)} × {w.vector(dO[i], p, True, nested=True)}", "number"),
        )
    w.add((f"dv{j + 1} = Σ over queries = ", ""), (w.vector(w.r.own, p, True), "result"))
    if a.scenario.heads != a.scenario.kv_heads:
        w.note(
            f"Heads share this V (grouped-query attention): dL/dV adds up the "
            f"{a.scenario.heads // a.scenario.kv_heads} heads' dV."
        )
    w.note(
        f'A value nobody attends to gets no gradient: "{label}" moves only as much as it was used.'
    )
    return f'how the loss changes with "{label}"\'s value vector'


STAGE = Stage(
    name="d_values",
    title="dV",
    key="d_values",
    reads=("d_head_output", "d_output", "softmax"),
    changes="every edit changes it",
    columns=VALUES,
    palette="diverging",
    heading=heading,
    compute=compute,
    explain=explain,
    applies=lambda scenario: has_loss(scenario),
    row_wide=True,
    backward=True,
    gradient=OF_THE_BACKWARD_PASS,
    score_range=OF_THE_BACKWARD,
    rows=KEYS,
)
