"""Step: Online softmax — the same weights and output, computed as FlashAttention does (Dao et
al. 2022, Algorithm 1; Milakov & Gimelshein's online softmax): a row's keys are read a tile of
Bc at a time, and the row keeps only its running max m, its running sum l and its unnormalised
output acc. For each tile:

    m_new = max(m_old, tile max)          correction = exp(m_old − m_new)
    l_new = l_old·correction + Σ exp(s − m_new)
    acc_new = acc_old·correction + Σ exp(s − m_new)·v

and at the end output = acc / l, which is the Weighted sum's row. Under a causal mask (any
mask, with −∞), a tile whose every key is hidden from every row of the query tile (Br rows that
share a pass) is skipped, never read: the reason FlashAttention is faster on causal models. A
tile a row sees nothing of leaves its m, l and acc as they were. The matrix shows each row's
running max after each tile; ``[``/``]`` move a tile at a time, and the Why pane walks the row.
Its key is read by ``core.reading.tiles``.
"""

from __future__ import annotations

import math

import numpy as np

from attn_tui.core.engine.stages import PREVIOUS, TILES, Extra, Stage, Toggle
from attn_tui.core.engine.stages import softmax as softmax_stage
from attn_tui.core.engine.stages.contract import AFTER_THE_MASK, BRANCH
from attn_tui.core.numbers import fixed, mask_text
from attn_tui.core.reading import tiles as reader


def switch(scenario, setting: reader.TilesSetting | None):
    """The edit that walks the keys in these tiles (None: off); ``NotApplicable`` for tiles too
    small for the scenario's keys or beyond what a file may say (a lesson that shows the step
    keeps it: ``Session.apply`` refuses turning it off)."""
    from attn_tui.core.errors import NotApplicable
    from attn_tui.core.model.edits import SetStageSetting

    if setting is not None:
        problem = reader.out_of_bounds(setting.queries, setting.keys) or reader.tiles_for(
            scenario.T_k, setting.keys
        )
        if problem:
            raise NotApplicable(problem[0].upper() + problem[1:])
    return SetStageSetting(STAGE.name, setting, scenario.stage_settings.get(STAGE.name))


def tiled(scenario, queries: int | None, keys: int | None = None):
    """The edit to tiles of ``queries`` rows a pass and ``keys`` keys a tile (None: off)."""
    return switch(scenario, None if queries is None else reader.TilesSetting(queries, keys))


def parse(text: str) -> reader.TilesSetting:
    """``--tiles Br,Bc`` (or ``Br×Bc``) as tiles; ValueError says the form."""
    sizes = text.replace("×", ",").replace("x", ",").split(",")
    if len(sizes) != 2 or not all(
        size.strip().isascii() and size.strip().isdigit() and int(size) > 0 for size in sizes
    ):
        raise ValueError(
            "give two whole numbers, Br,Bc (query rows a pass, keys a tile), e.g. --tiles 2,4"
        )
    return reader.TilesSetting(int(sizes[0]), int(sizes[1]))


def tile_sizes(T_k: int) -> list[int]:
    """Tile sizes to offer: powers of two below the number of keys, as few as make the walk
    visible (a class's T = 8 gets 2 and 4; a long sequence 64 and 128, FlashAttention's)."""
    sizes = [2**n for n in range(1, 8) if 2**n < T_k and reader.tiles_for(T_k, 2**n) is None]
    return sizes[-4:] or [1]


def offers(scenario) -> tuple[tuple[str, str, reader.TilesSetting | None], ...]:
    """The palette's entries: tiles of each size worth seeing, and off when the step is on."""
    found = tuple(
        (
            f"Online softmax: tiles of {size}",
            f"FlashAttention's walk, {size} keys a tile and {size} query rows a pass",
            reader.TilesSetting(size, size),
        )
        for size in tile_sizes(scenario.T_k)
    )
    if STAGE.name in scenario.stage_settings:
        found += (("Online softmax off", "the step goes", None),)
    return found


def setting(scenario) -> reader.TilesSetting:
    return scenario.stage_settings[STAGE.name]


def tile_count(scenario) -> int:
    return math.ceil(scenario.T_k / setting(scenario).keys)


