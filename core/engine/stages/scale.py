"""Step: Scale — divide the scores by √d_k (or the scenario's own divisor, or nothing)."""

from __future__ import annotations

from attn_tui.core.engine.stages import KEYS, PREVIOUS, Arithmetic, Display, Stage
from attn_tui.core.engine.stages.contract import ChainRule, Grows, Multiplies
from attn_tui.core.model.options import Options
from attn_tui.core.numbers import fixed


def heading(scenario, options) -> str:
    scale = options.scale_text(scenario.d_k)
    return "scaling is off: scaled = scores" if scale == "none" else f"scores {scale}"


def compute(w):
    return w.previous() / w.attention.divisor


def explain(w) -> str:
    r = w.r
    before, after = r.previous, r.own
    s_dec = w.decimals(w.previous_name)
    tiny = w.attention.stage(w.previous_name).tiny
    divisor = w.attention.divisor
    shown_divisor = fixed(divisor, w.p)
    d_k = w.scenario.d_k
    scale = w.options.scale
    if scale is True:
        w.add(("√d_k = √", ""), (str(d_k), "number"), (" = ", ""), (shown_divisor, "result"))
        title = "divide by √d_k"
    elif scale is False:
        w.note("scaling is off: every score is divided by 1, i.e. left as it is")
        title = "none (scaling is off)"
    else:
        w.add(("the scenario divides by ", ""), (f"{scale:g}", "result"))
        title = f"divide by {scale:g}"
        shown_divisor = f"{divisor:g}"
    for k in w.keys():
        if isinstance(k, str):
            w.note(k)
            continue
        score = fixed(before[k], s_dec, tiny)
        formula = (
            f"{score} / √{d_k} = {score}/{shown_divisor}"
            if scale is True
            else f"{score} / {shown_divisor}"
        )
        w.add(
            (f"({w.query}, {w.keys_labels[k]}): ", "token"),
            (formula, "number"),
            (" = ", ""),
            (fixed(after[k], w.p), "result"),
            selected=k == w.col,
        )
    fractions = w.fold_lazy(
        len(before), lambda k: f"{fixed(before[k], s_dec, tiny)}/{shown_divisor}", ", "
    )
    w.add(
        ("scaled scores: ", ""),
        ("[" + fractions + "]", "number"),
        (" = ", ""),
        (w.vector(after, w.p), "result"),
    )
    if scale is True:
        w.note(
            "Why divide? With larger d_k, dot products grow just from having more terms; "
            "big scores make softmax spiky. Dividing by √d_k keeps them well-behaved."
        )
    return title


def back_heading(scenario, options) -> str:
    """Its term in dScores' heading: the gradient is divided as the scores were."""
    return (
        " scaling is off: ÷ 1"
        if options.scale is False
        else f" ÷ {fixed(options.divisor(scenario.d_k), 3)}"
    )


def shown_divisor(w) -> str:
    return fixed(w.attention.divisor, max(w.p, 3))


def back_after(w) -> str:
    if w.attention.options.scale is False:
        return (
            "Scaling is off: the divisor is 1, so nothing here shrinks the gradient — nor the "
            "scores."
        )
    return (
        f"Dividing the scores by {shown_divisor(w)} on the way forward divides their gradient by "
        f"{shown_divisor(w)} on the way back."
    )


STAGE = Stage(
    name="scale",
    title="Scale",
    key="scaled",
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
    gradient=ChainRule(
        back=lambda w, gradient: gradient / w.attention.divisor,
        derivative=lambda w: 1.0 / w.attention.divisor,
        heading=back_heading,
        factor=lambda w, value: f" / {shown_divisor(w)}",
        after=back_after,
    ),
    score_range=Multiplies(
        lambda scenario, options: 1.0 / options.divisor(scenario.d_k),
        Grows(
            "scaled score",
            lambda scenario, options: f"divided by {options.divisor(scenario.d_k):g}",
            advice="use a larger scale",
            keys=("scale",),
        ),
        reachable=(Options(scale=True), Options(scale=False)),
    ),
)
