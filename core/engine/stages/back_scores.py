"""Backward step: back through the softcap (its tanh's slope 1 − tanh²), the bias (it adds, so
passes the gradient on unchanged) and the scale (÷ the divisor), to the raw scores Q·Kᵀ."""

from __future__ import annotations

import numpy as np

from attn_tui.core.numbers import fixed
from attn_tui.core.engine.stages import KEYS, Stage
from attn_tui.core.engine.stages.back_output import has_loss


def heading(scenario, options) -> str:
    through = ["softcap′"] if "softcap" in scenario.stage_settings else []
    divided = "scaling is off: ÷ 1" if options.scale is False else f"÷ {fixed(options.divisor(scenario.d_k), 3)}"
    return f"dL/d(Q·Kᵀ) = dS{''.join(' ∘ ' + t for t in through)} {divided}"


def compute(w) -> np.ndarray:
    return w.attention.backward.d_raw_scores(w.head, w.rows, w.cols, w.keep)


def explain(w) -> str:
    a, p, i, h = w.attention, w.p, w.row, w.h
    back = a.backward
    keys = range(a.scenario.T_k)
    dS = back.d_scores(h, range(i, i + 1), keys)[0]
    slope = back.softcap_slope(h, range(i, i + 1), keys)
    divisor = a.divisor
    shown = fixed(divisor, max(p, 3))
    settings = a.scenario.stage_settings
    if "bias" in settings:
        w.note("The bias is added to the scores: d(score + bias)/d score = 1, so dS passes through unchanged.")
    if slope is not None:
        w.note(f"Softcap c·tanh(x/c) has slope 1 − tanh²(x/c): near 1 for a score far inside ±{settings['softcap'].cap:g}, "
               "near 0 for one pressed against the cap.")
    for k in w.keys():
        if isinstance(k, str):
            w.note(k)
            continue
        through = f" × {fixed(slope[0][k], max(p, 4))}" if slope is not None else ""
        w.add((f"({w.query}, {w.keys_labels[k]}): ", "token"),
              (f"{fixed(dS[k], p, True)}{through} / {shown}", "number"), (" = ", ""),
              (fixed(w.r.own[k], p, True), "result"), selected=k == w.col)
    if a.options.scale is False:
        w.note("Scaling is off: the divisor is 1, so nothing here shrinks the gradient — nor the scores.")
    else:
        w.note(f"Dividing the scores by {shown} on the way forward divides their gradient by {shown} on the way back.")
    return f"back through the scale to {w.query_quoted}'s raw scores"


STAGE = Stage(
    name="d_raw_scores", title="dScores", key="d_raw_scores", reads=("d_scores", "scale"),
    changes="every edit changes it", columns=KEYS, palette="diverging", heading=heading, compute=compute,
    explain=explain, applies=lambda scenario: has_loss(scenario), row_wide=True,
    tiny=True, backward=True,
    in_json=False)  # (d_scores ÷ the divisor, × softcap's slope: a third T × T matrix in --json)
