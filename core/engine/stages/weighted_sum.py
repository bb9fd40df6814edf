"""Step: Weighted sum — blend the value vectors by the weights: ``output = weights·V``."""

from __future__ import annotations

import numpy as np

from attn_tui.core.engine.stages import PREVIOUS, VALUES, Arithmetic, Display, Stage, Teaching
from attn_tui.core.engine.stages.contract import AFTER_THE_MASK, GradientSteps
from attn_tui.core.numbers import fixed


def heading(scenario, options) -> str:
    return "output = weights·V"


def compute(w) -> np.ndarray:
    """A block of rows: each row's weights (every key) times V."""
    weights = w.previous(range(w.scenario.T_k))
    # A weight below the smallest normal float64 (exp of a score far below the row's largest)
    # adds nothing an output can show, but subnormal operands make the matrix product 200×
    # slower; they are multiplied as 0 (the weights themselves are kept).
    normal = np.where(weights < np.finfo(np.float64).tiny, 0.0, weights)
    with np.errstate(over="ignore", invalid="ignore"):
        return normal @ w.input("V")[:, w.cols.start : w.cols.stop]


def explain(w) -> str:
    r, p = w.r, w.p
    title = "blend the values by the weights"
    if r.empty:
        w.add(
            (
                f"{w.query_quoted} has nothing to attend to: no weights, so no blend of values.",
                "masked",
            )
        )
        return title
    V = w.attention.inputs.V(w.h)
    v_dec = w.attention.decimals("V", w.h)
    weights, output = r.previous, r.own
    symbolic = w.fold_lazy(
        len(weights), lambda k: f"{fixed(weights[k], p, tiny=False)} × v{k + 1}", " + "
    )
    w.add((f"output for {w.query_quoted} = ", ""), (symbolic, "number"))
    terms = w.fold_lazy(
        len(weights),
        lambda k: (
            f"{fixed(weights[k], p, tiny=False)} × {w.vector(V[k], v_dec, True, nested=True)}"
        ),
        " + ",
    )
    w.add((terms, "number"), (" = ", ""), (w.vector(output, p), "result"))
    products = w.fold_lazy(
        len(weights), lambda k: w.vector(weights[k] * V[k], p, nested=True), " + "
    )
    w.add(("  terms: ", "note"), (products, "number"))
    if (
        len(weights) <= 64
        and (
            np.round(np.round(weights[:, None] * V, p).sum(axis=0), p) != np.round(output, p)
        ).any()
    ):
        w.note(
            f"Added by hand, the rounded terms can miss the last decimal: the output is computed "
            f"from the exact weights, then rounded to {p} decimals."
        )
    w.note(
        f"The new representation of {w.query_quoted} is {w.vector(output, p)}: "
        "a blend of the values, weighted by relevance."
    )
    w.weight_bars(weights)
    return title


STAGE = Stage(
    name="weighted_sum",
    title="Weighted sum",
    key="output",
    arithmetic=Arithmetic(
        compute=compute,
        reads=(PREVIOUS, "V"),
        columns=VALUES,
        whole_rows=True,
        row_wide=True,
        empty_rows=True,
    ),
    display=Display(
        heading=heading,
        explain=explain,
        palette="diverging",
        changes="a changed weight row changes that output row; a V cell changes every output row "
        "that gives its key weight",
    ),
    teaching=Teaching(
        key_a_noun=True,
    ),
    gradient=GradientSteps(("d_weights", "d_values")),
    score_range=AFTER_THE_MASK,
)
