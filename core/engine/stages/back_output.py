"""Backward step: dO — how the loss changes with each number of the layer's output, and, with
several heads or Wo, with each head's own output. The scenario's ``loss:`` turns the backward
pass on (its keys are read by ``core.reading.loss``)."""

from __future__ import annotations

import numpy as np

from attn_tui.core.engine.stages import OUT, PREVIOUS, VALUES, Stage
from attn_tui.core.engine.stages.contract import OF_THE_BACKWARD, OF_THE_BACKWARD_PASS
from attn_tui.core.numbers import fixed
from attn_tui.core.reading import loss as reader


def loss(scenario):
    """The scenario's ``loss:`` (a ``core.reading.loss.LossSetting``, with its ``train:``), or None:
    what turns the backward pass on. Every other module asks here, not for the setting's name."""
    return scenario.stage_settings.get(STAGE.name)


def has_loss(scenario) -> bool:
    return loss(scenario) is not None


def heading(scenario, options) -> str:
    if loss(scenario).target is None:
        return "dL/d output, as the scenario gives it"
    return "dL/d output = output − target, for L = ½·Σ(output − target)²"


def compute(w) -> np.ndarray:
    return w.attention.backward.d_output()[w.rows.start : w.rows.stop, w.cols.start : w.cols.stop]


def explain(w) -> str:
    back, i, p = w.attention.backward, w.row, w.p
    setting = loss(w.scenario)
    d_row = w.r.own
    if setting.target is None:
        w.add(
            ("the scenario gives dL/d output; for ", ""),
            (w.query_quoted, "token"),
            (": ", ""),
            (w.vector(d_row, p, True), "result"),
        )
        w.note(
            "Everything below follows from this one matrix: no loss is computed, only passed back."
        )
        return f"the gradient that arrives at {w.query_quoted}'s output"
    output, target = back.final_output()[i], setting.target[i]
    w.add((f"output of {w.query_quoted} = ", ""), (w.vector(output, p, True), "number"))
    w.add((f"target of {w.query_quoted} = ", ""), (w.vector(target, p, True), "number"))
    column = w.col if w.col is not None and w.col < len(d_row) else None
    if column is not None:
        subtrahend = fixed(target[column], p, True)
        subtrahend = f"({subtrahend})" if target[column] < 0 else subtrahend
        w.add(
            (f"dO[{column + 1}] = {fixed(output[column], p, True)} − {subtrahend} = ", ""),
            (fixed(d_row[column], p, True), "result"),
            selected=True,
        )
    w.add(("dO = output − target = ", ""), (w.vector(d_row, p, True), "result"))
    part = 0.5 * float(np.sum(d_row**2))
    w.add(
        ("this row's part of L: ½·‖dO‖² = ", ""),
        (fixed(part, p, True), "number"),
        ("   L over every row = ", ""),
        (fixed(back.loss(), p, True), "result"),
    )
    w.note(
        "L = ½·Σ(output − target)², so dL/d output is simply how far the output is from its target."
    )
    return f"how far is {w.query_quoted}'s output from its target?"


STAGE = Stage(
    name="d_output",
    title="dO",
    key="d_output",
    reads=(PREVIOUS,),
    changes="every input changes the output, so every edit changes dO",
    columns=OUT,
    palette="diverging",
    heading=heading,
    compute=compute,
    explain=explain,
    applies=has_loss,
    per_head=False,
    row_wide=True,
    backward=True,
    scenario_keys=reader.KEYS,
    read=reader.read,
    gradient=OF_THE_BACKWARD_PASS,
    score_range=OF_THE_BACKWARD,
)


def head_heading(scenario, options) -> str:
    if "Wo" in scenario.inputs:
        return "dO of each head: its columns of dO·Woᵀ"
    return "dO of each head: its columns of dO"


def head_compute(w) -> np.ndarray:
    return w.attention.backward.d_head_output(w.head)[
        w.rows.start : w.rows.stop, w.cols.start : w.cols.stop
    ]


def head_explain(w) -> str:
    a, p, i, h = w.attention, w.p, w.row, w.h
    back = a.backward
    d_v = a.scenario.d_v
    d_final = back.d_output()[i]
    own = w.r.own
    first = h * d_v
    if "Wo" in a.scenario.inputs:
        Wo = a.scenario.inputs["Wo"]
        w.add((f"dO of {w.query_quoted} (after Wo) = ", ""), (w.vector(d_final, p, True), "number"))
        for c in range(len(own)):
            m = first + c
            terms = w.fold_lazy(
                len(d_final),
                lambda o, m=m: f"({fixed(d_final[o], p, True)} × {fixed(Wo[m, o], p, True)})",
                " + ",
            )
            w.add(
                (f"dconcat[{m + 1}] = dO · row {m + 1} of Wo = ", ""),
                (terms, "number"),
                (" = ", ""),
                (fixed(own[c], p, True), "result"),
                selected=w.col == c,
            )
        w.note(
            "Wo's gradient is concatᵀ·dO and bo's the sum of dO's rows: each weight moves by what "
            "it multiplied."
        )
    else:
        w.add(("dO of every head side by side: ", ""), (w.vector(d_final, p, True), "number"))
    w.add(
        (f"{a.scenario.head_names[h]}'s columns {first + 1}…{first + d_v}: dO = ", ""),
        (w.vector(own, p, True), "result"),
    )
    return f"the part of {w.query_quoted}'s gradient that reaches this head"


HEAD_STAGE = Stage(
    name="d_head_output",
    title="dO per head",
    key="d_head_output",
    reads=("d_output", "Wo"),
    changes="as dO",
    columns=VALUES,
    palette="diverging",
    heading=head_heading,
    compute=head_compute,
    explain=head_explain,
    applies=lambda scenario: has_loss(scenario) and scenario.multi_head,
    row_wide=True,
    backward=True,
    gradient=OF_THE_BACKWARD_PASS,
    score_range=OF_THE_BACKWARD,
)
