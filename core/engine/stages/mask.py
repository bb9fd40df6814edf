"""Step: Mask — hide the keys a query may not see: their scores become the mask value (−∞), so
softmax gives them exactly 0 weight. The rules: causal, a window, chunks (``chunk: C``, read by
``core.reading.chunk``), padding, an explicit mask."""

from __future__ import annotations

import math

import numpy as np

from attn_tui.core.engine.stages import (
    KEYS,
    PREVIOUS,
    Arithmetic,
    Display,
    Stage,
    Teaching,
    TurnedOn,
)
from attn_tui.core.engine.stages.contract import GradientSteps, Keeps
from attn_tui.core.engine.stages.softmax import softmax
from attn_tui.core.model.masks import CAUSAL, WHY
from attn_tui.core.numbers import fixed, mask_text
from attn_tui.core.reading import chunk as reader

RULE_NAMES = {
    "causal": "the causal mask",
    "window": "the window",
    "chunk": "the chunks",
    "padding": "padding",
    "mask": "the explicit mask",
}


def heading(scenario, options) -> str:
    rules = scenario.visibility(options).rules
    if not rules:
        return "no mask: every key visible"
    if rules == (CAUSAL,):
        return f"future keys set to {mask_text(options.mask_value)}"
    named = ", ".join(RULE_NAMES[rule] for rule in rules[:-1]) + " or " + RULE_NAMES[rules[-1]]
    return f"keys hidden by {named} set to {mask_text(options.mask_value)}"


def leak(attention, keep: bool = True, cancelled=lambda: False) -> tuple[float, int, int] | None:
    """The largest share of a row's weight its hidden keys take — a finite mask value not far
    enough below the visible scores lets weight through — with its head and row; None when
    none does (a mask value of −∞ never lets any through, nor one far below every score: see
    :func:`cannot_leak`). Every row, a block at a time; None as soon as ``cancelled()``."""
    if math.isinf(attention.options.mask_value) or cannot_leak(attention):
        return None
    from attn_tui.core.engine.attention import BLOCK

    scenario = attention.scenario
    keys = range(scenario.T_k)
    best = (0.0, 0, 0)
    for h in range(scenario.heads):
        for start in range(0, scenario.T, BLOCK):
            if cancelled():
                return None
            rows = range(start, min(start + BLOCK, scenario.T))
            blocked, empty = attention.blocked(rows, keys), attention.empty(rows, keep)
            weights = softmax(attention.values(STAGE.name, h, rows, keys, keep), empty)
            hidden = np.where(blocked, weights, 0.0).sum(axis=1)
            i = int(hidden.argmax())
            if hidden[i] > best[0]:
                best = (float(hidden[i]), h, start + i)
    return best if best[0] > 0 else None


def cannot_leak(attention) -> bool:
    """Whether every hidden key's weight is surely exactly 0, from norms alone (O(T·d), where the
    scan costs O(T²): 30 s at T = 16,384): a visible key's score on reaching the mask is at least
    −B, B = the largest ‖q‖·‖k‖ taken through each stage's declared range rule (what it adds,
    multiplies by, caps at: ``core.engine.overflow.score_bound``), so a hidden key's
    exp(mask_value − row max) ≤ exp(mask_value + B), which is 0 in float64 below e^−746."""
    from attn_tui.core.engine.overflow import score_bound

    scenario, inputs = attention.scenario, attention.inputs
    with np.errstate(over="ignore", invalid="ignore"):
        norms = [
            float(
                np.sqrt(np.square(inputs.Q(h)).sum(axis=1).max())
                * np.sqrt(np.square(inputs.K(h)).sum(axis=1).max())
            )
            for h in range(scenario.heads)
        ]
        bound = score_bound(scenario, max(norms), attention.options)
    return bool(attention.options.mask_value + bound < -746.0)


def leak_warnings(attentions: dict, cancelled=lambda: False) -> list[str]:
    """A warning for each set of options (by variant name, "" for the scenario's own) under
    which a finite mask value lets hidden keys take weight: the arithmetic is right, but the
    mask has leaked (--check says it; the app says it once it is open)."""
    from attn_tui.core.engine.explanation import percent
    from attn_tui.core.model.labels import token_labels

    found = []
    for name, attention in attentions.items():
        worst = leak(attention, keep=False, cancelled=cancelled)
        if worst is None:
            continue
        share, h, row = worst
        scenario = attention.scenario
        where = (f" of {scenario.head_names[h]}" if scenario.heads > 1 else "") + (
            f" (variant {name})" if name else ""
        )
        found.append(
            f"warning: mask_value {mask_text(attention.options.mask_value)} "
            f"lets hidden keys take weight: {percent(share)} of row "
            f'{row + 1} ("{token_labels(scenario.row_tokens)[row]}"){where}; '
            "a mask value must be far below every score: use -.inf"
        )
    return found


