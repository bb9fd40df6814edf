"""How attention really runs (issue 20): FlashAttention's online softmax, tile by tile, and
decoding with a KV cache. Every tile's m, l and acc and every decode step are checked against
references written from the papers (Dao et al. 2022, Algorithm 1, in tests/reference.py; a
decoder's loop, here), in plain Python, not from attn_tui.core, over random layouts (T_q ≠ T_k,
tiles that do and do not divide T, causal, window, padding, an explicit mask, rows with nothing
visible, heads, GQA); and both outputs against the standard path to 1e-12."""

from __future__ import annotations

import dataclasses
import json
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from attn_tui.core import ScenarioError, load, loads
from attn_tui.core.engine.attention import Attention
from attn_tui.core.outputs.json_export import to_json
from attn_tui.core.outputs.report import to_text
from attn_tui.core.reading.decode import DecodeSetting
from attn_tui.core.reading.tiles import TilesSetting
from attn_tui.tui.cli import main
from tests.engine.test_multihead_against_the_reference_and_pytorch import build, layouts
from tests.reference import online_walk, skipped_tiles, softmax


@st.composite
def tiled_layouts(draw):
    layout = draw(layouts())
    return layout, draw(st.integers(1, 5)), draw(st.integers(1, 5))


def close(a, b) -> bool:
    return abs(a - b) <= 1e-12 * max(1.0, abs(a), abs(b))


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tiled_layouts())
def test_every_tile_of_every_row_is_algorithm_1s(case):
    layout, Br, Bc = case
    scenario, (heads, _, _) = build(layout)
    scenario = dataclasses.replace(scenario, stage_settings={"online": TilesSetting(Br, Bc)})
    attention = Attention(scenario)
    doc = to_json(scenario)
    per_head = doc["heads"] if "heads" in doc else [doc]
    for h, head in enumerate(per_head):
        expected = heads[h]
        visible = ~np.isinf(expected["masked"])
        V = attention.inputs.V(h)
        for i, walked in enumerate(head["online"]):
            skip = skipped_tiles(visible, Br, Bc, i)
            reference = online_walk(
                expected["masked"][i].tolist(), visible[i].tolist(), V, Bc, skip
            )
            assert len(walked) == len(reference) == math.ceil(scenario.T_k / Bc)
            for t, (ours, theirs) in enumerate(zip(walked, reference)):
                assert ours["keys"] == [t * Bc, min(scenario.T_k, (t + 1) * Bc)]
                assert ours["skipped"] == skip[t]
                assert (ours["tile_max"] is None) == (theirs["tile_max"] is None)
                if theirs["tile_max"] is not None:
                    assert close(ours["tile_max"], theirs["tile_max"])
                assert (ours["m"] is None) == (theirs["m"] == -math.inf)
                if ours["m"] is not None:
                    assert close(ours["m"], theirs["m"])
                assert close(ours["l"], theirs["l"])
                assert (ours["correction"] is None) == (theirs["correction"] is None)
                if theirs["correction"] is not None:
                    assert close(ours["correction"], theirs["correction"])
                assert all(close(a, b) for a, b in zip(ours["acc"], theirs["acc"]))
        standard = np.array(
            [row if row is not None else [np.nan] * scenario.d_v for row in head["output"]]
        )
        online = head["online_output"]
        for i, row in enumerate(online):
            if expected["empty"][i]:
                assert row is None  # nothing to attend to: no output, not NaN
            else:
                assert np.abs(np.array(row) - standard[i]).max() <= 1e-12


