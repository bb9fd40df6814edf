"""The model view as a figure: a model index's layers × heads, each head a thumbnail of its
weights (block means, as the app's model view draws them) with the pattern that says most of it
under it ("previous 0.965"), so a slide shows where the previous-token and induction heads are.

The work is the ``heads`` command's (every head's weights, a band of rows at a time, once for
the scores and the thumbnails both), refused up front by the index's work estimate when it would
take more than about 20 s; each thumbnail is at most THUMB × THUMB blocks, fewer when the grid
is large, so that the file stays small (a grid of 12 × 12 heads is about 20,000 cells).
"""

from __future__ import annotations

import math

from attn_tui.core.engine.attention import Attention
from attn_tui.core.loading.model_index import ModelIndex, check_work, load_layer
from attn_tui.core.model.scenario import Scenario
from attn_tui.core.outputs.figures import colour_maps
from attn_tui.core.outputs.figures.svg import Svg
from attn_tui.core.teaching.overview import BlockMeans
from attn_tui.core.teaching.patterns import PATTERNS, scenario_scores

THUMB = 24  # blocks a side of a thumbnail, at most
CELLS = 40_000  # blocks in the whole figure, at most (THUMB shrinks to keep to it)
SIDE = 96.0  # a thumbnail's side, in user units
GAP, LABEL = 14.0, 70.0
MIN_WIDTH = 640  # the figure's width at least (its title and caption fit it)
LOCAL_MORE = 0.2  # how much more "local" must score than the best one-key pattern to be named


def model_view_figure(index: ModelIndex | None, scenario: Scenario | None = None) -> str:
    """The SVG of every layer of ``index`` (or of the one ``scenario``, as layer —)."""
    if index is not None:
        check_work(index)
        layers = [(entry.layer, lambda entry=entry: load_layer(entry)) for entry in index.layers]
        title = f"Model view: {index.title}" if index.title else "Model view"
    else:
        layers = [(None, lambda: scenario)]
        title = f"Heads: {scenario.title}"
    svg = Svg(
        0, 0, title
    )  # (its size once every layer is drawn: a layer is loaded, drawn and let go)
    svg.text(12, 24, title, size=18, longest=MIN_WIDTH // 11, font_weight="bold")
    svg.text(
        12,
        44,
        "each head: its weights in blocks (query rows down, keys across), dark 0 … yellow 1; "
        "under it, the pattern it follows most",
        size=10,
        longest=200,
    )
    widest = 1
    for number, (layer, load) in enumerate(layers):
        found = load()
        widest = max(widest, found.heads)
        blocks = max(4, min(THUMB, int(math.sqrt(CELLS / (len(layers) * found.heads)))))
        attention = Attention(found)
        thumbs = [BlockMeans(found.T, found.T_k, blocks, blocks) for _ in range(found.heads)]
        scores = scenario_scores(
            found,
            layer,
            attention,  # (one pass over the weights: both)
            also=lambda h, start, weights: thumbs[h].add(start, weights),
        )
        y = 70 + number * (SIDE + GAP + 18)
        svg.text(12, y + SIDE / 2 + 4, "layer —" if layer is None else f"layer {layer}", size=12)
        for h in range(found.heads):
            x = LABEL + h * (SIDE + GAP)
            small = thumbs[h].result()
            rows, cols = small.shape
            fills = colour_maps.colours(colour_maps.positions(small, "weights", 1.0), "weights")
            cell_h, cell_w = SIDE / rows, SIDE / cols
            svg.raw('<g shape-rendering="crispEdges">')  # (no seams between a thumbnail's cells)
            for i in range(rows):
                for j in range(cols):
                    svg.rect(
                        x + j * cell_w,
                        y + i * cell_h,
                        cell_w + 0.05,
                        cell_h + 0.05,
                        str(fills[i, j]),
                    )
            svg.raw("</g>")
            svg.rect(
                x,
                y,
                SIDE,
                SIDE,
                "none",
                stroke="#000000",
                stroke_width="0.5",
                class_="head",
                data_layer="" if layer is None else str(layer),
                data_head=str(h),
            )
            svg.text(x, y - 3, found.head_names[h], size=10, longest=18)
            best = _best(scores[h].scores)
            svg.text(
                x,
                y + SIDE + 13,
                "—" if best is None else f"{best[0]} {best[1]:.3f}",
                size=10,
                mono=True,
                class_="score",
            )
    svg.width = max(MIN_WIDTH, LABEL + widest * (SIDE + GAP) + 20)
    svg.height = 70 + len(layers) * (SIDE + GAP + 18) + 20
    return svg.document()


def _best(scores: dict[str, float | None]) -> tuple[str, float] | None:
    """The pattern that says most of the head: the highest of the patterns of one key
    (previous, first, self, induction; the first of equals); "local", which holds previous and
    self within it, only when it is higher than all of them by more than LOCAL_MORE (weight spread
    over the nearby keys, not on one). None when no pattern applies."""
    given = [
        (name, scores[name]) for name in PATTERNS if name != "local" and scores[name] is not None
    ]
    best = max(given, key=lambda pair: pair[1]) if given else None
    local = scores.get("local")
    if local is not None and (best is None or local > best[1] + LOCAL_MORE):
        return ("local", local)
    return best
