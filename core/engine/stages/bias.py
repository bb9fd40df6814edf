"""Step: Bias — add a bias to the scaled scores before the mask: ``biased = scaled + bias``.

ALiBi (Press et al., "Train Short, Test Long") gives head h = 1 … H the slope
m_h = 2^(−8h/H) and penalises distance, bias(i, j) = −m_h·|i − j|: nearer keys score higher,
and the further back a head looks, the less its slope lets it. When H is not a power of two,
the paper's rule takes the slopes of the nearest power of two below, n, then every other slope
of 2n for the remaining heads. Or the scenario gives the bias itself (``bias:``: T5's relative
position bias, a teacher's own). Its keys are read by ``core.reading.bias``.
"""

from __future__ import annotations

import math

import numpy as np

from attn_tui.core.engine.stages import (
    KEYS,
    PREVIOUS,
    Arithmetic,
    Display,
    Extra,
    Reported,
    Stage,
    TurnedOn,
)
from attn_tui.core.engine.stages.contract import Adds, ChainRule, Grows
from attn_tui.core.numbers import fixed
from attn_tui.core.reading import bias as reader

SMALL = 0.05  # a bias that moves no score by more than this changes no weight by much


def slopes(scenario) -> list[float]:
    """The scenario's ALiBi slopes: the paper's for its heads (or those of one head taken alone)."""
    setting = scenario.stage_settings[STAGE.name]
    return (
        list(setting.slopes) if setting.slopes is not None else reader.alibi_slopes(scenario.heads)
    )


def bias(scenario, h: int, rows: range, cols: range) -> np.ndarray:
    """The bias of head ``h`` on a window of queries × keys."""
    setting = scenario.stage_settings[STAGE.name]
    if setting.alibi:
        slope = slopes(scenario)[h]
        distance = np.abs(
            np.arange(rows.start, rows.stop)[:, None] - np.arange(cols.start, cols.stop)[None, :]
        )
        return -slope * distance
    # an input like Q, K, V when read from a file (edited, undone and saved as they are); a
    # scenario made in code may give it in the setting alone
    matrix = scenario.inputs["bias"] if "bias" in scenario.inputs else setting.matrix
    matrix = matrix[h] if matrix.ndim == 3 else matrix
    return matrix[rows.start : rows.stop, cols.start : cols.stop]


def heading(scenario, options) -> str:
    if scenario.stage_settings[STAGE.name].alibi:
        return "scaled − m·|i − j| (ALiBi: nearer keys count more; m is the head's slope)"
    return "scaled + the scenario's bias"


def compute(w) -> np.ndarray:
    return w.previous() + bias(w.scenario, w.head, w.rows, w.cols)


def explain(w) -> str:
    scenario, p, i = w.scenario, w.p, w.row
    before, after = w.r.previous, w.r.own
    keys = range(scenario.T_k)
    added = bias(scenario, w.h, range(i, i + 1), keys)[0]
    alibi = scenario.stage_settings[STAGE.name].alibi
    if alibi:
        H, slope = scenario.heads, slopes(scenario)[w.h]
        m = fixed(slope, max(p, 4), tiny=True)  # a slope of 1e-9 is not 0.0000
        given = scenario.stage_settings[STAGE.name].slopes is not None
        power = (
            ""
            if given
            else f"2^(−8·{w.h + 1}/{H}) = "
            if math.log2(H).is_integer()
            else "(the paper's rule for H not a power of two) = "
        )
        w.add(
            ("slope of ", ""),
            (f"head {w.h + 1} of {H}", "token"),
            (f": m = {power}", ""),
            (m, "result"),
            (" (given in the file)" if given else "", "note"),
        )
        w.note(
            "ALiBi adds −m × distance: the further a key is from the query, the lower its score."
        )
        farthest = max(i, scenario.T_k - 1 - i)
        if slope * farthest < SMALL:
            w.note(
                f"A slope of {m} moves no score of this row by more than "
                f"{fixed(slope * farthest, max(p, 4), tiny=True)}: too small to matter "
                f"at T = {scenario.T_k}. The paper's slopes are made for thousands "
                "of tokens; alibi: {slope: 1} shows the effect in a short one."
            )
    for k in w.keys():
        if isinstance(k, str):
            w.note(k)
            continue
        if alibi:
            formula = (
                f"{fixed(before[k], p)} + (−{m} × |{i + 1} − {k + 1}|) = "
                f"{fixed(before[k], p)} + ({fixed(added[k], p)})"
            )
        else:
            formula = f"{fixed(before[k], p)} + ({fixed(added[k], p)})"
        w.add(
            (f"({w.query}, {w.keys_labels[k]}): ", "token"),
            (formula, "number"),
            (" = ", ""),
            (fixed(after[k], p), "result"),
            selected=k == w.col,
        )
    w.add(("biased scores: ", ""), (w.vector(after, p), "result"))
    return "add the bias" if not alibi else f"penalise distance (ALiBi, slope {m})"


