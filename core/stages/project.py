"""Step: Project — mix the heads back together: ``output = concat·Wo (+ bo)``."""

from __future__ import annotations

from attn_tui.core.numbers import fixed
from attn_tui.core.stages import OUT, Stage


def heading(scenario, options) -> str:
    bias = " + bo" if "bo" in scenario.inputs else ""
    return f"output = concat·Wo{bias}"


def values(attention, h, rows, cols):
    return attention.projected(rows)[:, cols.start:cols.stop]


def explain(w) -> str:
    a, p = w.attention, w.p
    rows = range(w.row, w.row + 1)
    if a.empty(rows)[0]:
        w.add((f"{w.query_quoted} has nothing to attend to: no heads' outputs, so no output.", "masked"))
        return f"mix {w.query_quoted}'s heads into one output"
    concat = a.concat(rows)[0]
    output = a.projected(rows)[0]
    Wo = a.scenario.inputs["Wo"]
    bias = a.scenario.inputs["bo"][0] if "bo" in a.scenario.inputs else None
    wo_dec = a.decimals("Wo", 0)
    column = w.col if w.col is not None and w.col < len(output) else 0
    w.add((f"concat of {w.query_quoted} = ", ""), (w.vector(concat, p), "number"))
    terms = w.fold_lazy(len(concat), lambda m: f"{fixed(concat[m], p)} × {fixed(Wo[m, column], wo_dec, True)}", " + ")
    extra = f" + {fixed(bias[column], p)}" if bias is not None else ""
    w.add((f"o{column + 1} = ", ""), (terms + extra, "number"), (" = ", ""),
          (fixed(output[column], p), "result"), selected=True)
    w.add(("output: ", ""), (w.vector(output, p), "result"))
    by_hand = sum(round(float(concat[m]), p) * round(float(Wo[m, column]), wo_dec) for m in range(len(concat)))
    by_hand += round(float(bias[column]), p) if bias is not None else 0.0
    if len(concat) <= 64 and round(by_hand, p) != round(float(output[column]), p):
        w.note(f"Multiplied out by hand, the rounded numbers give {fixed(by_hand, p)}: o{column + 1} is "
               f"computed from the exact values, then rounded to {p} decimals.")
    w.note("Wo mixes what the heads found: every output number reads every head's numbers, "
           "weighted by one column of Wo.")
    return f"mix {w.query_quoted}'s heads into one output"


STAGE = Stage(
    name="project", title="Project", key="projected", reads=("concat", "Wo"),
    changes="a concat row changes that output row; a Wo cell changes one output column",
    columns=OUT, palette="diverging", heading=heading, values=values, explain=explain,
    applies=lambda scenario: "Wo" in scenario.inputs, per_head=False)
