"""Found attacking issues 20 (online softmax, KV-cache decoding) and 22 (lessons). Each test
failed on the commit before its fix, or is a strict xfail naming what is left.

The numbers are checked against a float64 reference written here from the papers, not from
attn_tui.core: FlashAttention's Algorithm 1 (Dao et al. 2022) as the issue states it (m, l, the
correction exp(m_old − m_new) and the unnormalised acc after every key tile, a key tile skipped
when every key of it is hidden by −∞ from every row of the query tile), and a decoder's loop
(one new query at a time against the keys and values in its cache, the last w with a window),
over the stages of the one float64 attention reference (tests/reference.py).
Random scenario files — heads, grouped-query attention, cross-attention, T_q ≠ T_k, tiles that
do and do not divide T, Br > T, Bc > T_k, Bc = 1, causal, a window, padding, an explicit mask,
rows that see nothing, finite mask values, a bias, a softcap, RoPE — are read through ``--json``
as a user's would be."""

from __future__ import annotations

import json
import math
import os
import random
import signal

import numpy as np
import pytest

from attn_tui.core import load
from attn_tui.core import loads
from attn_tui.core.errors import NotApplicable, ScenarioError
from attn_tui.tui.cli import main
from tests.reference import attention, softmax

BASE = ("tokens: [a, b, c, d]\nQ: [[1, 0], [0, 1], [1, 1], [2, 0]]\nK: [[1, 0], [0, 1], [1, 1], [0, 2]]\n"
        "V: [[1, 0], [0, 1], [3, 3], [5, -1]]\ncausal: true\n")


def run(capsys, *args: str) -> tuple[int, str, str]:
    try:
        code = main(list(args))
    except SystemExit as exit:
        code = exit.code
    out, err = capsys.readouterr()
    return code, out, err


# ---- the reference ------------------------------------------------------------------------------

def random_layout(rng: random.Random) -> dict:
    G = rng.choice([1, 1, 2, 3])
    cross = rng.random() < 0.3
    T_k = rng.randint(1, 13)
    T_q = rng.randint(1, 13) if cross else T_k
    d_k = rng.choice([1, 2, 3, 4, 6])
    return dict(G=G, H=G * rng.choice([1, 2]), cross=cross, T_q=T_q, T_k=T_k, d_k=d_k, d_v=rng.choice([1, 2, 3]),
                causal=not cross and rng.random() < 0.6,
                window=rng.randint(1, T_k + 1) if not cross and rng.random() < 0.3 else None,
                padding=[int(rng.random() < 0.25) for _ in range(T_k)] if rng.random() < 0.3 else None,
                mask=[[int(rng.random() < 0.7) for _ in range(T_k)] for _ in range(T_q)] if rng.random() < 0.3 else None,
                mask_value=rng.choice([-math.inf, -math.inf, -1e9, -30.0]), bias=rng.random() < 0.25,
                softcap=rng.choice([None, None, None, 2.0, 50.0]), rope=d_k % 2 == 0 and not cross and rng.random() < 0.3,
                scale=rng.choice([True, True, False, 3.0]), Br=rng.choice([1, 2, 3, 4, 5, 16, 100]),
                Bc=rng.choice([1, 2, 3, 4, 5, 7, 16, 100]), seed=rng.randint(0, 2**31), big=rng.random() < 0.2)


