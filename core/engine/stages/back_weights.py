"""Backward step: dP = dO·Vᵀ — how the loss changes with each weight: a weight moves its
query's output toward its key's value, so its gradient is dO · v."""

from __future__ import annotations

import numpy as np

from attn_tui.core.engine.stages import KEYS, Stage
from attn_tui.core.engine.stages.back_output import has_loss
from attn_tui.core.engine.stages.contract import OF_THE_BACKWARD, OF_THE_BACKWARD_PASS
from attn_tui.core.numbers import fixed


def heading(scenario, options) -> str:
    return "dP = dO·Vᵀ (row = query, column = key)"


def compute(w) -> np.ndarray:
    return w.attention.backward.d_weights(w.head, w.rows, w.cols)


def explain(w) -> str:
    a, p, i, h = w.attention, w.p, w.row, w.h
    back = a.backward
    dO = back.d_head_output(h)[i]
    V = a.inputs.V(h)
    own = w.r.own
    w.add((f"dO of {w.query_quoted} = ", ""), (w.vector(dO, p, True), "number"))
    for k in w.keys():
        if isinstance(k, str):
            w.note(k)
            continue
        terms = w.fold_lazy(
            len(dO), lambda c, k=k: f"({fixed(dO[c], p, True)} × {fixed(V[k, c], p, True)})", " + "
        )
        w.add(
            (f"dP[{w.query}, {w.keys_labels[k]}] = dO · v{k + 1} = ", ""),
            (terms, "number"),
            (" = ", ""),
            (fixed(own[k], p, True), "result"),
            selected=k == w.col,
        )
    w.note(
        "More weight on a key whose value points along "
        "dO would raise the loss; against dO, lower it."
    )
    return f"how the loss changes with each of {w.query_quoted}'s weights"


STAGE = Stage(
    name="d_weights",
    title="dP",
    key="d_weights",
    reads=("d_head_output", "d_output", "V"),
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
)
