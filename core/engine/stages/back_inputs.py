"""Backward step: dX — each token's embedding gets the gradient of its query, key and value
through the projections: dX = dQ·Wqᵀ + dK·Wkᵀ + dV·Wvᵀ (every head's), and each W gets Xᵀ·dQ
(dK, dV)."""

from __future__ import annotations

import numpy as np

from attn_tui.core.engine.stages import MODEL, Stage
from attn_tui.core.engine.stages.back_output import has_loss
from attn_tui.core.engine.stages.contract import OF_THE_BACKWARD, OF_THE_BACKWARD_PASS
from attn_tui.core.numbers import fixed


def heading(scenario, options) -> str:
    return "dX = dQ·Wqᵀ + dK·Wkᵀ + dV·Wvᵀ"


def compute(w) -> np.ndarray:
    return w.attention.backward.inputs()["X"][
        w.rows.start : w.rows.stop, w.cols.start : w.cols.stop
    ]


def explain(w) -> str:
    a, p, i = w.attention, w.p, w.row
    back = a.backward
    found = back.inputs()
    scenario = a.scenario
    group = scenario.heads // scenario.kv_heads
    parts = {
        "Wq": sum(
            back.head(h)["dQ"][i]
            @ scenario.inputs["Wq"][:, h * scenario.d_k : (h + 1) * scenario.d_k].T
            for h in range(scenario.heads)
        )
    }
    for name, kind, width in (("Wk", "dK", scenario.d_k), ("Wv", "dV", scenario.d_v)):
        parts[name] = sum(
            sum(back.head(h)[kind][i] for h in range(g * group, (g + 1) * group))
            @ scenario.inputs[name][:, g * width : (g + 1) * width].T
            for g in range(scenario.kv_heads)
        )
    for name, letter in (("Wq", "Q"), ("Wk", "K"), ("Wv", "V")):
        w.add((f"  d{letter}·{name}ᵀ = ", ""), (w.vector(parts[name], p, True), "number"))
    w.add((f"dx{i + 1} = ", ""), (w.vector(w.r.own, p, True), "result"))
    sizes = ", ".join(
        f"‖d{name}‖ = {fixed(float(np.linalg.norm(found[name])), p, True)}"
        for name in ("Wq", "Wk", "Wv", "Wo", "bo")
        if name in found
    )
    w.note(f"The weights' gradients (--json has them whole): {sizes}.")
    return f"how the loss changes with {w.query_quoted}'s embedding"


STAGE = Stage(
    name="d_inputs",
    title="dX",
    key="d_inputs",
    reads=("d_queries", "d_keys", "d_values"),
    changes="every edit changes it",
    columns=MODEL,
    palette="diverging",
    heading=heading,
    compute=compute,
    explain=explain,
    per_head=False,
    row_wide=True,
    backward=True,
    gradient=OF_THE_BACKWARD_PASS,
    score_range=OF_THE_BACKWARD,
    predictable=False,
    applies=lambda scenario: has_loss(scenario) and "X" in scenario.inputs and not scenario.cross,
)
