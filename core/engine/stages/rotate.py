"""Step: Rotate (RoPE) — turn each pair of a query's and a key's dimensions by an angle that grows
with the token's position, so that a score depends on how far apart two tokens are."""

from __future__ import annotations

import numpy as np

from attn_tui.core.engine.stages import DIMS, Arithmetic, Display, Stage, Teaching
from attn_tui.core.engine.stages.contract import GradientSteps, Outside
from attn_tui.core.numbers import fixed


def heading(scenario, options) -> str:
    rope = scenario.rope
    part = "" if rope.dims is None else f", the first {rope.dims} of {scenario.d_k} dimensions"
    return f"queries turned pair by pair (RoPE, base {rope.base:g}, {rope.pairs} pairs{part})"


def compute(w) -> np.ndarray:
    """The queries as the scores read them, turned (``core.model.heads`` rotates them tile by
    tile)."""
    return np.array(w.input("Q")[w.rows.start : w.rows.stop, w.cols.start : w.cols.stop])


def explain(w) -> str:
    scenario, p, i = w.scenario, w.p, w.row
    rope = scenario.rope
    inputs = w.attention.inputs
    before_q, after_q = inputs.Q_before_rotation(w.h)[i], inputs.Q(w.h)[i]
    d = len(before_q)
    a, b = rope.pair_indices(d)
    frequencies = rope.frequencies(d)
    joins = ", ".join(f"d{a[k] + 1} with d{b[k] + 1}" for k in range(min(2, len(a))))
    w.projected_query()
    r = rope.turned(d)
    w.note(
        f"Each pair of dimensions turns by its own angle: pair k (k = 1 … {len(a)}) turns by "
        f"θk = position × {rope.base:g}^(−2(k−1)/{r}); the pairs join {joins}"
        + (", …" if len(a) > 2 else ".")
    )
    if r < d:
        w.note(
            f"Only the first {r} of the {d} dimensions turn (partial rotary, as GPT-NeoX's); "
            f"d{r + 1} … d{d} pass through unchanged."
        )
    vectors = [("q", i, before_q, after_q, w.query)]
    if w.col is not None and w.col < scenario.T_k:
        k = w.col
        vectors.append(
            ("k", k, inputs.K_before_rotation(w.h)[k], inputs.K(w.h)[k], w.keys_labels[k])
        )
    for letter, position, before, after, label in vectors:
        w.add((f"{letter}{position + 1} ({label}), position {position}:", "token"))
        for pair in w.fold_pairs(len(a)):
            if isinstance(pair, str):
                w.note(pair)
                continue
            theta = position * frequencies[pair]
            x, y = _factor(before[a[pair]], p), _factor(before[b[pair]], p)
            c, s = _factor(np.cos(theta), p), _factor(np.sin(theta), p)
            w.add(
                (f"  θ{pair + 1} = {fixed(theta, p)}: ", "note"),
                (f"({x}·{c} − {y}·{s}, {y}·{c} + {x}·{s})", "number"),
                (" = ", ""),
                (f"({fixed(after[a[pair]], p)}, {fixed(after[b[pair]], p)})", "result"),
            )
    w.note(
        "Scores read the rotated vectors: q·k then depends on the angle between positions, "
        "i.e. on how far apart the two tokens are."
    )
    key = f' and key "{vectors[1][4]}"\'s' if len(vectors) > 1 else ""
    return f"rotate {w.query_quoted}'s query{key} by position"


def _factor(value: float, decimals: int) -> str:
    """A number inside a product: a negative one in parentheses (never "− −0.735")."""
    text = fixed(float(value), decimals)
    return f"({text})" if text.startswith("−") else text


STAGE = Stage(
    name="rotate",
    title="Rotate",
    key="rotated",
    arithmetic=Arithmetic(
        compute=compute,
        reads=("Q",),
        columns=DIMS,
    ),
    display=Display(
        heading=heading,
        explain=explain,
        palette="diverging",
        changes="a Q or K row changes only its own rotated row",
    ),
    teaching=Teaching(
        predictable=False,
    ),
    gradient=GradientSteps(("d_queries", "d_keys")),  # (each turned back by −θ)
    score_range=Outside("before the scores: it turns the queries and keys and keeps their lengths"),
    applies=lambda scenario: scenario.rope is not None,
)
