"""Backward step: softmax's backward, dS = P ∘ (dP − D) with D = rowsum(dO ∘ O).

Softmax's Jacobian is ∂p_j/∂s_k = p_j·(δ_jk − p_k): its diagonal p(1 − p) is what the seeds
warn of. Once one weight takes nearly all of a row (p ≈ 1, the rest ≈ 0), every p(1 − p) is
near 0 and so is every dS: no gradient reaches the scores, and Q and K stop learning."""

from __future__ import annotations

import numpy as np

from attn_tui.core.engine.stages import KEYS, Extra, Stage
from attn_tui.core.engine.stages.back_output import has_loss
from attn_tui.core.engine.stages.contract import OF_THE_BACKWARD, OF_THE_BACKWARD_PASS
from attn_tui.core.numbers import fixed
from attn_tui.core.text import fit

JACOBIAN_UP_TO = 8  # keys: the row's Jacobian is written out whole up to this many
PEAKY = 0.99  # a largest weight above this is "one-hot" in the Why pane's words


def heading(scenario, options) -> str:
    return "dS = P ∘ (dP − D), D = rowsum(dO ∘ O)"


def compute(w) -> np.ndarray:
    return w.attention.backward.d_scores(w.head, w.rows, w.cols, w.keep)


def _operand(value: float, p: int) -> str:
    """A number after a minus sign: in parentheses when negative ("− (−2.204)", not "− −2.204")."""
    text = fixed(value, p, True)
    return f"({text})" if value < 0 else text


def rowsum(head, rows: range) -> np.ndarray:
    return head.attention.backward.rowsum(head.h)[rows.start : rows.stop]


def explain(w) -> str:
    a, p, i, h = w.attention, w.p, w.row, w.h
    back = a.backward
    title = f"how the loss changes with each of {w.query_quoted}'s scores"
    if w.r.empty:
        w.add(
            (
                f"{w.query_quoted} sees no key: no weights, "
                "so no gradient reaches its scores (dS = 0).",
                "masked",
            )
        )
        return title
    keys = range(a.scenario.T_k)
    P = back.weights(h, range(i, i + 1), keys)[0]
    dP = back.d_weights(h, range(i, i + 1), keys)[0]
    D = float(back.rowsum(h)[i])
    own = w.r.own
    blocked = w.r.blocked
    dO, O = back.d_head_output(h)[i], back.head_output(h)[i]
    w.add(
        ("D = dO · o = ", ""),
        (
            w.fold_lazy(
                len(dO), lambda c: f"({fixed(dO[c], p, True)} × {fixed(O[c], p, True)})", " + "
            ),
            "number",
        ),
        (" = ", ""),
        (fixed(D, p, True), "result"),
        ("   (= Σ_j P_j·dP_j)", "note"),
    )
    for k in w.keys():
        if isinstance(k, str):
            w.note(k)
            continue
        if blocked[k]:
            w.add(
                (f"dS[{w.query}, {w.keys_labels[k]}] = ", ""),
                ("0  (masked: its score is a constant)", "masked"),
                selected=k == w.col,
            )
            continue
        w.add(
            (f"dS[{w.query}, {w.keys_labels[k]}] = P × (dP − D) = ", ""),
            (
                f"{fixed(P[k], p, tiny=False)} × ({fixed(dP[k], p, True)} − {_operand(D, p)})",
                "number",
            ),
            (" = ", ""),
            (fixed(own[k], p, True), "result"),
            selected=k == w.col,
        )
    visible = np.flatnonzero(~blocked)
    if len(visible) <= JACOBIAN_UP_TO:
        w.add(("softmax's Jacobian ∂p_j/∂s_k = p_j·(δ_jk − p_k), this row's visible keys:", ""))
        width = max(7, p + 4, *(len(w.keys_labels[k]) + 1 for k in visible))
        label = max(len(w.keys_labels[j]) for j in visible)
        w.add(
            (
                " " * (label + 3)
                + "".join(fit(w.keys_labels[k], width - 1).rjust(width) for k in visible),
                "token",
            )
        )
        for j in visible:
            cells = "".join(
                fixed(P[j] * ((j == k) - P[k]), p, tiny=False).rjust(width) for k in visible
            )  # (of weights)
            w.add((f"  {w.keys_labels[j]:>{label}} ", "token"), (cells, "number"))
    factors = P * (1 - P)
    w.add(
        ("p(1 − p) per key: ", ""), (w.vector(np.where(blocked, 0.0, factors), p, True), "number")
    )
    size = float(np.linalg.norm(own))
    largest = float(P.max())
    w.add(
        ("‖dS‖ of this row = ", ""),
        (fixed(size, p, True), "result"),
        (
            f"   largest weight {fixed(largest, p, tiny=False)}, "
            f"largest p(1 − p) {fixed(float(factors.max()), p, True)}",
            "note",
        ),
    )
    if largest > PEAKY:
        w.note(
            f"One weight holds {largest:.1%} of the row: every p(1 − p) is "
            "near 0, so almost no gradient reaches these scores — learning "
            "stalls, as the seeds warn (scaling by √d_k prevents it)."
        )
    else:
        w.note(
            "dS is dP minus the row's average dP (D), scaled by each weight: raising one score "
            "takes weight from all the others."
        )
    return title


STAGE = Stage(
    name="d_scores",
    title="dS",
    key="d_scores",
    reads=("d_weights", "softmax", "weighted_sum"),
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
    extras=(Extra("D", rowsum, per_row=True),),
)
