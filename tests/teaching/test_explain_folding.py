"""At T = 1024 and d = 64 an explanation stays readable: long sums fold, and unfold on request."""

from __future__ import annotations

import re

import numpy as np
import pytest

from attn_tui.core import Attention, Scenario, explain
from attn_tui.core.engine.stages import stages_for
from attn_tui.core.numbers import fixed

T, D = 1024, 64
SCENARIO = Scenario(
    title="big",
    tokens=tuple(f"t{i}" for i in range(1, T + 1)),
    inputs={name: np.random.RandomState(n).randn(T, D) for n, name in enumerate("QKV")},
)


@pytest.fixture(scope="module")
def big():
    return Attention(SCENARIO)


@pytest.mark.parametrize("stage", [stage.name for stage in stages_for(SCENARIO)])
def test_folded_explanations_are_short(big, stage):
    text = explain(big, stage, 700, 5).plain()
    assert len(text.splitlines()) < 40, stage
    assert max(len(line) for line in text.splitlines()) < 500, stage  # bounded, whatever T and d
    assert "more terms" in text or "later keys" in text or "earlier keys" in text


def test_a_folded_dot_product_names_what_it_hides_and_keeps_the_total(big):
    line = next(
        l for l in explain(big, "score", 700, 5).plain().splitlines() if l.startswith("q701 · k6 =")
    )
    terms = re.findall(r"\(([−-]?[0-9.]+) × ([−-]?[0-9.]+)\)", line)
    assert len(terms) == 7  # the first six and the last
    assert "… 57 more terms …" in line
    score = float(SCENARIO.Q[700] @ SCENARIO.K[5])
    assert line.endswith(f'= {fixed(score, 3)}    how relevant is "t6" to "t701"?')
    first = tuple(float(text.replace("−", "-")) for text in terms[0])
    assert first == (round(SCENARIO.Q[700, 0], 3), round(SCENARIO.K[5, 0], 3))


def test_the_window_of_keys_follows_the_cursor(big):
    text = explain(big, "softmax", 1023, 900).plain()
    assert "… 896 earlier keys …" in text and "… 120 later keys …" in text
    assert "exp(" in text and "t901" in text


def test_unfolded_shows_every_term(big):
    text = explain(big, "weighted_sum", 3, fold=None).plain()
    assert "more terms" not in text
    assert text.count(" × [") == 1024


def test_the_bar_of_a_thousand_tiles_is_a_line_around_the_current_tile():
    import dataclasses

    from attn_tui.core.model.options import Options
    from attn_tui.core.reading.tiles import TilesSetting

    scenario = dataclasses.replace(
        SCENARIO, stage_settings={"online": TilesSetting(1, 1)}, options=Options(causal=True)
    )
    attention = Attention(scenario)
    bar = next(
        line
        for line in explain(attention, "online", 700, 300).plain().splitlines()
        if line.startswith("key tiles: ")
    )
    cells = bar.removeprefix("key tiles: ").split()[0]
    # 1,024 tiles of one key: a window of them, ■ up to tile 301, □ after it up to the diagonal
    # (row 701 sees keys 1…701), · beyond it, and an ellipsis each side
    assert cells.startswith("…") and cells.endswith("…") and 20 < len(cells) < 80
    assert "tile 301 of 1024" in bar
    inner = cells.strip("…")
    assert set(inner) <= set("■□") and "■" in inner and "□" in inner
    whole = (
        next(
            line
            for line in explain(attention, "online", 700, 300, fold=None).plain().splitlines()
            if line.startswith("key tiles: ")
        )
        .removeprefix("key tiles: ")
        .split()[0]
    )
    assert whole == "■" * 301 + "□" * 400 + "·" * 323  # unfolded (--print): every tile
