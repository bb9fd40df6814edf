"""Step: Decode — the sequence replayed as a decoder generates it, with a KV cache. At step t
only token t's query is new; the keys and values of tokens 1 … t sit in the cache (with a
window of w, only the last w: a rolling buffer, as Mistral keeps), and the row's scores,
softmax and output are computed against the cache alone. Row t equals row t of the whole causal
computation, which the Why pane shows with the difference; and the cache's size at t, in
float64 and float16, with what grouped-query attention saves. Its key is read by
``core.reading.decode``.
"""

from __future__ import annotations

import math

import numpy as np

from attn_tui.core.engine.stages import (
    KEYS,
    PREVIOUS,
    Arithmetic,
    Display,
    Reported,
    Stage,
    Teaching,
    Toggle,
    TurnedOn,
)
from attn_tui.core.engine.stages import softmax as softmax_stage
from attn_tui.core.engine.stages.contract import AFTER_THE_MASK, BRANCH
from attn_tui.core.numbers import fixed, mask_text
from attn_tui.core.reading import decode as reader
from attn_tui.core.text import visible


def switch(scenario, setting):
    """The edit that turns decoding on (``setting``) or off (None); ``NotApplicable`` where a
    decoder could not replay the scenario."""
    from attn_tui.core.errors import NotApplicable
    from attn_tui.core.model.edits import SetStageSetting

    problem = unavailable(scenario) if setting is not None else None
    if problem:
        raise NotApplicable(problem[0].upper() + problem[1:])
    return SetStageSetting(STAGE.name, setting, scenario.stage_settings.get(STAGE.name))


def unavailable(scenario) -> str | None:
    """Why a decoder could not replay this scenario (nor its variants), or None."""
    if "softmax" in scenario.stage_settings:
        return "the decoder here has no sink column: not with learned sinks (sinks:)"
    if "mask" in scenario.stage_settings:
        return "the decoder here keeps one cache, not one a chunk: not with chunk:"
    problem = reader.refusal(
        scenario.cross, scenario.T, scenario.T_k, scenario.options.causal, scenario.window
    )
    for variant in scenario.variants:
        if not problem and variant.causal is False:
            problem = reader.refusal(False, scenario.T, scenario.T_k, False, scenario.window)
            problem = (
                problem and f"the variant {visible(variant.name)} has no causal mask, and {problem}"
            )
    return problem


def offers(scenario) -> tuple[tuple[str, str, object], ...]:
    """The palette's entry: decoding on, or off."""
    if STAGE.name in scenario.stage_settings:
        return (("Decoding off", "the Decode step goes", None),)
    return (
        ("Decode with a KV cache", "one query at a time, K and V growing", reader.DecodeSetting()),
    )


def cache(scenario, t: int) -> range:
    """The positions whose keys and values are in the cache when token ``t`` is generated."""
    window = scenario.window
    return range(max(0, t - window + 1) if window is not None else 0, t + 1)


def _step(
    attention, h: int, t: int, output: bool = True
) -> tuple[range, np.ndarray, np.ndarray | None]:
    """The cache at step ``t`` and, computed against it alone, the row's weights and output;
    a step that sees nothing (every key in its cache hidden) has weights of 0 and no output, as
    its row of the whole computation has none — whatever the mask value, −∞ or a finite one
    whose hidden keys would otherwise share the weight out among themselves. ``output=False``:
    the weights alone (the output, a cache-long product with V, is left out)."""
    cached = cache(attention.scenario, t)
    masked = attention.values(
        attention.previous(softmax_stage.STAGE.name), h, range(t, t + 1), cached
    )
    empty = attention.empty(range(t, t + 1))
    weights = softmax_stage.softmax(masked, empty)[0]
    if empty[0] or not output:
        return cached, weights, None
    V = attention.inputs.V(h)[cached.start : cached.stop]
    normal = np.where(weights < np.finfo(np.float64).tiny, 0.0, weights)
    return cached, weights, normal @ V


def compute(w) -> np.ndarray:
    """A block of steps: each row's weights over the cache (0 for keys not in it)."""
    out = np.zeros((len(w.rows), len(w.cols)))
    for k, t in enumerate(w.rows):
        cached, weights, _ = _step(w.attention, w.head, t, output=False)
        row = np.zeros(w.scenario.T_k)
        row[cached.start : cached.stop] = weights
        out[k] = row[w.cols.start : w.cols.stop]
    return out


def json_rows(head, rows: range) -> list:
    """Per step: {t, cache: [first, last], weights over the cache, output} (positions from 0)."""
    found = []
    for t in rows:
        cached, weights, output = _step(head.attention, head.h, t)
        # a step that sees nothing: null, as its row of weights and output
        seen = output is not None
        found.append(
            {
                "t": t,
                "cache": [cached.start, cached.stop - 1],
                "weights": weights.tolist() if seen else None,
                "output": output.tolist() if seen else None,
            }
        )
    return found


def outside(attention, h: int, rows: range, cols: range) -> np.ndarray:
    """The keys not in the cache at each step: not generated yet, or gone from the window."""
    steps, keys = (
        np.arange(rows.start, rows.stop)[:, None],
        np.arange(cols.start, cols.stop)[None, :],
    )
    window = attention.scenario.window
    first = np.maximum(0, steps - window + 1) if window is not None else 0
    return (keys > steps) | (keys < first)


def context(scenario, t: int) -> range:
    """The rows of K and V that exist at step ``t``: the cache."""
    return cache(scenario, t)


def heading(scenario, options) -> str:
    window = f", the last {scenario.window} kept" if scenario.window is not None else ""
    return f"one query at a time against the KV cache{window}; each row: its weights over the cache"


