"""What the Why pane says of each backward step from the layer's output back to the scores
(dO, each head's dO, dV, dP, and softmax's backward dS): the arithmetic of one row, with its
numbers. The steps themselves are the rows of ``core.engine.stages.backward_steps``."""

from __future__ import annotations

import numpy as np

from attn_tui.core.numbers import fixed
from attn_tui.core.text import fit

JACOBIAN_UP_TO = 8  # keys: the row's Jacobian is written out whole up to this many
PEAKY = 0.99  # a largest weight above this is "one-hot" in the Why pane's words


def d_output(w) -> str:
    from attn_tui.core.engine.stages.backward_steps import loss

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


def d_head_output(w) -> str:
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


def d_values(w) -> str:
    a, p, j, h = w.attention, w.p, w.row, w.h
    back = a.backward
    label = w.keys_labels[j]
    P = back.weights(h, range(a.T), range(j, j + 1))[:, 0]
    dO = back.d_head_output(h)
    queries = w.fold_around(a.T, j, "query")
    for i in queries:
        if isinstance(i, str):
            w.note(i)
            continue
        w.add(
            (f"  P[{w.query_labels[i]}, {label}] × dO of {w.query_labels[i]} = ", "token"),
            (f"{fixed(P[i], p, tiny=False)} × {w.vector(dO[i], p, True, nested=True)}", "number"),
        )
    w.add((f"dv{j + 1} = Σ over queries = ", ""), (w.vector(w.r.own, p, True), "result"))
    if a.scenario.heads != a.scenario.kv_heads:
        w.note(
            f"Heads share this V (grouped-query attention): dL/dV adds up the "
            f"{a.scenario.heads // a.scenario.kv_heads} heads' dV."
        )
    w.note(
        f'A value nobody attends to gets no gradient: "{label}" moves only as much as it was used.'
    )
    return f'how the loss changes with "{label}"\'s value vector'


def d_weights(w) -> str:
    a, p, i, h = w.attention, w.p, w.row, w.h
    back = a.backward
    dO = back.d_head_output(h)[i]
    V = a.inputs.V(h)
    own = w.r.own
    w.add((f"dO of {w.query_quoted} = ", ""), (w.vector(dO, p, True), "number"))
    for k in w.keys():
        if isinstance(k, str):
            w.note(k)
            continue
        terms = w.fold_lazy(
            len(dO), lambda c, k=k: f"({fixed(dO[c], p, True)} × {fixed(V[k, c], p, True)})", " + "
        )
        w.add(
            (f"dP[{w.query}, {w.keys_labels[k]}] = dO · v{k + 1} = ", ""),
            (terms, "number"),
            (" = ", ""),
            (fixed(own[k], p, True), "result"),
            selected=k == w.col,
        )
    w.note(
        "More weight on a key whose value points along "
        "dO would raise the loss; against dO, lower it."
    )
    return f"how the loss changes with each of {w.query_quoted}'s weights"


def _operand(value: float, p: int) -> str:
    """A number after a minus sign: in parentheses when negative ("− (−2.204)", not "− −2.204")."""
    text = fixed(value, p, True)
    return f"({text})" if value < 0 else text


def d_scores(w) -> str:
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
