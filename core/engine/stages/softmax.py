"""Step: Softmax — turn each row of masked scores into weights that sum to 1; with learned sinks
(``sinks:``, gpt-oss), each head's sink logit is one more column, softmaxed with the row and
dropped, so that the row's weights sum to less than 1. Its key is read by
``core.reading.sinks``."""

from __future__ import annotations

import math

import numpy as np

from attn_tui.core.engine.explanation import FOLD, percent, quoted_key
from attn_tui.core.engine.stages import (
    KEYS,
    PREVIOUS,
    Arithmetic,
    Display,
    Extra,
    Reported,
    Stage,
    Summary,
    Teaching,
    TurnedOn,
)
from attn_tui.core.engine.stages.contract import AFTER_THE_MASK, GradientSteps
from attn_tui.core.model.labels import token_labels
from attn_tui.core.numbers import fixed, mask_text, signed_shift
from attn_tui.core.reading import sinks as reader

READABLE_EXP = 30.0  # up to here exp(score) prints readably; beyond, show exp(score − max)
EXP_OVERFLOWS = math.log(np.finfo(np.float64).max)  # ≈ 709.78
EXP_UNDERFLOWS = math.log(np.finfo(np.float64).tiny)  # ≈ -708.4


def sink(scenario, h: int) -> float | None:
    """Head ``h``'s learned sink logit, or None."""
    setting = scenario.stage_settings.get("softmax")
    return None if setting is None else setting.logits[h]


def heading(scenario, options) -> str:
    if "softmax" in scenario.stage_settings:
        return "weights, with each head's sink as one more column, dropped: rows sum to less than 1"
    if scenario.padding is not None or scenario.mask is not None:  # a row may see no key at all
        return "weights, each row that sees a key sums to 1"
    return "weights, each row sums to 1"


def softmax(masked: np.ndarray, empty: np.ndarray | None = None) -> np.ndarray:
    """Softmax of each row of ``masked`` (whole rows): the one softmax every path uses, the
    app's windows included (through :func:`statistics` and :func:`compute`). A row in ``empty``
    (it sees no key) gets no weights: zeros, never NaN."""
    empty = np.zeros(len(masked), bool) if empty is None else empty
    found = _statistics(masked, empty)
    return _weights(masked, found["row_max"], found["row_sum"], empty)


def _statistics(
    masked: np.ndarray, empty: np.ndarray, sink: float | None = None
) -> dict[str, np.ndarray]:
    """Each row's largest score and the sum of ``exp(score − largest)``: subtracting the
    largest keeps every exp in [0, 1], so scores of 1e4 give a finite one-hot row, and −∞ (a
    masked key) gives exactly 0. A sink logit is one more score of every row: in the largest,
    in the sum, and its own share (``sink``), the weight that goes nowhere."""
    safe = np.where(empty[:, None], 0.0, masked)  # a row that sees nothing: no NaN
    row_max = safe.max(axis=1)
    if sink is not None:
        row_max = np.maximum(row_max, sink)
    with np.errstate(
        over="ignore"
    ):  # a mask value near −1.8e308 minus a positive max: −∞, weight 0
        row_sum = np.exp(safe - row_max[:, None]).sum(axis=1)
    if sink is None:
        return {"row_max": row_max, "row_sum": row_sum}
    sink_exp = np.exp(sink - row_max)
    row_sum = row_sum + sink_exp
    return {"row_max": row_max, "row_sum": row_sum, "sink": sink_exp / row_sum}


def _weights(
    masked: np.ndarray, row_max: np.ndarray, row_sum: np.ndarray, empty: np.ndarray
) -> np.ndarray:
    with np.errstate(over="ignore", invalid="ignore"):
        weights = np.exp(masked - row_max[:, None]) / row_sum[:, None]
    weights[empty] = 0.0
    return weights


def statistics(w) -> dict[str, np.ndarray]:
    """A block's rows, whole: what every window of them needs."""
    return _statistics(w.previous(), w.empty(), sink(w.scenario, w.head))


def compute(w) -> np.ndarray:
    found = w.statistics()
    return _weights(w.previous(), found["row_max"], found["row_sum"], w.empty())


def numerators(masked: np.ndarray, row_max: float) -> np.ndarray:
    """``exp(masked − row_max)`` of one row: the weights times the row's sum."""
    with np.errstate(over="ignore", under="ignore"):
        return np.exp(masked - row_max)


def entropy_rows(weights: np.ndarray) -> np.ndarray:
    """Each row's entropy in nats, counting 0 · log 0 as 0."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return 0.0 - np.where(weights > 0, weights * np.log(weights), 0.0).sum(axis=1)


def max_weight(head, rows: range) -> np.ndarray:
    """Each row's largest weight, 1 / Σexp (the largest exp is exp(0) = 1); 0 if it sees nothing.
    With a sink the largest exp may be the sink's: the largest of the weights themselves."""
    if sink(head.attention.scenario, head.h) is not None:
        weights = head.values(STAGE.name, rows, range(head.attention.scenario.T_k))
        return np.where(head.empty(rows), 0.0, weights.max(axis=1, initial=0.0))
    with np.errstate(divide="ignore"):
        return np.where(head.empty(rows), 0.0, 1.0 / head.statistics(STAGE.name, rows)["row_sum"])