def _bytes(count: int) -> str:
    for unit, size in (("GB", 1 << 30), ("MB", 1 << 20), ("KB", 1 << 10)):
        if count >= size:
            return f"{count / size:.1f} {unit}"
    return f"{count} bytes"


def explain(w) -> str:
    scenario, p, t = w.scenario, w.p, w.row
    attention = w.attention
    cached, weights, output = _step(attention, w.h, t)
    n = len(cached)
    new = w.query_labels[t]
    title = f'generate "{new}": its query against the cache'
    w.add(
        (f"step {t + 1}: ", "token"),
        (
            f'the query of "{new}" is new; the cache holds the keys and values of '
            f"positions {cached.start + 1}…{cached.stop} ({n} row{'s' if n > 1 else ''}, "
            f"row {t + 1} just added)",
            "note",
        ),
    )
    if scenario.window is not None and cached.start > 0:
        w.note(
            f"With a window of {scenario.window}, the cache keeps only the last {scenario.window} "
            f"rows: a rolling buffer (as Mistral's), positions 1…{cached.start} already dropped."
        )
    masked = attention.values(
        attention.previous(softmax_stage.STAGE.name), w.h, range(t, t + 1), cached
    )[0]
    for k in w.keys():
        if isinstance(k, str):
            w.note(k)
            continue
        if k in cached:
            j = k - cached.start
            w.add(
                (f'("{new}", {w.keys_labels[k]}) in the cache: ', "token"),
                (f"score {w.masked_text(masked[j])}", "number"),
                (" → weight ", ""),
                (fixed(float(weights[j]), p, tiny=False), "result"),
                selected=k == w.col,
            )
        elif k > t:
            w.add(
                (f'"{w.keys_labels[k]}" is not generated yet: not in the cache', "masked"),
                selected=k == w.col,
            )
        else:
            w.add(
                (f'"{w.keys_labels[k]}" has left the cache (the window)', "masked"),
                selected=k == w.col,
            )
    if output is None:
        w.add(
            (
                f'"{new}" sees no key in the cache: nothing to attend to, so no weights '
                "and no output (its row of the whole computation has none either).",
                "masked",
            )
        )
        _cache_size(w, n)
        return title
    w.add(("softmax over the cache: ", ""), (w.vector(weights, p, tiny=False), "result"))
    w.add(("output = weights · V[cache] = ", ""), (w.vector(output, p), "result"))
    full = attention.values(
        attention.previous(STAGE.name), w.h, range(t, t + 1), range(scenario.d_v)
    )[0]
    differs = float(np.abs(output - full).max())
    w.add(
        (f"row {t + 1} of the whole computation: ", ""),
        (w.vector(full, p), "number"),
        (f"   largest difference {differs:.1e}", "note"),
    )
    if differs > 1e-9 and math.isfinite(w.options.mask_value):  # the mask is on, but leaks
        w.add(
            (
                f"They differ: the mask value {mask_text(w.options.mask_value)} "
                "lets the hidden keys take weight in the whole computation, "
                "and a decoder never has the tokens it has not generated yet.",
                "masked",
            )
        )
    elif differs > 1e-9:
        w.add(
            (
                "They differ: without the causal mask, row t of the whole "
                "computation sees tokens a decoder has not generated yet.",
                "masked",
            )
        )
    _cache_size(w, n)
    return title


def _cache_size(w, n: int) -> None:
    """The cache's size at a step of ``n`` positions, and what grouped-query attention saves."""
    scenario = w.scenario
    G, H = scenario.kv_heads, scenario.heads
    numbers = n * G * (scenario.d_k + scenario.d_v)
    w.note(
        f"The cache at this step: K and V of {n} position{'s' if n > 1 else ''} × {G} key/value "
        f"head{'s' if G > 1 else ''} × (d_k + d_v = {scenario.d_k + scenario.d_v}) = {numbers:,} "
        f"numbers: {_bytes(8 * numbers)} in float64, {_bytes(2 * numbers)} in float16."
    )
    if G < H:
        w.note(
            f"Grouped-query attention: {H} query heads share {G} "
            "key/value heads; with one per query head the cache would be "
            f"{_bytes(8 * numbers * H // G)} in float64 — {H // G}× what it is."
        )


STAGE = Stage(
    name="decode",
    title="Decode",
    key="decode",
    arithmetic=Arithmetic(
        compute=compute,
        reads=(PREVIOUS, "V"),
        columns=KEYS,
        whole_rows=True,
        row_wide=True,
        empty_rows=True,
        skipped=outside,
        branch=True,
        context=context,
    ),
    display=Display(
        heading=heading,
        explain=explain,
        palette="weights",
        changes="a Q row changes that step; a K or V row every later step whose cache holds it",
        skipped_text="·",
    ),
    turned_on=TurnedOn(
        keys=reader.KEYS,
        read=reader.read,
        needs_causal=(
            "decodes (decode: true)",
            "decoding",
            "a decoder never sees the tokens after the one it generates",
        ),
        toggle=Toggle(
            "--decode",
            "add the Decode step: one query at a time against a growing KV cache",
            switch=switch,
            offers=offers,
            on=lambda scenario: reader.DecodeSetting(),
            key="d",
            does="decode with a KV cache: one query at a time, K and V growing (again: off)",
            footer="Decode",
            unavailable=unavailable,
        ),
    ),
    reported=Reported(
        json_rows=json_rows,
    ),
    teaching=Teaching(
        predictable=False,
    ),
    gradient=BRANCH,
    score_range=AFTER_THE_MASK,
    applies=lambda scenario: STAGE.name in scenario.stage_settings,
)
