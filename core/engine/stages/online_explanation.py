"""The Why pane's walk of one row through Online softmax's key tiles: the query tile the row shares
a pass with, a bar of the tiles done, to come and skipped, each tile's m, correction, l and acc,
the output against the Weighted sum's row, and what the walk holds in memory.
"""

from __future__ import annotations

import math

import numpy as np

from attn_tui.core.engine.stages import softmax as softmax_stage
from attn_tui.core.engine.stages.online_walk import NAME, setting, skipped, tile_count, walk
from attn_tui.core.numbers import fixed, mask_text

BAR = 48  # tiles the bar of the Why pane shows at once


def explain(w) -> str:
    scenario, p, i = w.scenario, w.p, w.row
    tiles = setting(scenario)
    Br, Bc = tiles.queries, tiles.keys
    count = tile_count(scenario)
    title = f"walk {w.query_quoted}'s keys a tile at a time"
    rows = range(i, i + 1)
    masked = w.attention.values(
        w.attention.previous(softmax_stage.STAGE.name), w.h, rows, range(scenario.T_k)
    )
    skip = skipped(w.attention, w.h, rows, range(count))
    V = w.attention.inputs.V(w.h)
    found = walk(masked, V, Bc, skip, with_acc=True)
    current = min(w.col if w.col is not None else count - 1, count - 1)  # (printed: the whole walk)
    first = i - i % Br
    sharing = range(first, min(first + Br, scenario.T))
    # (folded as every list of the Why pane is: a pass of 16,384 rows, or a tile of 16,384 keys,
    # took the app a second a key to write out)
    names = w.fold_lazy(len(sharing), lambda k: f'"{w.query_labels[sharing.start + k]}"', ", ")
    w.add(
        (f"query tile {i // Br + 1} of {math.ceil(scenario.T / Br)}: ", "note"),
        (
            f"rows {sharing.start + 1}–{sharing.stop}"
            if len(sharing) > 1
            else f"row {sharing.start + 1}",
            "token",
        ),
        (
            f" ({names}) share this pass: each key tile of K and V is read once for all of them."
            if len(sharing) > 1
            else f" ({names}) has this pass to itself: "
            "each key tile of K and V is read for it alone.",
            "note",
        ),
    )
    # in the app a line's worth of the bar, around the current tile (1,024 tiles wrapped over a
    # dozen lines); --print, which folds nothing, the whole bar
    start = 0 if w.fold is None else max(0, min(current - BAR // 2, count - BAR))
    shown = range(start, count if w.fold is None else min(count, start + BAR))
    bar = (
        ("…" if shown.start else "")
        + "".join("·" if skip[0, t] else "■" if t <= current else "□" for t in shown)
        + ("…" if shown.stop < count else "")
    )
    w.add(
        ("key tiles: ", ""),
        (bar, "bar"),
        (f"  tile {current + 1} of {count}: ■ done, □ to come, · skipped", "note"),
    )
    decimals = max(p, 3)
    for t in w.fold_around(count, current, "tile"):
        if isinstance(t, str):
            w.note(t)
            continue
        keys = range(t * Bc, min(scenario.T_k, (t + 1) * Bc))
        which = (
            f"tile {t + 1} (keys {keys.start + 1}–{keys.stop})"
            if len(keys) > 1
            else f"tile {t + 1} (key {keys.start + 1})"
        )
        selected = t == current
        if t > current:  # the walk so far: what the bar calls done, no further
            if skip[0, t]:  # (known before the walk reads anything: the bar marks it already)
                w.add(
                    (which, "token"),
                    (
                        ": · to be skipped — every key in it is hidden from every row of the "
                        "pass, so the walk will not read it",
                        "masked",
                    ),
                )
            else:
                w.add((which, "token"), (": □ to come (] walks on to it)", "note"))
            continue
        if skip[0, t]:
            w.add(
                (which, "token"),
                (
                    ": skipped — every key in it is hidden from every row of the pass, so it is "
                    "never read; m, l and acc stay as they were",
                    "masked",
                ),
                selected=selected,
            )
            continue
        if math.isnan(found["tile_max"][0, t]):
            w.add(
                (which, "token"),
                (
                    f": nothing in it is visible to {w.query_quoted}: m, l and acc stay as "
                    "they were",
                    "masked",
                ),
                selected=selected,
            )
            continue
        s = masked[0, keys.start : keys.stop]
        m_old = found["m"][0, t - 1] if t else -math.inf
        l_old = found["l"][0, t - 1] if t else 0.0
        m_new, l_new = found["m"][0, t], found["l"][0, t]
        correction = found["correction"][0, t]
        scores = w.fold_lazy(
            len(s), lambda k: mask_text(s[k]) if math.isinf(s[k]) else fixed(float(s[k]), p), ", "
        )
        w.add(
            (which, "token"),
            (f": scores [{scores}], tile max {fixed(float(found['tile_max'][0, t]), p)}", "number"),
            selected=selected,
        )
        if math.isnan(correction):  # the first tile it sees anything of
            w.add(
                ("  m = ", ""),
                (fixed(float(m_new), p), "result"),
                (" (the first visible keys: nothing to correct)", "note"),
                selected=selected,
            )
            w.add(
                ("  l = Σ exp(s − m) = ", ""),
                (fixed(float(l_new), decimals, True), "result"),
                selected=selected,
            )
        else:
            w.add(
                ("  m = max(", ""),
                (f"{fixed(float(m_old), p)}, {fixed(float(found['tile_max'][0, t]), p)}", "number"),
                (") = ", ""),
                (fixed(float(m_new), p), "result"),
                selected=selected,
            )
            w.add(
                ("  correction = exp(m_old − m_new) = ", ""),
                (f"exp({fixed(float(m_old), p)} − {fixed(float(m_new), p)})", "number"),
                (" = ", ""),
                (fixed(float(correction), decimals, True), "result"),
                selected=selected,
            )
            w.add(
                ("  l = l_old·correction + Σ exp(s − m) = ", ""),
                (
                    f"{fixed(float(l_old), decimals, True)} × "
                    f"{fixed(float(correction), decimals, True)} + "
                    f"{fixed(float(l_new - l_old * correction), decimals, True)}",
                    "number",
                ),
                (" = ", ""),
                (fixed(float(l_new), decimals, True), "result"),
                selected=selected,
            )
        w.add(
            ("  acc = ", ""),
            (w.vector(found["acc"][0, t], decimals, True), "result"),
            selected=selected,
        )
    if current < count - 1:
        w.add(
            (
                "output: acc / l once the last tile is read "
                f"({count - current - 1} to come; ] walks on)",
                "note",
            )
        )
    elif math.isnan(found["output"][0, 0]):
        w.add(
            (
                f"{w.query_quoted} sees no key at all: l stays 0, "
                "and there is no output (nothing to attend to).",
                "masked",
            )
        )
    elif w.attention.empty(rows)[0]:  # a finite mask value: the walk read the hidden keys' scores
        w.add(
            (
                f"{w.query_quoted} sees no key at all: every key is hidden, so attention "
                "gives it no output (nothing to attend to). The walk above took the "
                f"mask value {mask_text(w.options.mask_value)} for a score, as a "
                "kernel would: its acc / l only averages the values of hidden keys.",
                "masked",
            )
        )
    else:
        output = found["output"][0]
        standard = w.attention.values(w.attention.previous(NAME), w.h, rows, range(scenario.d_v))[0]
        w.add(("output = acc / l = ", ""), (w.vector(output, p), "result"))
        w.add(
            ("the Weighted sum's row:  ", ""),
            (w.vector(standard, p), "number"),
            (f"   largest difference {float(np.abs(output - standard).max()):.1e}", "note"),
        )
    held = scenario.T * scenario.T_k
    tile = Br * Bc + Br * (2 + scenario.d_v)
    read = Br * scenario.d_k + Bc * (scenario.d_k + scenario.d_v)
    at_scale = 16_384 * 16_384
    w.note(
        f"Memory: the standard path holds every score at once, T_q × T_k = {held:,} numbers "
        f"here ({at_scale:,} at T = 16,384); the online path holds one tile, "
        f"Br × Bc = {Br * Bc:,} scores, and m, l and acc for the pass's rows, "
        f"Br × (2 + d_v) = {Br * (2 + scenario.d_v):,}: {tile:,} numbers, whatever T is, "
        f"beside the tiles of Q, K and V it reads, Br × d_k + Bc × (d_k + d_v) = {read:,}."
    )
    return title