def labels(scenario) -> tuple[str, ...]:
    """``k1–4``, ``k5–8``, …: the keys of each tile (``k9`` for a tile of one)."""
    Bc, T_k = setting(scenario).keys, scenario.T_k
    return tuple(
        f"k{start + 1}" + (f"–{min(T_k, start + Bc)}" if min(T_k, start + Bc) > start + 1 else "")
        for start in range(0, T_k, Bc)
    )


def skipped(attention, h: int, rows: range, cols: range) -> np.ndarray:
    """Per row and key tile: skipped, because every key of the tile is hidden (by −∞) from every
    row of the row's query tile. With a finite mask value nothing is skipped: its hidden keys
    still take a little weight, which a skipped tile would drop."""
    scenario = attention.scenario
    out = np.zeros((len(rows), len(cols)), bool)
    if not math.isinf(attention.options.mask_value) or not attention.visibility.rules:
        return out
    Br, Bc = setting(scenario).queries, setting(scenario).keys
    for first in range(rows.start - rows.start % Br, rows.stop, Br):
        tile_rows = range(first, min(first + Br, scenario.T))
        unseen = ~attention.visibility.seen_by_any(tile_rows, scenario.T_k)
        padded = np.pad(unseen, (0, -scenario.T_k % Bc), constant_values=True)
        hidden = padded.reshape(-1, Bc).all(axis=1)[cols.start : cols.stop]
        inside = range(max(first, rows.start), min(first + Br, rows.stop))
        out[inside.start - rows.start : inside.stop - rows.start] = hidden
    return out


def walk(
    masked: np.ndarray, V: np.ndarray, Bc: int, skip: np.ndarray, with_acc: bool = False
) -> dict:
    """The online softmax of rows of masked scores (−∞ where hidden) over V, tile by tile, as
    the recurrence runs: each row's tile max, and m, l, correction (NaN where there is none: a
    skipped tile, one it sees nothing of, the first it sees anything of) after every tile; acc
    after every tile with ``with_acc``; and the output acc / l (NaN for a row that sees nothing)."""
    rows, T_k = masked.shape
    count = skip.shape[1]
    m = np.full(rows, -np.inf)
    l = np.zeros(rows)
    acc = np.zeros((rows, V.shape[1]))
    found = {name: np.full((rows, count), np.nan) for name in ("tile_max", "m", "l", "correction")}
    accs = np.zeros((rows, count, V.shape[1])) if with_acc else None
    with np.errstate(invalid="ignore", over="ignore", under="ignore"):
        for t in range(count):
            keys = slice(t * Bc, min(T_k, (t + 1) * Bc))
            s = masked[:, keys]
            seen = np.isfinite(s) & ~skip[:, t : t + 1]
            sees = seen.any(axis=1)
            tile_max = np.where(seen, s, -np.inf).max(axis=1)
            m_new = np.where(sees, np.maximum(m, tile_max), m)
            first = sees & np.isinf(m)
            correction = np.where(sees & ~first, np.exp(m - m_new), np.nan)
            keep = np.where(sees & ~first, correction, np.where(first, 0.0, 1.0))
            p = np.where(seen, np.exp(s - m_new[:, None]), 0.0)
            l = np.where(sees, l * keep + p.sum(axis=1), l)
            acc = np.where(sees[:, None], acc * keep[:, None] + p @ V[keys], acc)
            m = m_new
            found["tile_max"][:, t] = np.where(sees, tile_max, np.nan)
            found["m"][:, t] = m
            found["l"][:, t] = l
            found["correction"][:, t] = correction
            if with_acc:
                accs[:, t] = acc
        found["output"] = np.where((l > 0)[:, None], acc / np.where(l > 0, l, 1.0)[:, None], np.nan)
    if with_acc:
        found["acc"] = accs
    return found


def _inputs(w) -> tuple[np.ndarray, np.ndarray]:
    """The masked scores softmax reads, for the window's rows and every key; and the skips."""
    attention = w.attention
    every = range(w.scenario.T_k)
    masked = w.read(attention.previous(softmax_stage.STAGE.name), every)
    return masked, skipped(attention, w.head, w.rows, range(tile_count(w.scenario)))


def statistics(w) -> dict[str, np.ndarray]:
    masked, skip = _inputs(w)
    return walk(masked, w.input("V"), setting(w.scenario).keys, skip)


def compute(w) -> np.ndarray:
    """Each row's running max m after each tile (−∞ before its first visible key)."""
    return w.statistics()["m"][:, w.cols.start : w.cols.stop].copy()


