"""Step: Project — mix the heads back together: ``output = concat·Wo (+ bo)``."""

from __future__ import annotations

import numpy as np

from attn_tui.core.engine.stages import OUT, PREVIOUS, Arithmetic, Display, Stage
from attn_tui.core.engine.stages.contract import AFTER_THE_MASK, GradientSteps
from attn_tui.core.numbers import fixed


def heading(scenario, options) -> str:
    bias = " + bo" if "bo" in scenario.inputs else ""
    return f"output = concat·Wo{bias}"


def compute(w) -> np.ndarray:
    """A block of rows: the heads side by side (every column) times Wo, plus bo."""
    concat = w.previous(range(w.scenario.heads * w.scenario.d_v))
    with np.errstate(over="ignore", invalid="ignore"):
        out = concat @ w.input("Wo")[:, w.cols.start : w.cols.stop]
        if "bo" in w.scenario.inputs:
            out = out + w.input("bo")[0, w.cols.start : w.cols.stop]
    return out


def explain(w) -> str:
    a, p = w.attention, w.p
    if w.r.empty:
        w.add(
            (
                f"{w.query_quoted} has nothing to attend to: no heads' outputs, so no output.",
                "masked",
            )
        )
        return f"mix {w.query_quoted}'s heads into one output"
    concat, output = w.r.previous, w.r.own
    Wo = a.scenario.inputs["Wo"]
    bias = a.scenario.inputs["bo"][0] if "bo" in a.scenario.inputs else None
    wo_dec = a.decimals("Wo", 0)
    column = w.col if w.col is not None and w.col < len(output) else 0
    w.add((f"concat of {w.query_quoted} = ", ""), (w.vector(concat, p), "number"))
    terms = w.fold_lazy(
        len(concat),
        lambda m: f"{fixed(concat[m], p)} × {fixed(Wo[m, column], wo_dec, True)}",
        " + ",
    )
    extra = f" + {fixed(bias[column], p)}" if bias is not None else ""
    w.add(
        (f"o{column + 1} = ", ""),
        (terms + extra, "number"),
        (" = ", ""),
        (fixed(output[column], p), "result"),
        selected=True,
    )
    w.add(("output: ", ""), (w.vector(output, p), "result"))
    by_hand = sum(
        round(float(concat[m]), p) * round(float(Wo[m, column]), wo_dec) for m in range(len(concat))
    )
    by_hand += round(float(bias[column]), p) if bias is not None else 0.0
    if len(concat) <= 64 and round(by_hand, p) != round(float(output[column]), p):
        w.note(
            f"Multiplied out by hand, the rounded numbers give {fixed(by_hand, p)}: "
            f"o{column + 1} is computed from the exact values, then rounded to {p} decimals."
        )
    w.note(
        "Wo mixes what the heads found: every output number reads every head's numbers, "
        "weighted by one column of Wo."
    )
    return f"mix {w.query_quoted}'s heads into one output"


STAGE = Stage(
    name="project",
    title="Project",
    key="projected",
    arithmetic=Arithmetic(
        compute=compute,
        reads=(PREVIOUS, "Wo", "bo"),
        columns=OUT,
        per_head=False,
        whole_rows=True,
        row_wide=True,
        empty_rows=True,
    ),
    display=Display(
        heading=heading,
        explain=explain,
        palette="diverging",
        changes="a concat row changes that output row; a Wo cell changes one output column",
    ),
    gradient=GradientSteps(("d_head_output",)),
    score_range=AFTER_THE_MASK,
    applies=lambda scenario: "Wo" in scenario.inputs,
)