def decode_step(q, K, V, divisor, visible_row, window, t) -> tuple[list[float], list[float], range]:
    """A decoder at step t: its one new query against the cache (the last w rows with a window)."""
    first = max(0, t - window + 1) if window else 0
    cache = range(first, t + 1)
    scores = [
        sum(q[c] * K[j, c] for c in range(len(q))) / divisor if visible_row[j] else -math.inf
        for j in cache
    ]
    top = max(scores)
    if top == -math.inf:
        return [0.0] * len(cache), [0.0] * V.shape[1], cache
    weights = softmax(scores).tolist()
    output = [sum(w * V[j, c] for w, j in zip(weights, cache)) for c in range(V.shape[1])]
    return weights, output, cache


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(layouts())
def test_every_decode_step_is_a_decoders_and_the_standard_paths(layout):
    layout = {**layout, "cross": False, "T_q": layout["T_k"], "causal": True, "explicit": False}
    scenario, (heads, _, _) = build(layout)
    scenario = dataclasses.replace(scenario, stage_settings={"decode": DecodeSetting()})
    attention = Attention(scenario)
    doc = to_json(scenario)
    per_head = doc["heads"] if "heads" in doc else [doc]
    for h, head in enumerate(per_head):
        expected = heads[h]
        visible = ~np.isinf(expected["masked"])
        q, K, V = attention.inputs.Q(h), attention.inputs.K(h), attention.inputs.V(h)
        for t, step in enumerate(head["decode"]):
            weights, output, cache = decode_step(
                q[t], K, V, attention.divisor, visible[t], scenario.window, t
            )
            assert step["t"] == t and step["cache"] == [cache.start, cache.stop - 1]
            if expected["empty"][
                t
            ]:  # nothing to attend to: no weights, no output (null), as the row's
                assert step["weights"] is None and step["output"] is None
                continue
            assert all(close(a, b) for a, b in zip(step["weights"], weights))
            assert all(close(a, b) for a, b in zip(step["output"], output))
            standard = expected["output"][t]
            assert np.abs(np.array(step["output"]) - standard).max() <= 1e-12


def test_the_built_in_walks_slept_as_the_chapter_of_flashattention_would():
    """8 tokens, key tiles of 4, query tiles of 2, causal: rows 1-4 skip the second key tile;
    "slept" finds its largest score (3·2/√2 = 4.243) in the second tile and is corrected by
    exp(2.121 − 4.243) = 0.120 there."""
    scenario = load("scenarios/online_softmax.yaml")
    doc = to_json(scenario)
    assert [[tile["skipped"] for tile in row] for row in doc["online"]] == [[False, True]] * 4 + [
        [False, False]
    ] * 4
    slept = doc["online"][7]
    assert math.isclose(slept[0]["m"], 3 / math.sqrt(2)) and math.isclose(
        slept[1]["m"], 6 / math.sqrt(2)
    )
    assert math.isclose(slept[1]["correction"], math.exp(3 / math.sqrt(2) - 6 / math.sqrt(2)))
    text = to_text(scenario, rows=[7])
    assert "correction = exp(m_old − m_new) = exp(2.121 − 4.243) = 0.120" in text
    assert "tile 2 (keys 5–8): skipped" in to_text(scenario, rows=[1])
    assert (
        "Memory: the standard path holds every score at once, T_q × T_k = 64 numbers here "
        "(268,435,456 at T = 16,384)" in text
    )
    # d_k = d_v = 2: one tile's scores 2 × 4 and m, l, acc 2 × (2 + 2), besides the tiles read,
    # 2 × 2 of Q and 4 × (2 + 2) of K and V
    assert (
        "16 numbers, whatever T is, beside the tiles of Q, K and V it reads, "
        "Br × d_k + Bc × (d_k + d_v) = 20." in text
    )


def test_a_finite_mask_value_skips_nothing():
    """FlashAttention skips a tile only when its hidden keys are −∞: a finite mask value lets a
    little weight through, which a skipped tile would drop."""
    text = (
        open("scenarios/online_softmax.yaml")
        .read()
        .replace("causal: true", "causal: true\nmask_value: -1e9")
    )
    doc = to_json(loads(text))
    assert not any(tile["skipped"] for row in doc["online"] for tile in row)