def largest(scenario) -> float:
    """The most the bias adds to a scaled score: its largest |value| as edited (an explicit bias,
    kept among the inputs), else the setting's bound (ALiBi's, below ``core.reading.bias.LIMIT``):
    a scaled score near float64's largest plus a bias of 1e299 would be infinite, and every
    weight of its row NaN."""
    if "bias" in scenario.inputs:
        matrix = scenario.inputs["bias"]
        return max(
            float(matrix.max(initial=0.0)), -float(matrix.min(initial=0.0))
        )  # (no |bias| the size of it)
    setting = scenario.stage_settings.get(STAGE.name)
    return 0.0 if setting is None else float(setting.largest)


def check_edit(scenario, inputs, row: int, col: int, head: int | None, option_sets) -> None:
    """``NumericError`` if an edited cell of an explicit bias leaves its range or makes its
    scaled score plus the bias overflow, under any scale the app can switch to."""
    from attn_tui.core.errors import NumericError
    from attn_tui.core.model.options import Options

    value = float(scenario.inputs["bias"][(row, col) if head is None else (head, row, col)])
    if not abs(value) < reader.LIMIT:
        raise NumericError(
            f"a bias of {value:.3e}: keep every bias below {reader.LIMIT:.0e} (to hide a key, use "
            "mask: or padding:)"
        )
    options = [*option_sets, Options(scale=True), Options(scale=False)]
    for h in range(scenario.heads) if head is None else [head]:
        with np.errstate(over="ignore", invalid="ignore"):
            score = float(inputs.Q(h)[row] @ inputs.K(h)[col])
        for o in options:
            if not math.isfinite(score / o.divisor(scenario.d_k) + value):
                raise NumericError(
                    f"the scaled score ({scenario.row_tokens[row]}, {scenario.tokens[col]}) plus "
                    f"its bias {value:.3e} overflows float64; use a smaller bias"
                )


def back_before(w) -> str | None:
    return (
        "The bias is added to the scores: d(score + bias)/d score = 1, "
        "so dS passes through unchanged."
    )


STAGE = Stage(
    name="bias",
    title="Bias",
    key="biased",
    arithmetic=Arithmetic(
        compute=compute,
        reads=(PREVIOUS,),
        columns=KEYS,
    ),
    display=Display(
        heading=heading,
        explain=explain,
        palette="diverging",
        changes=(
            "as the scores: a Q row changes that row, a K row that column; the bias itself is fixed"
        ),
    ),
    turned_on=TurnedOn(
        keys=reader.KEYS,
        read=reader.read,
    ),
    reported=Reported(
        extras=(
            Extra(
                "bias",
                lambda head, rows: bias(
                    head.attention.scenario, head.h, rows, range(head.attention.scenario.T_k)
                ),
            ),
        ),
    ),
    gradient=ChainRule(
        back=lambda w, gradient: gradient,
        derivative=lambda w: 1.0,
        heading=lambda scenario, options: "",
        factor=lambda w, value: "",
        before=back_before,
    ),
    score_range=Adds(
        largest,
        Grows(
            "scaled score plus the bias",
            lambda scenario, options: f"and a bias up to {largest(scenario):.3e}",
        ),
        input="bias",
        edited=check_edit,
    ),
    applies=lambda scenario: STAGE.name in scenario.stage_settings,
)
