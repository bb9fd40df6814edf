"""Step: QK-norm — each query and key divided by its root mean square and multiplied by a
learned gain before the scores (Qwen3, Gemma 3, OLMo 2, Llama 4), so that no score can grow
with the size of x. Its key is read by ``core.reading.qk_norm``; the arithmetic is
``core.model.qk_norm``'s, applied where each head's queries and keys are made
(``core.model.heads``), so the scores, the rotation and the backward pass all read the normed
ones."""

from __future__ import annotations

import math

import numpy as np

from attn_tui.core.engine.stages import DIMS, Arithmetic, Display, Stage, Teaching, TurnedOn
from attn_tui.core.engine.stages.contract import GradientSteps, Outside
from attn_tui.core.numbers import fixed
from attn_tui.core.reading import qk_norm as reader

NAME = "qk_norm"


def setting(scenario) -> reader.QKNormSetting:
    return scenario.stage_settings[NAME]


def heading(scenario, options) -> str:
    found = setting(scenario)
    return f"q / rms(q) × gain, and k alike ({reader.STYLES[found.style]})"


def compute(w) -> np.ndarray:
    return np.array(
        w.attention.inputs.Q_before_rotation(w.head)[
            w.rows.start : w.rows.stop, w.cols.start : w.cols.stop
        ]
    )


def bound(scenario, kind: str) -> float:
    """The largest ‖q‖ (or ‖k‖) of a head the norm allows, whatever x: √n · max|gain| for the
    n numbers it divides by their root mean square (a head's, or the whole projection's)."""
    found = setting(scenario)
    heads = scenario.heads if kind == "q" else scenario.kv_heads
    width = scenario.d_k * (heads if found.whole else 1)
    return math.sqrt(width) * float(np.max(np.abs(found.gain(kind, width))))


def _one(w, letter: str, i: int, label: str, raw: np.ndarray, normed: np.ndarray) -> None:
    found, p = setting(w.scenario), w.p
    kind = letter
    inputs = w.attention.inputs
    if found.whole:
        which = w.h if kind == "q" else inputs.kv(w.h)
        row = np.concatenate([raws[i] for raws in (inputs.q_raw if kind == "q" else inputs.k_raw)])
        width = len(row)
        first = which * w.scenario.d_k
        gain = found.gain(kind, width)[first : first + w.scenario.d_k]
        over = f"all {width} numbers of {letter}{i + 1}'s projection (every head's)"
    else:
        row = raw
        gain = found.gain(kind, len(raw))
        over = f"the {len(raw)} numbers of this head's {letter}{i + 1}"
    square = float(np.mean(row * row))
    rms = math.sqrt(square + found.eps)
    w.add((f"{letter}{i + 1} ({label}) before the norm = ", "token"), (w.vector(raw, p), "number"))
    w.add(
        (f"  rms over {over} = √(mean of squares + ε) = √({fixed(square, p, True)} + ", ""),
        (f"{found.eps:g}) = ", ""),
        (fixed(rms, max(p, 4), True), "result"),
    )
    weight = found.q_weight if kind == "q" else found.k_weight
    said = {"gemma3": "1 + w", "llama4": "none: 1"}.get(
        found.style, "1, no weight given" if weight is None else "w"
    )
    w.add(
        (f"  {letter}{i + 1} / rms × gain [{said}] = ", ""),
        (f"{w.vector(raw / rms, p, True)} × {w.vector(gain, p, True, nested=True)}", "number"),
        (" = ", ""),
        (w.vector(normed, p), "result"),
    )


def explain(w) -> str:
    scenario, i = w.scenario, w.row
    found = setting(scenario)
    inputs = w.attention.inputs
    w.projected_query()
    _one(w, "q", i, w.query, inputs.Q_projected(w.h)[i], w.r.own)
    if w.col is not None and w.col < scenario.T_k:
        k = w.col
        _one(
            w,
            "k",
            k,
            w.keys_labels[k],
            inputs.K_projected(w.h)[k],
            inputs.K_before_rotation(w.h)[k],
        )
    q_most, k_most = bound(scenario, "q"), bound(scenario, "k")
    divisor = w.attention.divisor
    w.add(
        ("whatever x is: ‖q‖ ≤ ", ""),
        (fixed(q_most, w.p, True), "number"),
        (", ‖k‖ ≤ ", ""),
        (fixed(k_most, w.p, True), "number"),
        (", so |q·k| ≤ ‖q‖·‖k‖ ≤ ", ""),
        (fixed(q_most * k_most, w.p, True), "result"),
        (
            f" (÷ {fixed(divisor, max(w.p, 3))}: ≤ {fixed(q_most * k_most / divisor, w.p, True)})",
            "",
        ),
    )
    w.note(
        "Dividing by the root mean square makes every q the same size (√n numbers of 1 on "
        "average); only the gain can make it longer. Multiply x by 1,000 and the scores do not "
        "move: no softmax runs away, however large the activations grow."
    )
    if found.after_rope:
        w.note(
            "Llama 4 norms after RoPE; a rotation keeps a vector's length, so norming before it, "
            "as shown here, gives the same numbers."
        )
    return f"norm {w.query_quoted}'s query (and key) to a fixed size"


STAGE = Stage(
    name=NAME,
    title="QK-norm",
    key="normed",
    arithmetic=Arithmetic(compute=compute, reads=("Q",), columns=DIMS),
    display=Display(
        heading=heading,
        explain=explain,
        palette="diverging",
        changes="a Q or K row changes its own normed row (with olmo2, every head's)",
    ),
    # (like Rotate's: a head taken alone for a comparison is given its q and k already normed)
    teaching=Teaching(predictable=False),
    gradient=GradientSteps(("d_queries", "d_keys")),  # (each back through the norm)
    score_range=Outside(
        "before the scores: it sets the size of the queries and keys, which the scores' bound "
        "|q·k| ≤ ‖q‖·‖k‖ reads"
    ),
    applies=lambda scenario: NAME in scenario.stage_settings,
    turned_on=TurnedOn(keys=reader.KEYS, read=reader.read),
)
