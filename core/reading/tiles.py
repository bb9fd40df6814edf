"""The Online softmax stage's key: ``tiles: {queries: Br, keys: Bc}`` — the tiles FlashAttention
walks: Br query rows share a pass, which reads the keys Bc at a time (``--tiles Br,Bc`` on the
command line; the app's palette sets them too)."""

from __future__ import annotations

import math
from dataclasses import dataclass

from attn_tui.core.files.yaml_numbers import describe_scalar, kind_of, located, whole_number
from attn_tui.core.files.yaml_source import Mapping, Scalar, deref
from attn_tui.core.limits import MAX_T
from attn_tui.core.reading.keys import Entry, check_keys, entries

KEYS = ("tiles",)
TILE_KEYS = ("queries", "keys")
MAX_TILES = 1024  # key tiles a row walks through, at most: each is a step of the walk


@dataclass(frozen=True)
class TilesSetting:
    """Br (query rows per pass) and Bc (keys per tile)."""

    queries: int
    keys: int

    def describe(self) -> str:
        return f"tiles {self.queries}×{self.keys}"

    def yaml(self, matrix) -> str:
        return f"tiles: {{queries: {self.queries}, keys: {self.keys}}}\n"

    def of_head(self, h: int, heads: int) -> TilesSetting:
        return self


def tiles_for(T_k: int, keys: int) -> str | None:
    """Why ``keys`` per tile does not do for ``T_k`` keys, or None."""
    count = math.ceil(T_k / keys)
    if count > MAX_TILES:
        return (
            f"{T_k:,} keys in tiles of {keys} make {count:,} tiles; at most {MAX_TILES:,} "
            f"(tiles of at least {math.ceil(T_k / MAX_TILES)} keys)"
        )
    return None


def out_of_bounds(queries: int, keys: int) -> str | None:
    """Why tiles of ``queries`` rows and ``keys`` keys are not ones a file may say, or None (the
    bounds ``tiles:`` is read with, for the command line's and the app's tiles too)."""
    for what, size in (("query rows a pass", queries), ("keys a tile", keys)):
        if not 1 <= size <= MAX_T:
            return f"{size:,} {what}: tiles take from 1 to {MAX_T:,}"
    return None


def read(files, top: dict[str, Entry], plan) -> TilesSetting:
    node = top["tiles"].value
    if not isinstance(deref(node), Mapping):
        value = deref(node)
        shown = describe_scalar(value) if isinstance(value, Scalar) else kind_of(value)
        raise located(
            node,
            f"tiles must be a mapping {{queries: Br, keys: Bc}} (Br query rows share a pass, "
            f"which reads the keys Bc at a time), not {shown}; e.g. tiles: {{queries: 2, keys: 4}}",
        )
    found = entries(node, "tiles")
    check_keys(found, TILE_KEYS, "tiles")
    for key in TILE_KEYS:
        if key not in found:
            raise located(
                node,
                f"tiles needs {key} (tiles: {{queries: 2, keys: 4}}: Br query rows share a "
                "pass, which reads the keys Bc at a time)",
            )
    queries = whole_number(found["queries"].value, "tiles queries", 1, MAX_T)
    keys = whole_number(found["keys"].value, "tiles keys", 1, MAX_T)
    problem = tiles_for(plan.T_k, keys)
    if problem:
        raise located(found["keys"].value, f"tiles: {problem}")
    return TilesSetting(queries, keys)
