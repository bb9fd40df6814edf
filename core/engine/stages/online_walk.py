"""Online softmax's walk through the key tiles, as FlashAttention runs it: which tiles a pass
skips, and the recurrence of each row's running max m, running sum l and unnormalised output acc
(the step itself, and what it shows, is ``core.engine.stages.online``).
"""

from __future__ import annotations

import math

import numpy as np

from attn_tui.core.reading import tiles as reader

NAME = "online"  # the step's name: its setting is kept under it in ``Scenario.stage_settings``


def setting(scenario) -> reader.TilesSetting:
    return scenario.stage_settings[NAME]


def tile_count(scenario) -> int:
    return math.ceil(scenario.T_k / setting(scenario).keys)


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
