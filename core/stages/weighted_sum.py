"""Step: Weighted sum — blend the value vectors by the weights: ``output = weights·V``."""

from __future__ import annotations

import numpy as np

from attn_tui.core.numbers import fixed
from attn_tui.core.stages import VALUES, Stage


def heading(scenario, options) -> str:
    return "output = weights·V"


def values(attention, h, rows, cols):
    return attention.head(h).output(rows, cols)


def explain(w) -> str:
    r, p = w.r, w.p
    title = "blend the values by the weights"
    if r.empty:
        w.add((f"{w.query_quoted} has nothing to attend to: no weights, so no blend of values.",
               "masked"))
        return title
    V = r.head.V
    v_dec = w.attention.decimals("V", w.h)
    weights = r.weights
    symbolic = w.fold_lazy(len(weights), lambda k: f"{fixed(weights[k], p)} × v{k + 1}", " + ")
    w.add((f"output for {w.query_quoted} = ", ""), (symbolic, "number"))
    terms = w.fold_lazy(len(weights), lambda k: f"{fixed(weights[k], p)} × "
                                                f"{w.vector(V[k], v_dec, True, nested=True)}", " + ")
    w.add((terms, "number"), (" = ", ""), (w.vector(r.output, p), "result"))
    products = w.fold_lazy(len(weights), lambda k: w.vector(weights[k] * V[k], p, nested=True), " + ")
    w.add(("  terms: ", "note"), (products, "number"))
    if len(weights) <= 64 and (np.round(np.round(weights[:, None] * V, p).sum(axis=0), p) != np.round(r.output, p)).any():
        w.note(f"Added by hand, the rounded terms can miss the last decimal: the output is computed "
               f"from the exact weights, then rounded to {p} decimals.")
    w.note(f"The new representation of {w.query_quoted} is {w.vector(r.output, p)}: "
           "a blend of the values, weighted by relevance.")
    w.weight_bars()
    return title


STAGE = Stage(
    name="output", title="Weighted sum", key="output", reads=("softmax", "V"),
    changes="a changed weight row changes that output row; a V cell changes every output row "
            "that gives its key weight",
    columns=VALUES, palette="diverging", heading=heading, values=values, explain=explain)