def entropy(head, rows: range) -> np.ndarray:
    """Each row's entropy in nats (0 for one-hot, ln T for uniform)."""
    return entropy_rows(head.values(STAGE.name, rows, range(head.attention.scenario.T_k)))


def explain(w) -> str:
    r, p = w.r, w.p
    title = f"turn {w.query_quoted}'s scores into percentages"
    if r.empty:
        w.add(
            (
                f"{w.query_quoted} can see no key: there is nothing to share its attention "
                "between, so it has no weights.",
                "masked",
            )
        )
        return title
    masked, weights = r.previous, r.own
    found = r.statistics()
    row_max = found["row_max"]
    raw = abs(row_max) <= READABLE_EXP
    exps = numerators(masked, 0.0 if raw else row_max)
    s_h = sink(w.scenario, w.h)
    sink_exp = 0.0 if s_h is None else float(numerators(np.array(s_h), 0.0 if raw else row_max))
    total = float(exps.sum()) + sink_exp if raw else found["row_sum"]

    def label(k: int | None) -> str:
        shift = "" if raw else f" {signed_shift(-row_max, p)}"
        value = fixed(s_h, p) if k is None else w.masked_text(masked[k])
        return f"exp({value}{shift})"

    keys = w.keys()
    shown = [k for k in keys if isinstance(k, int)] + ([None] if s_h is not None else [])
    width = max(len(label(k)) for k in shown)
    # an exp too small for the precision is written with its exponent (2.0e−31), never as a
    # 0.000 that is not 0: a weight of 0.000/1.000 would say nothing
    value_width = max(len(fixed(sink_exp if k is None else exps[k], p, True)) for k in shown)
    for k in keys:
        if isinstance(k, str):
            w.note(k)
            continue
        w.add(
            (label(k).ljust(width), "number"),
            (" = ", ""),
            (fixed(exps[k], p, True).rjust(value_width), "masked" if r.blocked[k] else "result"),
            (f"   {w.keys_labels[k]}", "token"),
            selected=k == w.col,
        )
    if s_h is not None:
        w.add(
            (label(None).ljust(width), "number"),
            (" = ", ""),
            (fixed(sink_exp, p, True).rjust(value_width), "result"),
            (f"   the sink (s{w.h + 1} = {fixed(s_h, p)}, learned)", "token"),
        )
    w.add((" " * (width + 3) + "-" * value_width, ""))
    w.add(("sum".ljust(width), ""), (" = ", ""), (fixed(total, p, True), "result"))
    quotients = w.fold_lazy(
        len(masked), lambda k: f"{fixed(exps[k], p, True)}/{fixed(total, p, True)}", ", "
    )
    w.add(("weights = ", ""), ("[" + quotients + "]", "number"))
    if s_h is None:
        w.add(
            ("        = ", ""),
            (w.vector(weights, p, tiny=False), "result"),
            (f"  ({sums_note(weights, p)})", "note"),
        )
    else:
        given = float(found["sink"])
        w.add(
            ("        = ", ""),
            (w.vector(weights, p, tiny=False), "result"),
            (f"  (sums to {fixed(float(weights.sum()), p, tiny=False)})", "note"),
        )
        w.add(
            (f"the sink takes {fixed(sink_exp, p, True)}/{fixed(total, p, True)} = ", ""),
            (fixed(given, p, tiny=False), "result"),
            (
                f" ({percent(given)}) of {w.query_quoted}'s attention and is dropped: that share "
                "blends no value, so the output is the other weights' blend alone",
                "note",
            ),
        )
    w.add((sentence(w.attention, w.row, w.h), "token"))
    hidden = float(weights[r.blocked].sum())
    if hidden >= 10.0**-p:  # a finite mask value above the visible scores: the mask leaked
        best_visible = float(masked[~r.blocked].max()) if (~r.blocked).any() else float("-inf")
        w.add(
            (
                f"The hidden keys take {percent(hidden)} of {w.query_quoted}'s weight: the mask "
                f"value {mask_text(w.options.mask_value)} is not far below its visible scores "
                f"(the largest {fixed(best_visible, p, tiny=False)}), so hiding a key did not "
                "take its weight away. A mask value must be far below every score: use -.inf.",
                "masked",
            )
        )
    w.weight_bars(weights)
    shift = fixed(row_max, p)
    if raw:
        # a largest score that reads 0.000 is still subtracted: "x − 0.000", never "x + 0.000"
        minus_max = f"− {shift}" if not shift.strip("0.") else signed_shift(-row_max, p)
        w.note(
            f"For stability the code computes exp(x {minus_max}), subtracting the "
            f"row's largest score: every exp and the sum shrink by the same factor "
            f"e^{shift}, so the weights are the same."
        )
    elif row_max > EXP_OVERFLOWS:
        w.note(
            f"The row's largest score, {shift}, is subtracted before exp: exp({shift}) would "
            "overflow float64, and the weights do not change."
        )
    elif row_max < EXP_UNDERFLOWS:
        w.note(
            f"The row's largest score, {shift}, is subtracted before exp: exp({shift}) would "
            "underflow to 0 (and 0/0 is no weight), and the weights do not change."
        )
    else:
        w.note(
            f"The row's largest score, {shift}, is subtracted before exp, as the code always "
            "does: the exps stay between 0 and 1 and the weights do not change."
        )
    return title


