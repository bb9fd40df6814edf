"""Step: Score — how well does each query match each key? ``scores = Q·Kᵀ``."""

from __future__ import annotations

import numpy as np

from attn_tui.core.engine.stages import KEYS, Arithmetic, Display, Stage, Teaching
from attn_tui.core.engine.stages.contract import GradientSteps, Outside
from attn_tui.core.numbers import fixed, fixed_row


def decimals(attention, h: int) -> int:
    """Decimals that show every score exactly as far as ``precision`` allows: a product of
    numbers with a and b decimals has at most a + b, and so has a sum of them (the chapter's
    integer Q and K give integer scores: 1, 1, 2)."""
    return min(
        attention.scenario.precision, attention.decimals("Q", h) + attention.decimals("K", h)
    )


def heading(scenario, options) -> str:
    return "Q·Kᵀ (row = query, column = key)"


def compute(w) -> np.ndarray:
    """A block of query rows against every key: one matrix product."""
    with np.errstate(over="ignore", invalid="ignore"):
        return w.input("Q")[w.rows.start : w.rows.stop] @ w.input("K")[w.cols.start : w.cols.stop].T


def explain(w) -> str:
    r, i = w.r, w.row
    q_dec, k_dec = w.attention.decimals("Q", w.h), w.attention.decimals("K", w.h)
    s_dec = w.decimals()
    q, K = w.attention.inputs.Q(w.h)[i], w.attention.inputs.K(w.h)
    scores = r.own
    q_texts = fixed_row(q, q_dec, tiny=True)  # (once, not once per key)
    w.add(
        ("q", ""),
        (f"{i + 1} = ", ""),
        (w.vector(q, q_dec, True), "number"),
        ("   the query of ", ""),
        (w.query_quoted, "token"),
    )
    if w.scenario.rope is None:  # (with RoPE, the Rotate step says where q came from)
        w.projected_query()
    for k in w.keys():
        if isinstance(k, str):
            w.note(k)
            continue
        terms = w.fold_lazy(
            len(q), lambda c, k=k: f"({q_texts[c]} × {fixed(K[k, c], k_dec, True)})", " + "
        )
        relation = (
            f"{w.query_quoted} to itself" if w.is_self(k) else f"{w.quoted(k)} to {w.query_quoted}"
        )
        w.add(
            (f"q{i + 1} · k{k + 1} = ", ""),
            (terms, "number"),
            (" = ", ""),
            (fixed(scores[k], s_dec, True), "result"),
            (f"    how relevant is {relation}?", "note"),
            selected=k == w.col,
        )
    w.add(("raw scores: ", ""), (w.vector(scores, s_dec, True), "result"))
    return f"how well does {w.query_quoted} match each key?"


STAGE = Stage(
    name="score",
    title="Score",
    key="scores",
    arithmetic=Arithmetic(
        compute=compute,
        reads=("Q", "K", "rotate"),
        columns=KEYS,
        whole_rows=True,
    ),
    display=Display(
        heading=heading,
        explain=explain,
        palette="diverging",
        changes="a Q row changes that row; a K row changes that column",
        decimals=decimals,
    ),
    teaching=Teaching(
        key_a_noun=True,
    ),
    gradient=GradientSteps(("d_queries", "d_keys")),
    score_range=Outside("it makes the scores: |q·k| ≤ ‖q‖·‖k‖, the bound the checks start from"),
)
