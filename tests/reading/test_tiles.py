"""core/reading/tiles.py: ``tiles: {queries: Br, keys: Bc}``, the tiles the online softmax walks:
read, bounded (at most 1,024 key tiles a row), and each mistake as one line at its place
(columns counted by hand)."""

from __future__ import annotations

import pytest

from attn_tui.core import ScenarioError, loads
from attn_tui.core.reading.tiles import TilesSetting, out_of_bounds, tiles_for

BASE = "tokens: [a, b]\nQ: [[1, 0], [0, 1]]\nK: [[1, 0], [0, 1]]\nV: [[1, 2], [3, 4]]\n"


def test_tiles_turn_the_online_softmax_on():
    assert "online" not in loads(BASE).stage_settings
    setting = loads(BASE + "tiles: {queries: 1, keys: 2}\n").stage_settings["online"]
    assert setting == TilesSetting(1, 2)
    assert setting.describe() == "tiles 1×2"
    assert setting.yaml(None) == "tiles: {queries: 1, keys: 2}\n"


def test_at_most_1024_key_tiles():
    assert tiles_for(2048, 2) is None  # exactly 1,024
    # 2,049 ÷ 2 → 1,025 tiles; 2,049 ÷ 1,024 → at least 3 keys a tile
    assert tiles_for(2049, 2) == (
        "2,049 keys in tiles of 2 make 1,025 tiles; at most 1,024 (tiles of at least 3 keys)"
    )


def test_the_bounds_a_tile_is_read_with():
    assert out_of_bounds(1, 16384) is None
    assert out_of_bounds(0, 4) == "0 query rows a pass: tiles take from 1 to 16,384"
    assert out_of_bounds(4, 16385) == "16,385 keys a tile: tiles take from 1 to 16,384"


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (
            "tiles: 3\n",
            "r.yaml:5:8: tiles must be a mapping {queries: Br, keys: Bc} (Br query rows share a "
            "pass, which reads the keys Bc at a time), not '3'; e.g. tiles: {queries: 2, keys: 4}",
        ),
        (
            "tiles: {queries: 2}\n",
            "r.yaml:5:8: tiles needs keys (tiles: {queries: 2, keys: 4}: Br query rows share a "
            "pass, which reads the keys Bc at a time)",
        ),
        (
            "tiles: {queries: 0, keys: 1}\n",
            "r.yaml:5:18: tiles queries must be from 1 to 16384, not 0",
        ),
    ],
)
def test_each_mistake_is_one_line_at_its_place(extra, message):
    with pytest.raises(ScenarioError) as caught:
        loads(BASE + extra, "r.yaml")
    assert str(caught.value) == message
