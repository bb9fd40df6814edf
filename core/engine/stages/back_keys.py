"""Backward step: dK = dL/d(Q·Kᵀ)ᵀ·Q — a key moves toward the queries that should match it
more. One row per key; heads that share a key (GQA) add their dK."""

from __future__ import annotations

import numpy as np

from attn_tui.core.engine.stages import DIMS, KEYS, Stage
from attn_tui.core.engine.stages.back_output import has_loss
from attn_tui.core.engine.stages.contract import OF_THE_BACKWARD, OF_THE_BACKWARD_PASS
from attn_tui.core.numbers import fixed


def heading(scenario, options) -> str:
    turned = ", turned back by RoPE" if scenario.rope is not None else ""
    return f"dK = dScoresᵀ·Q (row = key){turned}"


def compute(w) -> np.ndarray:
    return w.attention.backward.head(w.head)["dK"][
        w.rows.start : w.rows.stop, w.cols.start : w.cols.stop
    ]


def explain(w) -> str:
    a, p, j, h = w.attention, w.p, w.row, w.h
    back = a.backward
    label = w.keys_labels[j]
    raw = back.d_raw_scores(h, range(a.T), range(j, j + 1))[:, 0]
    Q = a.inputs.Q(h)
    for i in w.fold_around(a.T, j, "query"):
        if isinstance(i, str):
            w.note(i)
            continue
        w.add(
            (f"  dScore[{w.query_labels[i]}, {label}] × q{i + 1} = ", "token"),
            (f"{fixed(raw[i], p, True)} × {w.vector(Q[i], p, True, nested=True)}", "number"),
        )
    if a.scenario.rope is not None:
        w.add(
            ("Σ = dK as RoPE left it: ", ""),
            (w.vector(back.head(h)["dK_turned"][j], p, True), "number"),
        )
        w.note("RoPE turned k by its position's angle; its gradient turns back by the same angle.")
    w.add((f"dk{j + 1} = ", ""), (w.vector(w.r.own, p, True), "result"))
    if a.scenario.heads != a.scenario.kv_heads:
        w.note(
            f"Heads share this K (grouped-query attention): dL/dK adds up the "
            f"{a.scenario.heads // a.scenario.kv_heads} heads' dK."
        )
    return f'how the loss changes with "{label}"\'s key'


STAGE = Stage(
    name="d_keys",
    title="dK",
    key="d_keys",
    reads=("d_raw_scores", "Q"),
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
    rows=KEYS,
)
