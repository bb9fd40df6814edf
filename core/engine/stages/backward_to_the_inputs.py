"""What the Why pane says of each backward step from the scores back to the inputs (back
through the stages between the scores and the mask, dQ, dK, and dX): the arithmetic of one row,
with its numbers. The steps themselves are the rows of ``core.engine.stages.backward_steps``."""

from __future__ import annotations

import numpy as np

from attn_tui.core.numbers import fixed


def d_raw_scores(w) -> str:
    a, p, i, h = w.attention, w.p, w.row, w.h
    back = a.backward
    keys = range(a.scenario.T_k)
    dS = back.d_scores(h, range(i, i + 1), keys)[0]
    crossed = back.derivatives(h, range(i, i + 1), keys)  # (stage, its derivative), in step order
    for stage, _ in crossed:
        said = stage.gradient.before(w)
        if said:
            w.note(said)
    for k in w.keys():
        if isinstance(k, str):
            w.note(k)
            continue
        factors = "".join(
            stage.gradient.factor(w, float(np.broadcast_to(derivative, (1, len(keys)))[0, k]))
            for stage, derivative in reversed(crossed)
        )
        w.add(
            (f"({w.query}, {w.keys_labels[k]}): ", "token"),
            (f"{fixed(dS[k], p, True)}{factors}", "number"),
            (" = ", ""),
            (fixed(w.r.own[k], p, True), "result"),
            selected=k == w.col,
        )
    for stage, _ in crossed:
        said = stage.gradient.after(w)
        if said:
            w.note(said)
    names = [f"the {stage.title.lower()}" for stage, _ in reversed(crossed)]
    through = " and ".join([", ".join(names[:-1]), names[-1]] if len(names) > 1 else names)
    return (
        f"back through {through} to {w.query_quoted}'s raw scores"
        if crossed
        else "the raw scores' gradient"
    )


def d_queries(w) -> str:
    a, p, i, h = w.attention, w.p, w.row, w.h
    back = a.backward
    raw = back.d_raw_scores(h, range(i, i + 1), range(a.scenario.T_k))[0]
    K = a.inputs.K(h)
    for k in w.keys():
        if isinstance(k, str):
            w.note(k)
            continue
        w.add(
            (f"  dScore[{w.query}, {w.keys_labels[k]}] × k{k + 1} = ", "token"),
            (f"{fixed(raw[k], p, True)} × {w.vector(K[k], p, True, nested=True)}", "number"),
        )
    found = back.head(h)
    if a.scenario.rope is not None:
        w.add(
            ("Σ = dQ as RoPE left it: ", ""), (w.vector(found["dQ_turned"][i], p, True), "number")
        )
        w.note(
            "RoPE turned q by its position's angle; its "
            "gradient turns back by the same angle (Rᵀ = R⁻¹)."
        )
    _back_through_the_norm(w, "q", i, found["dQ_normed"][i])
    w.add((f"dq{i + 1} = ", ""), (w.vector(w.r.own, p, True), "result"))
    if a.scenario.kind == "projection":
        w.note("With projections, dWq = Xᵀ·dQ and dQ·Wqᵀ flows on into dX.")
    return f"how the loss changes with {w.query_quoted}'s query"


def _back_through_the_norm(w, letter: str, row: int, d_normed) -> None:
    """What QK-norm does to the gradient on its way back, when the scenario norms q and k."""
    norm = w.scenario.stage_settings.get("qk_norm")
    if norm is None:
        return
    w.add(
        (f"d{letter} of the normed {letter}{row + 1}: ", ""),
        (w.vector(d_normed, w.p, True), "number"),
    )
    w.note(
        f"Back through QK-norm ({letter} ÷ rms(x) × gain): each entry × gain ÷ rms, less the "
        f"part along {letter} itself — a longer {letter} would be normed back to the same size, "
        "so that direction gets no gradient."
    )


def d_keys(w) -> str:
    a, p, j, h = w.attention, w.p, w.row, w.h
    back = a.backward
    label = w.keys_labels[j]
    raw = back.d_raw_scores(h, range(a.T), range(j, j + 1))[:, 0]
    Q = a.inputs.Q(h)
    for i in w.fold_around(a.T, j, "query"):
        if isinstance(i, str):
            w.note(i)
            continue
        w.add(
            (f"  dScore[{w.query_labels[i]}, {label}] × q{i + 1} = ", "token"),
            (f"{fixed(raw[i], p, True)} × {w.vector(Q[i], p, True, nested=True)}", "number"),
        )
    if a.scenario.rope is not None:
        w.add(
            ("Σ = dK as RoPE left it: ", ""),
            (w.vector(back.head(h)["dK_turned"][j], p, True), "number"),
        )
        w.note("RoPE turned k by its position's angle; its gradient turns back by the same angle.")
    _back_through_the_norm(w, "k", j, back.head(h)["dK_normed"][j])
    w.add((f"dk{j + 1} = ", ""), (w.vector(w.r.own, p, True), "result"))
    if a.scenario.heads != a.scenario.kv_heads:
        w.note(
            f"Heads share this K (grouped-query attention): dL/dK adds up the "
            f"{a.scenario.heads // a.scenario.kv_heads} heads' dK."
        )
    return f'how the loss changes with "{label}"\'s key'


def d_inputs(w) -> str:
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