def json_rows(head, rows: range) -> list:
    """Per row, per tile: {keys, skipped, tile_max, m, l, correction, acc} after the tile."""
    attention = head.attention
    scenario = attention.scenario
    every = range(scenario.T_k)
    masked = attention.values(attention.previous(softmax_stage.STAGE.name), head.h, rows, every)
    skip = skipped(attention, head.h, rows, range(tile_count(scenario)))
    Bc = setting(scenario).keys
    found = walk(masked, head.V, Bc, skip, with_acc=True)

    def number(value) -> float | None:
        return None if not np.isfinite(value) else float(value)

    return [
        [
            {
                "keys": [t * Bc, min(scenario.T_k, (t + 1) * Bc)],
                "skipped": bool(skip[i, t]),
                "tile_max": number(found["tile_max"][i, t]),
                "m": number(found["m"][i, t]),
                "l": float(found["l"][i, t]),
                "correction": number(found["correction"][i, t]),
                "acc": found["acc"][i, t].tolist(),
            }
            for t in range(skip.shape[1])
        ]
        for i in range(len(rows))
    ]


def heading(scenario, options) -> str:
    tiles = setting(scenario)
    return (
        f"m after each tile of {tiles.keys} keys ({tiles.queries} query row"
        f"{'s' if tiles.queries > 1 else ''} a pass)"
    )


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
            else f" ({names}) has this pass to itself: each key tile of K and V is read for it alone.",
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
                    f"{fixed(float(l_old), decimals, True)} × {fixed(float(correction), decimals, True)} + "
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
                f"output: acc / l once the last tile is read ({count - current - 1} to come; ] walks on)",
                "note",
            )
        )
    elif math.isnan(found["output"][0, 0]):
        w.add(
            (
                f"{w.query_quoted} sees no key at all: l stays 0, and there is no output (nothing to attend to).",
                "masked",
            )
        )
    elif w.attention.empty(rows)[0]:  # a finite mask value: the walk read the hidden keys' scores
        w.add(
            (
                f"{w.query_quoted} sees no key at all: every key is hidden, so attention gives it no output "
                f"(nothing to attend to). The walk above took the mask value {mask_text(w.options.mask_value)} "
                "for a score, as a kernel would: its acc / l only averages the values of hidden keys.",
                "masked",
            )
        )
    else:
        output = found["output"][0]
        standard = w.attention.values(
            w.attention.previous(STAGE.name), w.h, rows, range(scenario.d_v)
        )[0]
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
        f"Memory: the standard path holds every score at once, T_q × T_k = {held:,} numbers here "
        f"({at_scale:,} at T = 16,384); the online path holds one tile, Br × Bc = {Br * Bc:,} scores, and "
        f"m, l and acc for the pass's rows, Br × (2 + d_v) = {Br * (2 + scenario.d_v):,}: {tile:,} numbers, "
        f"whatever T is, beside the tiles of Q, K and V it reads, Br × d_k + Bc × (d_k + d_v) = {read:,}."
    )
    return title


STAGE = Stage(
    name="online",
    title="Online softmax",
    key="online",
    reads=(PREVIOUS, "V"),
    changes="a Q row changes that row; a K or V row every row that sees it",
    columns=TILES,
    palette="diverging",
    heading=heading,
    compute=compute,
    explain=explain,
    row_wide=True,
    statistics=statistics,
    empty_rows=True,
    predictable=False,
    branch=True,
    skipped=lambda attention, h, rows, cols: skipped(attention, h, rows, cols),
    labels=labels,
    span=lambda scenario: setting(scenario).keys,
    json_rows=json_rows,
    extras=(
        Extra(
            "online_output",
            lambda head, rows: head.statistics(STAGE.name, rows)["output"],
            empty_rows=True,
        ),
    ),
    applies=lambda scenario: STAGE.name in scenario.stage_settings,
    scenario_keys=reader.KEYS,
    read=reader.read,
    gradient=BRANCH,
    score_range=AFTER_THE_MASK,
    toggle=Toggle(
        "--tiles",
        "add the Online softmax step: FlashAttention's walk, Bc keys a tile and Br query "
        "rows a pass (as the scenario's tiles: {queries: Br, keys: Bc})",
        switch=switch,
        offers=offers,
        value="Br,Bc",
        parse=parse,
    ),
)