@pytest.mark.parametrize(
    "text, fragment",
    [
        ("tiles: {queries: 2}\n", "tiles needs keys"),
        ("tiles: {queries: 2, keys: 0}\n", "tiles keys must be from 1"),
        ("tiles: {queries: 2, keys: 4, rows: 3}\n", "unknown key 'rows' in tiles"),
        ("decode: true\ncausal: false\n", "decoding needs the causal mask"),
    ],
)
def test_bad_tiles_and_decoding_are_refused_at_their_line(text, fragment):
    base = "tokens: [a, b]\nQ: [[1], [1]]\nK: [[1], [1]]\nV: [[1], [1]]\n"
    with pytest.raises(ScenarioError) as caught:
        loads(base + text)
    assert fragment in caught.value.message and caught.value.line == 5, str(caught.value)


def test_a_variant_without_the_causal_mask_is_refused_in_a_file_that_decodes():
    base = (
        "tokens: [a, b]\nQ: [[1], [1]]\nK: [[1], [1]]\nV: [[1], [1]]\ncausal: true\n"
        "variants:\n  - {name: plain}\n  - {name: open, causal: false}\n"
    )
    with pytest.raises(ScenarioError) as caught:
        loads(base + "decode: true\n")
    assert caught.value.line == 8 and "variant 'open'" in caught.value.message
    from attn_tui.core.engine.stages import decode
    from attn_tui.core.errors import NotApplicable

    with pytest.raises(NotApplicable, match="variant open has no causal mask"):
        decode.STAGE.flip(loads(base))  # d in the app
    loads(
        base.replace("causal: false", "scale: false") + "decode: true\n"
    )  # any other variant decodes


def test_too_many_tiles_are_refused():
    from attn_tui.core.reading.tiles import tiles_for

    assert tiles_for(16384, 16) is None
    assert (
        tiles_for(16384, 4)
        == "16,384 keys in tiles of 4 make 4,096 tiles; at most 1,024 (tiles of at least 16 keys)"
    )


