"""A few SVG snapshots guard the look (pytest-textual-snapshot; update with --snapshot-update).

Each runs at a fixed size on a built-in opened by name, so the header does not depend on the
folder the tests run from, and nothing on screen blinks.
"""

from __future__ import annotations

from attn_tui.core import load
from attn_tui.tui.app import AttnApp
from tests.conftest import SCENARIOS


def app() -> AttnApp:
    return AttnApp(load(SCENARIOS / "cat_sat.yaml"), read_only=True, remember=False)


def test_cat_sat_at_score(snap_compare):
    assert snap_compare(app(), terminal_size=(120, 40))


def test_cat_sat_at_softmax(snap_compare):
    assert snap_compare(app(), press=["4"], terminal_size=(120, 40))


def test_cat_sat_at_80_by_24(snap_compare):
    assert snap_compare(app(), press=["4"], terminal_size=(80, 24))
