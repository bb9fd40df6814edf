"""Step: Concat — put every head's output for a token side by side, head 1 first."""

from __future__ import annotations

import numpy as np

from attn_tui.core.engine.stages import CONCAT, PREVIOUS, Arithmetic, Display, Stage
from attn_tui.core.engine.stages.contract import AFTER_THE_MASK, GradientSteps
from attn_tui.core.text import visible


def heading(scenario, options) -> str:
    return f"{scenario.heads} heads × d_v = {scenario.d_v} side by side"


def compute(w) -> np.ndarray:
    """Every head's output rows (the stage before this one), side by side."""
    prior, width = w.attention.previous(STAGE.name), w.scenario.d_v
    return np.hstack([w.read(prior, range(width), head=h) for h in range(w.scenario.heads)])[
        :, w.cols.start : w.cols.stop
    ]


def explain(w) -> str:
    a, p = w.attention, w.p
    rows = range(w.row, w.row + 1)
    width = w.scenario.d_v
    parts = []
    if w.r.empty:  # the masks are the heads' own, the same for every head
        w.add(
            (
                f"{w.query_quoted} has nothing to attend to "
                "in any head: no outputs to put side by side.",
                "masked",
            )
        )
        return f"put {w.query_quoted}'s heads side by side"
    prior = w.previous_name
    for h in range(w.scenario.heads):
        output = a.values(prior, h, rows, range(width))[0]
        w.add(
            (f"{visible(w.scenario.head_names[h])}: ", "token"),
            (w.vector(output, p), "number"),
            (f"   columns h{h + 1}·d1 … h{h + 1}·d{width}", "note"),
            selected=w.col is not None and w.col // width == h,
        )
        parts.append(f"h{h + 1}")
    concat = w.r.own
    w.add(("concat = [" + " | ".join(parts) + "] = ", ""), (w.vector(concat, p), "result"))
    w.note(
        f"Each head looked at the sentence its own way; the {a.scenario.heads} results of "
        f"{w.query_quoted} travel on together, {len(concat)} numbers in all."
    )
    return f"put {w.query_quoted}'s heads side by side"


STAGE = Stage(
    name="concat",
    title="Concat",
    key="concat",
    arithmetic=Arithmetic(
        compute=compute,
        reads=(PREVIOUS,),
        columns=CONCAT,
        per_head=False,
        empty_rows=True,
    ),
    display=Display(
        heading=heading,
        explain=explain,
        palette="diverging",
        changes="a head's output row changes its part of that row",
    ),
    gradient=GradientSteps(("d_head_output",)),
    score_range=AFTER_THE_MASK,
    applies=lambda scenario: scenario.multi_head,
)