def test_the_command_line_adds_the_steps(capsys):
    assert main(["--json", "cat_sat", "--tiles", "1,2", "--decode"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["online_output"][2] == pytest.approx([0.5, 0.5], abs=1e-15)
    assert doc["decode"][1] == {
        "t": 1,
        "cache": [0, 1],
        "weights": pytest.approx([0.3302, 0.6698], abs=1e-4),
        "output": pytest.approx([0.3302, 0.6698], abs=1e-4),
    }
    with pytest.raises(SystemExit):
        main(["--print", "cross_attention", "--decode"])
    assert "needs self-attention" in capsys.readouterr().err


async def test_the_app_walks_tiles_and_decodes():
    from attn_tui.tui.app import AttnApp
    from tests.tui_helpers import explanation, matrix, screen_text

    app = AttnApp(load("scenarios/online_softmax.yaml"), remember=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("6")
        assert app.screen.stage == "online"
        assert "key tiles: ■□  tile 1 of 2" in explanation(app)
        await pilot.press("right_square_bracket")
        assert "key tiles: ■■  tile 2 of 2" in explanation(app) and app.screen.column == 4
        assert "skip" in screen_text(app)
        await pilot.press("d")
        assert app.screen.stage == "decode" and "7 Decode" in screen_text(app)
        await pilot.press("up", "up")  # "mat", step 6: the cache holds rows 1…6
        assert matrix(app, "K").context == range(0, 6) and matrix(app, "K").marked_rows == {5}
        assert "the cache holds the keys and values of positions 1…6" in explanation(app)
        await pilot.press("u")  # undo takes the step away
        assert "Decode" not in screen_text(app).splitlines()[1] and app.screen.stage == "online"


def test_steps_turned_on_in_the_app_are_saved_as_their_keys(tmp_path):
    """d and the palette's tiles are changes like c and s: undoable, saved in place (comments
    kept), taken out again when turned off."""
    from attn_tui.core.editing.session import Session
    from attn_tui.core.engine.stages import decode, online

    path = tmp_path / "mine.yaml"
    path.write_text(open("scenarios/cat_sat.yaml").read())
    session = Session(load(path))
    session.apply(decode.STAGE.flip(session.scenario))
    session.apply(online.tiled(session.scenario, 2, 2))
    assert session.modified
    session.save()
    text = path.read_text()
    assert "decode: true" in text and "tiles: {queries: 2, keys: 2}" in text
    assert "# Queries: what each token is looking for" in text  # the author's comments stay
    assert load(path).stage_settings == session.scenario.stage_settings
    session.apply(decode.STAGE.flip(session.scenario))  # off again
    session.apply(online.tiled(session.scenario, None))
    session.save()
    assert "decode" not in path.read_text() and "tiles" not in path.read_text()
    assert path.read_text() == open("scenarios/cat_sat.yaml").read()


def test_steps_the_command_line_asked_for_are_not_saved_unless_changed_in_the_app(tmp_path):
    """--tiles and --decode are a view of one run: a save keeps the file's own settings (here
    tiles of 2×4) and the app goes on showing the view; changed in the app, they are saved."""
    import argparse

    from attn_tui.core.editing.session import Session
    from attn_tui.core.engine.stages import decode, online
    from attn_tui.core.model.edits import SetCell
    from attn_tui.tui.cli import with_views

    path = tmp_path / "mine.yaml"
    original = open("scenarios/online_softmax.yaml").read()
    path.write_text(original)
    scenario = with_views(
        argparse.ArgumentParser(), argparse.Namespace(tiles="1,1", decode=True), load(path)
    )
    session = Session(scenario)
    assert not session.modified
    session.apply(SetCell("Q", 0, 0, 5.0, session.scenario.inputs["Q"][0, 0]))
    session.save()
    text = path.read_text()
    assert "tiles: {queries: 2, keys: 4}" in text and "decode" not in text
    assert [line for line in text.splitlines() if line not in original.splitlines()] != []
    assert load(path).stage_settings["online"] == TilesSetting(2, 4)
    shown = session.scenario.stage_settings
    assert shown["online"] == TilesSetting(1, 1) and "decode" in shown and not session.modified
    session.apply(online.tiled(session.scenario, 3, 3))  # changed in the app: the file's now
    session.apply(decode.STAGE.flip(session.scenario))  # and decoding turned off
    session.save()
    assert load(path).stage_settings["online"] == TilesSetting(3, 3)
    assert "decode" not in path.read_text() and "decode" not in session.scenario.stage_settings
    assert not session.modified


async def test_decoding_turned_on_under_predictions_and_a_guess_left_open():
    """A step that comes (d) is known to the predictions (it crashed the app); a guess half
    typed when the step moves on goes nowhere, not into the next step (it raised)."""
    from attn_tui.tui.app import AttnApp

    text = open("scenarios/cat_sat.yaml").read() + "predict: [weights]\n"
    app = AttnApp(loads(text, "p.yaml"), remember=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("d")
        assert app.screen.stage == "decode"
        await pilot.press("4", "enter", "0")  # a guess opened at Softmax
        assert app.screen.stage_view.editing
        app.screen.action_goto(1)  # the palette's "Step to 1 Score" (keys go to the editor)
        await pilot.pause()
        assert app.screen.stage == "score" and not app.screen.stage_view.editing
        await pilot.press("4")
        assert app.screen.stage == "softmax"
        assert not app.screen.session.predictions.guesses_of(
            "softmax", 0
        ).written()  # nothing was guessed


def test_print_names_each_tile_of_keys_whole(tmp_path, capsys):
    T = 1024
    rng = np.random.default_rng(0)
    np.savez(tmp_path / "big.npz", **{name: rng.normal(size=(T, 2)) for name in "QKV"})
    path = tmp_path / "big.yaml"
    path.write_text(
        "tokens: [%s]\nnpz: big.npz\ncausal: true\ntiles: {queries: 4, keys: 128}\n"
        % ", ".join(f"t{i}" for i in range(T))
    )
    assert main(["--print", str(path), "--row", "900"]) == 0
    header = next(line for line in capsys.readouterr().out.splitlines() if "k1–128" in line)
    assert header.split() == [f"k{start + 1}–{start + 128}" for start in range(0, T, 128)]