def sums_note(weights: np.ndarray, precision: int) -> str:
    """ "sums to 1", and a word on rounding when the weights as shown do not add up to 1."""
    exact = f"sums to {fixed(float(weights.sum()), 1)}"
    if len(weights) > 64:  # too many to add up by eye: rounding is not the reader's question
        return exact
    shown = sum(round(float(value), precision) for value in weights)
    if round(shown, precision) == 1.0:
        return exact
    return f"{exact}; rounded to {precision} decimals they add to {fixed(shown, precision)}"


def sentence(attention, row: int, head: int = 0) -> str:
    """Where query ``row`` looks, in percent: '"sat" pays 25% attention to "the", …'.

    Each percentage is read off the weight it describes (so equal weights read the same); a
    row with many keys names its three largest and sums the rest; weight that a finite mask
    value lets through to hidden keys is said, not rounded away.
    """
    scenario = attention.scenario
    rows, keys = range(row, row + 1), range(scenario.T_k)
    query = token_labels(scenario.row_tokens)[row]
    if attention.empty(rows)[0]:
        return f'"{query}" has nothing to attend to: every key is hidden from it.'
    weights = attention.values(STAGE.name, head, rows, keys)[0]
    blocked = attention.blocked(rows, keys)[0]
    visible_keys = np.flatnonzero(~blocked)
    many = len(visible_keys) > FOLD
    shown = (
        visible_keys[np.argsort(-weights[visible_keys], kind="stable")[:3]]
        if many
        else visible_keys
    )
    phrases = [(percent(weights[k]), quoted_key(scenario, k, row)) for k in shown]
    first = f"{phrases[0][0]} attention to {phrases[0][1]}"
    rest = [f"{share} to {who}" for share, who in phrases[1:]]
    if many:
        others = float(weights[visible_keys].sum() - weights[shown].sum())
        text = (
            ", ".join([first, *rest]) + f" (its {len(shown)} largest), and {percent(others)} "
            f"to the other {len(visible_keys) - len(shown)} keys"
        )
    elif not rest:
        text = first
    elif len(rest) == 1:
        text = f"{first} and {rest[0]}"
    else:
        text = ", ".join([first, *rest[:-1]]) + f", and {rest[-1]}"
    if blocked.any():
        hidden = float(weights[blocked].sum())
        where = "the future" if attention.visibility.rules == ("causal",) else "the hidden keys"
        text += f", and {percent(hidden)} to {where}"
        if hidden > 0:
            text += f" (the mask value {mask_text(attention.options.mask_value)} lets it through)"
    if sink(scenario, head) is not None:
        given = float(attention.statistics(STAGE.name, head, rows)["sink"][0])
        text += f"; {percent(given)} goes to the sink, nowhere"
    return f'"{query}" pays {text}.'


STAGE = Stage(
    name="softmax",
    title="Softmax",
    key="weights",
    arithmetic=Arithmetic(
        compute=compute,
        reads=(PREVIOUS,),
        columns=KEYS,
        row_wide=True,
        statistics=statistics,
        empty_rows=True,
    ),
    display=Display(
        heading=heading,
        explain=explain,
        palette="weights",
        changes="a Q row changes that row; a K row every row that can see it",
        overview=True,
    ),
    reported=Reported(
        summaries=(
            Summary("max", "max_weight", "largest weight", max_weight),
            Summary("H", "entropy", "entropy in nats", entropy),
        ),
        extras=(
            Extra(
                "row_max",
                lambda head, rows: head.statistics(STAGE.name, rows)["row_max"],
                per_row=True,
            ),
            # of exp(masked − row_max): weights × row_sum gives exp
            Extra(
                "row_sum",
                lambda head, rows: head.statistics(STAGE.name, rows)["row_sum"],
                per_row=True,
            ),
            # the weight each row gave its head's sink (with sinks: only)
            Extra(
                "sink",
                lambda head, rows: head.statistics(STAGE.name, rows)["sink"],
                per_row=True,
                applies=lambda scenario: "softmax" in scenario.stage_settings,
            ),
        ),
    ),
    teaching=Teaching(
        masked_given=True,
        key_a_noun=True,
    ),
    turned_on=TurnedOn(keys=reader.KEYS, read=reader.read),
    gradient=GradientSteps(("d_scores",)),
    score_range=AFTER_THE_MASK,
)

__all__ = ["STAGE", "entropy_rows", "percent", "sentence", "softmax", "sums_note"]