def write_layout(layout: dict, folder) -> dict:
    g = np.random.default_rng(layout["seed"])
    spread = 8.0 if layout["big"] else 1.5  # large scores: corrections far from 1
    H, G = layout["H"], layout["G"]
    arrays = dict(Q=g.normal(size=(H, layout["T_q"], layout["d_k"])) * spread,
                  K=g.normal(size=(G, layout["T_k"], layout["d_k"])) * spread,
                  V=g.normal(size=(G, layout["T_k"], layout["d_v"])))
    if layout["bias"]:
        arrays["bias"] = g.normal(size=(H, layout["T_q"], layout["T_k"])) * 2
    np.savez(folder / "inputs.npz", **{name: values if H > 1 or name != "Q" and G > 1 else values[0]
                                       for name, values in arrays.items()})
    lines = [f"tokens: [{', '.join(f'k{j}' for j in range(layout['T_k']))}]", "npz: inputs.npz"]
    if layout["cross"]:
        lines.append(f"query_tokens: [{', '.join(f'q{i}' for i in range(layout['T_q']))}]")
    if H > 1:
        lines.append(f"heads: {H}")
    if G != H:
        lines.append(f"kv_heads: {G}")
    scale = layout["scale"]
    mask_value = layout["mask_value"]
    lines += [f"causal: {'true' if layout['causal'] else 'false'}",
              f"scale: {'true' if scale is True else 'false' if scale is False else scale}",
              f"mask_value: {'-.inf' if math.isinf(mask_value) else repr(mask_value)}",
              f"tiles: {{queries: {layout['Br']}, keys: {layout['Bc']}}}"]
    if layout["window"] is not None:
        lines.append(f"window: {layout['window']}")
    if layout["padding"] is not None:
        lines.append(f"padding: {layout['padding']}")
    if layout["mask"] is not None:
        lines.append(f"mask: {layout['mask']}")
    if layout["softcap"] is not None:
        lines.append(f"softcap: {layout['softcap']}")
    if layout["rope"]:
        lines.append("rope: {base: 100}")
    (folder / "s.yaml").write_text("\n".join(lines) + "\n")
    return arrays


