"""Step: Rotate (RoPE) — turn each pair of a query's and a key's dimensions by an angle that grows
with the token's position, so that a score depends on how far apart two tokens are."""

from __future__ import annotations

import numpy as np

from attn_tui.core.numbers import fixed
from attn_tui.core.stages import DIMS, Stage


def heading(scenario, options) -> str:
    rope = scenario.rope
    return f"queries turned pair by pair (RoPE, base {rope.base:g}, {rope.pairs} pairs)"


def values(attention, h, rows, cols):
    return attention.head(h).Q[rows.start:rows.stop, cols.start:cols.stop]


def explain(w) -> str:
    scenario, p, i = w.scenario, w.p, w.row
    rope = scenario.rope
    inputs = w.attention.inputs
    before_q, after_q = inputs.Q_before_rotation(w.h)[i], inputs.Q(w.h)[i]
    d = len(before_q)
    a, b = rope.pair_indices(d)
    frequencies = rope.frequencies(d)
    w.note(f"Each pair of dimensions turns by θ = position × {rope.base:g}^(−2k/{d}); "
           f"pair k joins d{a[0] + 1} with d{b[0] + 1}, d{a[1] + 1 if d > 2 else b[0] + 1} …")
    vectors = [("q", i, before_q, after_q, w.query)]
    if w.col is not None and w.col < scenario.T_k:
        k = w.col
        vectors.append(("k", k, inputs.K_before_rotation(w.h)[k], inputs.K(w.h)[k], w.keys_labels[k]))
    for letter, position, before, after, label in vectors:
        w.add((f"{letter}{position + 1} ({label}), position {position}:", "token"))
        for pair in w.fold_pairs(len(a)):
            if isinstance(pair, str):
                w.note(pair)
                continue
            theta = position * frequencies[pair]
            x, y = fixed(before[a[pair]], p), fixed(before[b[pair]], p)
            c, s = fixed(np.cos(theta), p), fixed(np.sin(theta), p)
            w.add((f"  θ{pair + 1} = {fixed(theta, p)}: ", "note"),
                  (f"({x}·{c} − {y}·{s}, {y}·{c} + {x}·{s})", "number"), (" = ", ""),
                  (f"({fixed(after[a[pair]], p)}, {fixed(after[b[pair]], p)})", "result"))
    w.note("Scores read the rotated vectors: q·k then depends on the angle between positions, "
           "i.e. on how far apart the two tokens are.")
    return f"rotate {w.query_quoted}'s query (and the key's) by position"


STAGE = Stage(
    name="rotate", title="Rotate", key="rotated", reads=("Q", "K"),
    changes="a Q or K row changes only its own rotated row", columns=DIMS, palette="diverging",
    heading=heading, values=values, explain=explain, applies=lambda scenario: scenario.rope is not None,
    predictable=False)
