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
Its key is read by ``core.reading.tiles``; the walk itself is ``core.engine.stages.online_walk``,
and the Why pane's words for it ``core.engine.stages.online_explanation``.
"""

from __future__ import annotations

import numpy as np

from attn_tui.core.engine.stages import (
    PREVIOUS,
    TILES,
    Arithmetic,
    Display,
    Extra,
    Reported,
    Stage,
    Teaching,
    Toggle,
    TurnedOn,
)
from attn_tui.core.engine.stages import softmax as softmax_stage
from attn_tui.core.engine.stages.contract import AFTER_THE_MASK, BRANCH
from attn_tui.core.engine.stages.online_explanation import explain
from attn_tui.core.engine.stages.online_walk import NAME, setting, skipped, tile_count, walk
from attn_tui.core.reading import tiles as reader

# (its running max and sum start from no column: a learned sink would be one more)
NO_SINKS = "the online softmax here has no sink column: not with learned sinks (sinks:)"


def switch(scenario, setting: reader.TilesSetting | None):
    """The edit that walks the keys in these tiles (None: off); ``NotApplicable`` for tiles too
    small for the scenario's keys or beyond what a file may say (a lesson that shows the step
    keeps it: ``Session.apply`` refuses turning it off)."""
    from attn_tui.core.errors import NotApplicable
    from attn_tui.core.model.edits import SetStageSetting

    if setting is not None:
        problem = (
            NO_SINKS
            if "softmax" in scenario.stage_settings
            else reader.out_of_bounds(setting.queries, setting.keys)
            or reader.tiles_for(scenario.T_k, setting.keys)
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


def labels(scenario) -> tuple[str, ...]:
    """``k1–4``, ``k5–8``, …: the keys of each tile (``k9`` for a tile of one)."""
    Bc, T_k = setting(scenario).keys, scenario.T_k
    return tuple(
        f"k{start + 1}" + (f"–{min(T_k, start + Bc)}" if min(T_k, start + Bc) > start + 1 else "")
        for start in range(0, T_k, Bc)
    )


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


STAGE = Stage(
    name=NAME,
    title="Online softmax",
    key="online",
    arithmetic=Arithmetic(
        compute=compute,
        reads=(PREVIOUS, "V"),
        columns=TILES,
        row_wide=True,
        statistics=statistics,
        empty_rows=True,
        skipped=lambda attention, h, rows, cols: skipped(attention, h, rows, cols),
        branch=True,
        labels=labels,
        span=lambda scenario: setting(scenario).keys,
    ),
    display=Display(
        heading=heading,
        explain=explain,
        palette="diverging",
        changes="a Q row changes that row; a K or V row every row that sees it",
    ),
    turned_on=TurnedOn(
        keys=reader.KEYS,
        read=reader.read,
        toggle=Toggle(
            "--tiles",
            "add the Online softmax step: FlashAttention's walk, Bc keys a tile and Br query "
            "rows a pass (as the scenario's tiles: {queries: Br, keys: Bc})",
            switch=switch,
            offers=offers,
            value="Br,Bc",
            parse=parse,
        ),
    ),
    reported=Reported(
        extras=(
            Extra(
                "online_output",
                lambda head, rows: head.statistics(STAGE.name, rows)["output"],
                empty_rows=True,
            ),
        ),
        json_rows=json_rows,
    ),
    teaching=Teaching(
        predictable=False,
    ),
    gradient=BRANCH,
    score_range=AFTER_THE_MASK,
    applies=lambda scenario: STAGE.name in scenario.stage_settings,
)