def reference(layout: dict, arrays: dict) -> list[dict]:
    """Per head: the standard output, Algorithm 1's walk of every row, and a decoder's steps."""
    H, G, T_q, T_k, d_k = layout["H"], layout["G"], layout["T_q"], layout["T_k"], layout["d_k"]
    scale, mask_value, window = layout["scale"], layout["mask_value"], layout["window"]
    divisor = math.sqrt(d_k) if scale is True else 1.0 if scale is False else scale
    visible = np.ones((T_q, T_k), bool)
    for i in range(T_q):
        for j in range(T_k):
            hidden = (layout["causal"] and j > i) or (window is not None and (j > i or j <= i - window)) \
                or (layout["padding"] is not None and layout["padding"][j]) \
                or (layout["mask"] is not None and not layout["mask"][i][j])
            visible[i, j] = not hidden
    empty = ~visible.any(axis=1)
    stages, _, _ = attention(arrays["Q"], arrays["K"], arrays["V"], visible=visible, divisor=divisor,
                             mask_value=mask_value, bias=arrays["bias"] if layout["bias"] else None,
                             softcap=layout["softcap"], rope_spec=(100.0, None, "half") if layout["rope"] else None)
    heads = []
    for h in range(H):
        v, masked = arrays["V"][h // (H // G)], stages[h]["masked"]
        output = [None if empty[i] else stages[h]["output"][i].tolist() for i in range(T_q)]
        Br, Bc = layout["Br"], layout["Bc"]
        walks = []
        for i in range(T_q):
            pass_rows = range(i - i % Br, min(i - i % Br + Br, T_q))
            m, l, acc = -math.inf, 0.0, np.zeros(v.shape[1])
            walk = []
            for start in range(0, T_k, Bc):
                keys = range(start, min(T_k, start + Bc))
                skipped = math.isinf(mask_value) and not any(visible[r, j] for r in pass_rows for j in keys)
                seen = [j for j in keys if not skipped and (visible[i, j] or not math.isinf(mask_value))]
                tile_max = max((masked[i, j] for j in seen), default=None)
                correction = None
                if seen:
                    m_new = max(m, tile_max)
                    correction = math.exp(m - m_new) if m != -math.inf else None
                    keep = 0.0 if correction is None else correction
                    p = {j: math.exp(masked[i, j] - m_new) for j in seen}
                    l = l * keep + math.fsum(p.values())
                    acc = acc * keep + np.array([math.fsum(p[j] * v[j, c] for j in seen) for c in range(v.shape[1])])
                    m = m_new
                walk.append(dict(keys=[keys.start, keys.stop], skipped=skipped, tile_max=tile_max,
                                 m=None if m == -math.inf else m, l=l, correction=correction, acc=acc.tolist()))
            walks.append(walk)
        steps = None
        if not layout["cross"] and (layout["causal"] or window is not None):
            steps = []
            for t in range(T_k):
                cache = range(max(0, t - window + 1) if window else 0, t + 1)
                if empty[t]:
                    steps.append(dict(t=t, cache=[cache.start, cache.stop - 1], weights=None, output=None))
                    continue
                weights = softmax(masked[t, cache.start:cache.stop])  # the keys in its cache alone
                steps.append(dict(t=t, cache=[cache.start, cache.stop - 1], weights=weights.tolist(),
                                  output=(weights @ v[cache.start:cache.stop]).tolist()))
        heads.append(dict(output=output, walks=walks, decode=steps))
    return heads


def near(a, b, tolerance=1e-12) -> bool:
    if a is None or b is None:
        return a is None and b is None
    return abs(a - b) <= tolerance * max(1.0, abs(a), abs(b))


@pytest.mark.parametrize("seed", range(36))
def test_online_and_decode_of_random_files_are_algorithm_1s_and_a_decoders(seed, tmp_path, capsys):
    layout = random_layout(random.Random(seed))
    arrays = write_layout(layout, tmp_path)
    expected = reference(layout, arrays)
    decodes = expected[0]["decode"] is not None
    code, out, err = run(capsys, "--json", str(tmp_path / "s.yaml"), *(["--decode"] if decodes else []))
    assert code == 0, err
    doc = json.loads(out)
    for ours, theirs in zip(doc["heads"] if "heads" in doc else [doc], expected):
        standard = ours["output"]
        for i, row in enumerate(theirs["output"]):
            assert (row is None) == (standard[i] is None)
            if row is not None:
                assert all(near(a, b, 1e-10) for a, b in zip(row, standard[i]))
                assert max(abs(a - b) for a, b in zip(ours["online_output"][i], standard[i])) <= 1e-12
            else:
                assert ours["online_output"][i] is None
        for walked, walk in zip(ours["online"], theirs["walks"]):
            assert len(walked) == len(walk)
            for tile, want in zip(walked, walk):
                assert tile["keys"] == want["keys"] and tile["skipped"] == want["skipped"]
                for key in ("tile_max", "m", "l", "correction"):
                    assert near(tile[key], want[key]), (key, tile, want)
                assert all(near(a, b, 1e-11) for a, b in zip(tile["acc"], want["acc"]))
        if decodes:
            for i, (step, want) in enumerate(zip(ours["decode"], theirs["decode"])):
                assert (step["t"], step["cache"]) == (want["t"], want["cache"])
                assert (step["output"] is None) == (want["output"] is None) == (standard[i] is None), step
                if want["output"] is None:
                    assert step["weights"] is None
                    continue
                assert all(near(a, b) for a, b in zip(step["weights"], want["weights"]))
                assert all(near(a, b) for a, b in zip(step["output"], want["output"]))
                if layout["mask_value"] in (-math.inf, -1e9):  # (−30 leaks weight to the future)
                    assert max(abs(a - b) for a, b in zip(step["output"], standard[i])) <= 1e-12


# ---- a row that sees nothing --------------------------------------------------------------------

@pytest.mark.parametrize("mask_value", ["-.inf", "-1e9"])
def test_a_decode_step_that_sees_nothing_has_no_output(mask_value, write, capsys):
    """Padding hides "a" from itself, the only key in its cache: the whole computation gives it
    no output (null), and so must the decoder — it gave [0, 0] under −∞ and, under −1e9, V's
    row of the padding token, its Why pane then saying the two differ "without the causal mask"."""
    path = write(BASE + f"padding: [1, 0, 0, 0]\nmask_value: {mask_value}\ndecode: true\n")
    code, out, _ = run(capsys, "--json", str(path))
    doc = json.loads(out)
    assert doc["output"][0] is None
    assert doc["decode"][0] == {"t": 0, "cache": [0, 0], "weights": None, "output": None}
    assert doc["decode"][1]["output"] == pytest.approx([0.0, 1.0])
    code, out, _ = run(capsys, "--print", str(path), "--row", "1")
    walk = out[out.index("Decode: generate"):]
    assert '"a" sees no key in the cache: nothing to attend to' in walk
    assert "They differ" not in walk and "largest difference" not in walk


def test_the_walk_of_a_row_that_sees_nothing_under_a_finite_mask_value_gives_no_output(write, capsys):
    """Under −1e9 the walk reads the hidden keys' scores, as a kernel would; the Why pane then
    printed output = acc / l = [2.250, 0.750] against a Weighted sum of [0, 0], "largest
    difference 2.2e+00", for a row that attention gives no output."""
    path = write(BASE + "padding: [1, 0, 0, 0]\nmask_value: -1e9\ntiles: {queries: 2, keys: 2}\n")
    code, out, _ = run(capsys, "--print", str(path), "--row", "1")
    walk = out[out.index("Online softmax: walk"):]
    assert "largest difference" not in walk and "output = acc / l" not in walk
    assert '"a" sees no key at all: every key is hidden, so attention gives it no output' in walk


# ---- tiles from the command line and the palette ------------------------------------------------

@pytest.mark.parametrize("tiles, said", [
    ("2,99999999999999999999", "99,999,999,999,999,999,999 keys a tile"),  # was an internal error, exit 3
    ("99999999999999999999,2", "query rows a pass"),  # was taken: the app could then save nothing
    ("3,100000", "100,000 keys a tile: tiles take from 1 to 16,384"),
])
def test_tiles_a_file_could_not_say_are_refused_on_the_command_line(tiles, said, capsys):
    code, out, err = run(capsys, "--json", "online_softmax", "--tiles", tiles)
    assert code == 2 and said in err and not out


def test_the_palettes_tiles_are_bounded_as_a_files_are():
    from attn_tui.core.engine.stages import online

    scenario = loads(BASE)
    for size in (0, 16385):
        with pytest.raises(NotApplicable):
            online.tiled(scenario, size, 2)
        with pytest.raises(NotApplicable):
            online.tiled(scenario, 2, size)


# ---- decoding and the causal mask ---------------------------------------------------------------

def test_causal_stays_on_while_decoding(write):
    """d then c left a scenario that decodes without the causal mask: it could be saved neither in
    place nor elsewhere ("the file would not load"), and every other edit with it."""
    from attn_tui.core.model.edits import SetCell
    from attn_tui.core.editing.session import Session
    from attn_tui.core.engine.stages import decode

    path = write(BASE)
    session = Session(load(path))
    session.apply(SetCell("Q", 0, 0, 5.0, 1.0))
    session.apply(decode.STAGE.flip(session.scenario))
    with pytest.raises(NotApplicable, match="decoding needs the causal mask"):
        session.toggle_causal()
    assert session.scenario.options.causal
    session.save()
    assert load(path).stage_settings == session.scenario.stage_settings


async def test_c_at_the_decode_step_says_why_it_stays(write):
    from attn_tui.tui.app import AttnApp

    app = AttnApp(load(write(BASE)), remember=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("d", "c")
        assert app.screen.stage == "decode" and app.screen.session.scenario.options.causal
        assert any("decoding needs the causal mask" in note.message for note in app._notifications)


def test_a_lesson_may_not_turn_the_causal_mask_off_while_decoding():
    with pytest.raises(ScenarioError) as caught:
        loads(BASE + "decode: true\nlesson:\n  - {step: decode, set: {causal: false}}\n", "l.yaml")
    assert caught.value.line == 8 and "decode: true" in caught.value.message


def test_a_recovery_copy_does_not_turn_the_causal_mask_off_in_a_file_that_now_decodes(write):
    """c (off) kept in a recovery copy, then decode: true written into the file: restoring the copy
    made the scenario one that could not be saved."""
    from attn_tui.core.editing import recovery
    from attn_tui.core.model.edits import SetOption
    from attn_tui.core.editing.session import Session

    path = write(BASE + "decode: true\n")
    session = Session(load(path))
    copy = recovery.Recovery(str(path), (SetOption("causal", False, True),), 0.0, True)
    skipped = session.journal.restore(copy)
    assert session.scenario.options.causal and len(skipped) == 1
    assert skipped[0].endswith(": the file now decodes (decode: true), which needs the causal mask")


# ---- a step the lesson shows --------------------------------------------------------------------

LESSON = BASE + ("decode: true\ntiles: {queries: 2, keys: 2}\nlesson:\n  - {step: score}\n"
                 "  - {step: decode, say: the cache}\n  - {step: online}\n")


async def test_a_step_the_lesson_shows_stays_on(write):
    """d, or the palette's "Online softmax off", in a lesson that shows the step, then n: the app
    crashed (ValueError: 'decode' is not in list); and saved, the file would not load."""
    from attn_tui.tui.app import AttnApp
    from attn_tui.core.engine.stages import online

    path = write(LESSON)
    app = AttnApp(load(path), remember=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("d")
        app.screen.changes.switch_stage("online", None)
        await pilot.pause()
        assert set(app.screen.session.scenario.stage_settings) == {"decode", "online"}
        assert any("The lesson shows the Decode step (beat 2)" in note.message for note in app._notifications)
        await pilot.press("n")
        assert app.screen.stage == "decode"
        await pilot.press("n")
        assert app.screen.stage == "online"
        app.screen.changes.switch_stage("online", online.reader.TilesSetting(4, 4))  # other tiles are fine: the step stays
        await pilot.pause()
        assert app.screen.session.scenario.stage_settings["online"].keys == 4
        app.screen.session.save()
    assert load(path).stage_settings["online"].keys == 4


async def test_recording_a_step_turned_on_in_the_app_writes_its_key(write):
    """ctrl+r, d, ↑, ctrl+r: the beat shows the Decode step, which the file had not; writing it
    failed at every ctrl+r ("step 'decode' is not a stage of this scenario"), for ever."""
    from attn_tui.tui.app import AttnApp

    path = write(BASE + "decode: false   # not yet\n")
    app = AttnApp(load(path), remember=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("ctrl+r", "d", "up", "ctrl+r")
        await pilot.pause()
        assert app.screen.lessons.recorder is None, [note.message for note in app._notifications]
    text = path.read_text()
    assert "decode: true   # not yet\n" in text and "step: decode" in text
    scenario = load(path)
    assert "decode" in scenario.stage_settings and scenario.lesson.beats[-1].step == "decode"


def test_recorded_beats_into_a_lesson_get_the_tiles_they_show(write):
    from attn_tui.core.model.lesson import Beat
    from attn_tui.core.editing.lesson_writer import with_beats
    from attn_tui.core.engine.stages import online

    path = write(BASE + "lesson:   # the walk\n  - {step: score}\n")
    scenario = load(path)
    scenario = online.tiled(scenario, 2, 2).apply(scenario)
    text = with_beats(scenario, (Beat(step="online"),))
    assert "tiles: {queries: 2, keys: 2}\nlesson:   # the walk\n" in text
    assert loads(text, str(path)).lesson.beats[-1].step == "online"


def test_recorded_beats_go_into_an_anchored_lesson_at_its_items_indentation():
    """lesson: &beats: the list's column is its anchor's, and the beats were written 8 spaces in,
    which did not load ("did not find expected key"), at every ctrl+r."""
    from attn_tui.core.model.lesson import Beat
    from attn_tui.core.editing.lesson_writer import with_beats

    scenario = loads(BASE + "lesson: &beats\n  - step: score\n", "a.yaml")
    text = with_beats(scenario, (Beat(step="softmax"),))
    assert text.endswith("lesson: &beats\n  - step: score\n  # recorded with ctrl+r: add say: (and ask:, "
                         "answer:) to each beat\n  - step: softmax\n")


async def test_recording_is_refused_before_it_starts_when_the_file_cannot_take_beats(write):
    """A file written as one flow mapping takes no recorded beats: that was said at the second
    ctrl+r, after the recording, which was then lost (each ctrl+r failed the same way)."""
    from attn_tui.tui.app import AttnApp

    path = write("{tokens: [a, b], Q: [[1], [0]], K: [[1], [1]], V: [[1], [2]]}\n")
    app = AttnApp(load(path), remember=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("ctrl+r")
        assert app.screen.lessons.recorder is None
        assert any(note.message.startswith("Cannot record now: the file is written as one flow mapping")
                   for note in app._notifications)


def test_the_answer_key_of_a_row_that_sees_nothing_has_no_weights(write, capsys):
    """--markdown --lesson --answers printed a padded first token's predicted weights as eight
    0.000, where the app and --json say it has none (—, null)."""
    path = write(BASE + "padding: [1, 0, 0, 0]\nlesson:\n  - {step: softmax, row: 1, predict: row}\n")
    code, out, _ = run(capsys, "--markdown", "--lesson", "--answers", str(path))
    assert code == 0 and "| a   |   — |   — |   — |   — |" in out and "0.000" not in out.split("## Beat 1")[1]


# ---- big tiles ----------------------------------------------------------------------------------

def test_which_keys_a_pass_sees_is_what_the_mask_says():
    """online softmax's skipped tiles: worked out from the rules, never a pass's rows × every key
    (a pass of 16,384 rows built 268 million cells at every key press)."""
    from attn_tui.core.model.masks import Visibility

    rng = np.random.default_rng(0)
    for _ in range(1500):
        T_q = int(rng.integers(1, 30))
        T_k = T_q if rng.random() < 0.7 else int(rng.integers(1, 30))
        visibility = Visibility(
            causal=bool(rng.random() < 0.6), window=int(rng.integers(1, 10)) if rng.random() < 0.4 else None,
            padding=rng.random(T_k) < 0.3 if rng.random() < 0.4 else None,
            explicit=rng.random((T_q, T_k)) < 0.6 if rng.random() < 0.3 else None,
            causal_offset=int(rng.choice([0, 1, 2])))
        first = int(rng.integers(0, T_q))
        rows = range(first, int(rng.integers(first + 1, T_q + 1)))
        by_hand = ~visibility.blocked(np.arange(rows.start, rows.stop), np.arange(T_k)).all(axis=0)
        assert np.array_equal(visibility.seen_by_any(rows, T_k), by_hand)


def test_the_why_pane_folds_a_pass_and_a_tile_of_thousands():
    """Tiles of 2048 × 2048: the pane wrote all 2,048 names of the pass and 2,048 scores of the
    tile at every key (a second a key at T = 16,384)."""
    from attn_tui.core.engine.attention import Attention
    from attn_tui.core.engine.explanation import FOLD, explain

    scenario = loads("random: {seed: 0, T: 2048, d_k: 2}\ntiles: {queries: 2048, keys: 2048}\n")
    shown = explain(Attention(scenario), "online", 2047, 0, FOLD)
    text = "\n".join("".join(span.text for span in line.spans) for line in shown.lines)
    assert len(text) < 3000, len(text)
    assert "more terms" in text and '"t2048"' in text


# ---- projector mode ---------------------------------------------------------------------------

async def test_the_projector_draws_skipped_tiles_and_keys_outside_the_cache_as_the_matrix_does():
    """p at Online softmax drew a skipped tile as "−∞ masked", and at Decode a key not yet in the
    cache the same; nor did ] mark the tile it went to."""
    from textual.widgets import Static

    from attn_tui.tui.app import AttnApp
    from attn_tui.tui.screens.present import PresentScreen

    def cells(app) -> list[tuple[str, bool]]:
        return [(" ".join(str(static.render()) for static in cell.query(Static)), cell.has_class("-cursor"))
                for cell in app.screen.query_one("#cells").children]

    app = AttnApp(load("scenarios/online_softmax.yaml"), remember=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("6", *["up"] * 7, "p")
        await pilot.pause()
        assert isinstance(app.screen, PresentScreen)
        (first, first_marked), (second, second_marked) = cells(app)
        assert "k5–8" in second and "skip" in second and "masked" not in second
        assert first_marked and not second_marked
        await pilot.press("right_square_bracket")
        await pilot.pause()
        assert [marked for _, marked in cells(app)] == [False, True]
        await pilot.press("p", "d", "down", "p")  # Decode, "cat": the keys after it are not in the cache
        await pilot.pause()
        shown = cells(app)
        later = [text for text, _ in shown if not text.startswith(("the₁", "cat"))]
        assert later and all(text.endswith(" ·") for text in later), shown


# ---- the class ----------------------------------------------------------------------------------

@pytest.mark.skipif(__import__("shutil").which("tmux") is None, reason="needs tmux on PATH")
async def test_closing_the_teachers_terminal_ends_the_class(tmp_path):
    """The teacher's terminal closed (SIGHUP) ended the teacher's app without its finally: the
    class's server went on serving, every student's app waiting for a teacher who had gone, and
    kept the port and the channel's folder."""
    import asyncio
    import sys

    from tests.serve.test_lesson_browser import Terminal, class_processes
    from tests.serve.test_serve_browser import free_port

    port, folder = free_port(), tmp_path / "class"
    teacher = Terminal(tmp_path)
    teacher.start([sys.executable, "-m", "attn_tui", "--serve", "cat_sat_lesson", "--follow", "--port", str(port),
                   "--serve-dir", str(folder)])
    try:
        await teacher.wait_for("Leading the class: 0 apps following your beats", timeout=30)
        assert class_processes(folder)  # the server
        teacher("kill-server")  # the terminal goes: SIGHUP
        for _ in range(400):
            if not class_processes(folder):
                break
            await asyncio.sleep(0.05)
        assert class_processes(folder) == []
    finally:
        teacher.stop()
        for pid in class_processes(folder):  # (only this test's own server and apps, by its folder)
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


async def test_the_teacher_leading_a_class_does_not_record(write):
    """ctrl+r while leading wrote beats the students' apps, which read the lesson when they
    started, do not have: at the first of them every student stopped following ("not one of this
    lesson's beats")."""
    from attn_tui.tui.app import AttnApp
    from attn_tui.tui.follow import Classroom, Leader, channel_socket

    listener, channel = channel_socket()
    leader = Leader(listener, channel)
    path = write(open("scenarios/cat_sat_lesson.yaml").read())
    app = AttnApp(load(path), remember=False, classroom=Classroom(leader=leader))
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.press("ctrl+r")
            assert app.screen.lessons.recorder is None
            assert any("while leading a class" in note.message for note in app._notifications)
    finally:
        leader.close()


# ---- left for the lead --------------------------------------------------------------------------

def test_a_view_asked_for_on_the_command_line_is_not_saved_unasked(write):
    import argparse

    from attn_tui.core.model.edits import SetCell
    from attn_tui.core.editing.session import Session
    from attn_tui.tui.cli import with_views

    path = write(BASE)
    scenario = with_views(argparse.ArgumentParser(), argparse.Namespace(tiles="2,2", decode=True), load(path))
    session = Session(scenario)
    session.apply(SetCell("Q", 0, 0, 5.0, 1.0))
    session.save()
    assert "tiles" not in path.read_text() and "decode" not in path.read_text()


def test_tiles_saved_into_a_block_mapping_keep_each_comment(write):
    from attn_tui.core.editing.session import Session
    from attn_tui.core.engine.stages import online

    path = write(BASE + "tiles:   # the walk\n  queries: 2   # Br\n  keys: 2      # Bc\nfocus: b\n")
    session = Session(load(path))
    session.apply(online.tiled(session.scenario, 1, 1))
    session.save()
    text = path.read_text()
    assert "# Br" in text and "{queries: 1, keys: 1}      # Bc" not in text


def test_keys_added_to_a_crlf_file_end_with_crlf(tmp_path):
    from attn_tui.core.editing.session import Session
    from attn_tui.core.engine.stages import decode

    path = tmp_path / "crlf.yaml"
    path.write_bytes(BASE.replace("\n", "\r\n").encode())
    session = Session(load(path))
    session.apply(decode.STAGE.flip(session.scenario))
    session.save()
    data = path.read_bytes()
    assert data.count(b"\n") == data.count(b"\r\n")