def compute(w):
    return np.where(w.blocked(), w.options.mask_value, w.previous())


def explain(w) -> str:
    r, i = w.r, w.row
    visibility = w.attention.visibility
    rules = visibility.rules
    if not rules and w.attention.scenario.cross:
        w.note(
            "no mask: every query sees every key of the other sequence (the whole source is known)"
        )
    elif not rules:
        w.note(
            "no mask: every token sees every other token, the future included "
            "(bidirectional, like BERT)"
        )
    keys = [k for k in w.keys() if isinstance(k, int)]
    reasons = dict(zip(keys, visibility.reasons(i, np.array(keys, dtype=np.intp)))) if keys else {}
    for k in w.keys():
        if isinstance(k, str):
            w.note(k)
            continue
        cell = f"({w.query}, {w.keys_labels[k]})"
        if r.blocked[k]:
            why = " and ".join(WHY[rule] for rule in reasons[k])
            w.add(
                (cell, "token"),
                (f" is {why}: ", ""),
                (mask_text(w.options.mask_value), "masked"),
                selected=k == w.col,
            )
        else:
            where = "is itself, visible" if w.is_self(k) else "is visible"
            w.add(
                (cell, "token"),
                (f" {where}: ", ""),
                (fixed(r.own[k], w.p), "result"),
                selected=k == w.col,
            )
    w.add(("masked row: ", ""), (w.vector(r.own, w.p), "result"))
    if not rules:
        return "none (every key is visible)"
    hidden = int(r.blocked.sum())
    if r.empty:
        w.add(
            (
                f"{w.query_quoted} can see no key at all: it has nothing to attend to, and its "
                "weights and output are left empty.",
                "masked",
            )
        )
    elif rules == (CAUSAL,) and w.attention.scenario.cross:  # positions lined up, not one sequence
        later = (
            "no key is"
            if hidden == 0
            else f"{hidden} key{'s' if hidden > 1 else ''} at later positions "
            f"{'are' if hidden > 1 else 'is'}"
        )
        w.note(f"{w.query_quoted} sees the keys up to its own position ({i + 1}); {later} hidden.")
    elif rules == (CAUSAL,):
        future = (
            "nothing is"
            if hidden == 0
            else f"{hidden} future token{'s are' if hidden > 1 else ' is'}"
        )
        sees = "only itself" if i == 0 else "itself and what came before"
        w.note(f"{w.query_quoted} sees {sees}; {future} hidden.")
    else:
        every_key = np.arange(w.scenario.T_k)
        by_rule = {
            rule: int(visibility.hidden_by(rule, np.array([i]), every_key).sum()) for rule in rules
        }
        counted = ", ".join(f"{count} {WHY[rule]}" for rule, count in by_rule.items() if count)
        overlap = (
            " (a key may be hidden by more than one rule)" if sum(by_rule.values()) > hidden else ""
        )
        w.note(
            f"{w.query_quoted} sees {len(r.blocked) - hidden} of {len(r.blocked)} keys"
            + (f"; {hidden} hidden: {counted}{overlap}." if hidden else "; none is hidden.")
        )
    leak = float(softmax(r.own[None])[0][r.blocked].max(initial=0.0)) if not r.empty else 0.0
    if leak > 0:
        advice = (
            "use -.inf"
            if w.options.mask_value <= -1e9
            else "use -.inf, or a value far below every score such as -1e9"
        )
        w.add(
            (
                f"mask_value {mask_text(w.options.mask_value)} is not negative enough: a hidden "
                f"key still gets weight up to {leak:.3g}; {advice}.",
                "masked",
            )
        )
    elif hidden and not r.empty:
        w.note("Softmax turns a masked score into exactly 0 weight.")
    return (
        f"{w.query_quoted} may not look at "
        f"{'the future' if rules == (CAUSAL,) else 'the hidden keys'}"
    )


STAGE = Stage(
    name="mask",
    title="Mask",
    key="masked",
    arithmetic=Arithmetic(
        compute=compute,
        reads=(PREVIOUS,),
        columns=KEYS,
        masks=True,
    ),
    display=Display(
        heading=heading,
        explain=explain,
        palette="diverging",
        changes="as the scores; the mask itself depends on positions only",
    ),
    teaching=Teaching(
        predictable=False,
        masked_given=True,
    ),
    turned_on=TurnedOn(keys=reader.KEYS, read=reader.read),
    # dS is 0 where a key is hidden: the mask value is a constant
    gradient=GradientSteps(("d_scores",)),
    score_range=Keeps(
        "a visible key's score passes unchanged; a hidden one becomes the mask value, which "
        "leak() weighs against the scores' bound"
    ),
)
