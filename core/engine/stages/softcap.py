"""Step: Softcap — squash each score into (−c, c) before the mask: ``capped = c·tanh(x / c)``.

Gemma 2 caps its attention logits this way (``attn_logit_softcapping``, c = 50): a score far
below c passes almost unchanged (tanh(u) ≈ u for small u), a huge one cannot grow past c, so no
single key can take all the weight by a runaway score. Its key is read by ``core.reading.softcap``.
"""

from __future__ import annotations

import numpy as np

from attn_tui.core.engine.stages import KEYS, PREVIOUS, Arithmetic, Display, Stage, TurnedOn
from attn_tui.core.engine.stages.contract import Caps, ChainRule
from attn_tui.core.numbers import fixed
from attn_tui.core.reading import softcap as reader


def cap(scenario) -> float:
    return scenario.stage_settings[STAGE.name].cap


def heading(scenario, options) -> str:
    return (
        f"{cap(scenario):g}·tanh(score / {cap(scenario):g}): "
        f"every score kept inside ±{cap(scenario):g}"
    )


def compute(w) -> np.ndarray:
    c, before = cap(w.scenario), w.previous()
    with np.errstate(over="ignore"):  # a cap of 1e-300: x / c is infinite, tanh of it exactly ±1
        return c * np.tanh(before / c)


def slope(w) -> np.ndarray:
    """d capped / d score: 1 − tanh²(score / c), near 1 far inside the cap, near 0 against it."""
    with np.errstate(over="ignore"):
        t = np.tanh(w.previous() / cap(w.scenario))
    return 1.0 - t * t


def explain(w) -> str:
    c, p = cap(w.scenario), w.p
    before, after = w.r.previous, w.r.own
    shown = f"{c:g}"
    with np.errstate(over="ignore"):
        inside = before / c  # (what tanh is taken of: ∞ for a tiny cap)
    for k in w.keys():
        if isinstance(k, str):
            w.note(k)
            continue
        w.add(
            (f"({w.query}, {w.keys_labels[k]}): ", "token"),
            (
                f"{shown} × tanh({fixed(before[k], p)} / {shown}) "
                f"= {shown} × tanh({fixed(inside[k], max(p, 4))})",
                "number",
            ),
            (" = ", ""),
            (fixed(after[k], p), "result"),
            selected=k == w.col,
        )
    w.add(("capped scores: ", ""), (w.vector(after, p), "result"))
    squeezed = float(np.max(np.abs(before - after), initial=0.0))
    w.note(
        f"A score well inside ±{shown} passes almost unchanged (tanh u ≈ u); here the most "
        f"any score moved is {fixed(squeezed, max(p, 4))}."
    )
    return f"keep {w.query_quoted}'s scores inside ±{shown}"


def back_before(w) -> str:
    return (
        "Softcap c·tanh(x/c) has slope 1 − tanh²(x/c): near 1 for a score far "
        f"inside ±{cap(w.scenario):g}, near 0 for one pressed against the cap."
    )


STAGE = Stage(
    name="softcap",
    title="Softcap",
    key="capped",
    arithmetic=Arithmetic(
        compute=compute,
        reads=(PREVIOUS,),
        columns=KEYS,
    ),
    display=Display(
        heading=heading,
        explain=explain,
        palette="diverging",
        changes="as the scores: a Q row changes that row, a K row that column",
    ),
    turned_on=TurnedOn(
        keys=reader.KEYS,
        read=reader.read,
    ),
    gradient=ChainRule(
        back=lambda w, gradient: gradient * slope(w),
        derivative=slope,
        heading=lambda scenario, options: " ∘ softcap′",
        factor=lambda w, value: f" × {fixed(value, max(w.p, 4))}",
        before=back_before,
    ),
    score_range=Caps(cap),
    applies=lambda scenario: STAGE.name in scenario.stage_settings,
)
