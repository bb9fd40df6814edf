"""Step: Softmax — turn each row of masked scores into weights that sum to 1."""

from __future__ import annotations

import math

import numpy as np

from attn_tui.core.explanation import percent, sentence
from attn_tui.core.numbers import fixed, signed_shift
from attn_tui.core.stages import KEYS, Stage

READABLE_EXP = 30.0  # up to here exp(score) prints readably; beyond, show exp(score − max)
EXP_OVERFLOWS = math.log(np.finfo(np.float64).max)     # ≈ 709.78
EXP_UNDERFLOWS = math.log(np.finfo(np.float64).tiny)   # ≈ -708.4


def heading(scenario, options) -> str:
    if scenario.padding is not None or scenario.mask is not None:  # a row may see no key at all
        return "weights, each row that sees a key sums to 1"
    return "weights, each row sums to 1"


def values(attention, h, rows, cols):
    return attention.head(h).weights(rows, cols)


def explain(w) -> str:
    r, p = w.r, w.p
    title = f"turn {w.query_quoted}'s scores into percentages"
    if r.empty:
        w.add((f"{w.query_quoted} can see no key: there is nothing to share its attention "
               "between, so it has no weights.", "masked"))
        return title
    masked, row_max = r.masked, r.row_max
    raw = abs(row_max) <= READABLE_EXP
    with np.errstate(over="ignore", under="ignore"):
        exps, total = (np.exp(masked), float(np.exp(masked).sum())) if raw else (r.exp, r.row_sum)

    def label(k: int) -> str:
        shift = "" if raw else f" {signed_shift(-row_max, p)}"
        return f"exp({w.masked_text(masked[k])}{shift})"

    keys = w.keys()
    shown = [k for k in keys if isinstance(k, int)]
    width = max(len(label(k)) for k in shown)
    value_width = max(len(fixed(exps[k], p)) for k in shown)
    for k in keys:
        if isinstance(k, str):
            w.note(k)
            continue
        w.add((label(k).ljust(width), "number"), (" = ", ""),
              (fixed(exps[k], p).rjust(value_width), "masked" if r.blocked[k] else "result"),
              (f"   {w.keys_labels[k]}", "token"), selected=k == w.col)
    w.add((" " * (width + 3) + "-" * value_width, ""))
    w.add(("sum".ljust(width), ""), (" = ", ""), (fixed(total, p), "result"))
    quotients = w.fold_lazy(len(masked), lambda k: f"{fixed(exps[k], p)}/{fixed(total, p)}", ", ")
    w.add(("weights = ", ""), ("[" + quotients + "]", "number"))
    w.add(("        = ", ""), (w.vector(r.weights, p), "result"), (f"  ({sums_note(r.weights, p)})", "note"))
    w.add((sentence(w.attention, w.row, w.h), "token"))
    w.weight_bars()
    shift = fixed(row_max, p)
    if raw:
        w.note(f"For stability the code computes exp(x {signed_shift(-row_max, p)}), subtracting the "
               f"row's largest score: every exp and the sum shrink by the same factor "
               f"e^{shift}, so the weights are the same.")
    elif row_max > EXP_OVERFLOWS:
        w.note(f"The row's largest score, {shift}, is subtracted before exp: exp({shift}) would "
               "overflow float64, and the weights do not change.")
    elif row_max < EXP_UNDERFLOWS:
        w.note(f"The row's largest score, {shift}, is subtracted before exp: exp({shift}) would "
               "underflow to 0 (and 0/0 is no weight), and the weights do not change.")
    else:
        w.note(f"The row's largest score, {shift}, is subtracted before exp, as the code always "
               "does: the exps stay between 0 and 1 and the weights do not change.")
    return title


def sums_note(weights: np.ndarray, precision: int) -> str:
    """"sums to 1", and a word on rounding when the weights as shown do not add up to 1."""
    exact = f"sums to {fixed(float(weights.sum()), 1)}"
    if len(weights) > 64:  # too many to add up by eye: rounding is not the reader's question
        return exact
    shown = sum(round(float(value), precision) for value in weights)
    if round(shown, precision) == 1.0:
        return exact
    return f"{exact}; rounded to {precision} decimals they add to {fixed(shown, precision)}"


STAGE = Stage(
    name="softmax", title="Softmax", key="weights", reads=("mask",),
    changes="a Q row changes that row; a K row every row that can see it", columns=KEYS,
    palette="weights", heading=heading, values=values, explain=explain)

__all__ = ["STAGE", "percent", "sums_note"]
