"""Tiles and decoding where a user meets them (found attacking issue 20): tiles the command line
or the palette is given are bounded as a file's are, the causal mask stays on while decoding (c,
a lesson and a recovery copy alike), big tiles and the Why pane, the projector's tiles, and what
a save writes of them."""

from __future__ import annotations

import numpy as np
import pytest

from attn_tui.core import load, loads
from attn_tui.core.errors import NotApplicable, ScenarioError
from tests.engine.test_online_softmax_and_decoding_against_the_papers import BASE, run

# ---- tiles from the command line and the palette ------------------------------------------------


@pytest.mark.parametrize(
    "tiles, said",
    [
        (
            "2,99999999999999999999",
            "99,999,999,999,999,999,999 keys a tile",
        ),  # was an internal error, exit 3
        (
            "99999999999999999999,2",
            "query rows a pass",
        ),  # was taken: the app could then save nothing
        ("3,100000", "100,000 keys a tile: tiles take from 1 to 16,384"),
    ],
)
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
    from attn_tui.core.editing.session import Session
    from attn_tui.core.engine.stages import decode
    from attn_tui.core.model.edits import SetCell

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
    from attn_tui.core.editing.session import Session
    from attn_tui.core.model.edits import SetOption

    path = write(BASE + "decode: true\n")
    session = Session(load(path))
    copy = recovery.Recovery(str(path), (SetOption("causal", False, True),), 0.0, True)
    skipped = session.journal.restore(copy)
    assert session.scenario.options.causal and len(skipped) == 1
    assert skipped[0].endswith(": the file now decodes (decode: true), which needs the causal mask")


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
            causal=bool(rng.random() < 0.6),
            window=int(rng.integers(1, 10)) if rng.random() < 0.4 else None,
            padding=rng.random(T_k) < 0.3 if rng.random() < 0.4 else None,
            explicit=rng.random((T_q, T_k)) < 0.6 if rng.random() < 0.3 else None,
            causal_offset=int(rng.choice([0, 1, 2])),
        )
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
        return [
            (
                " ".join(str(static.render()) for static in cell.query(Static)),
                cell.has_class("-cursor"),
            )
            for cell in app.screen.query_one("#cells").children
        ]

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
        await pilot.press(
            "p", "d", "down", "p"
        )  # Decode, "cat": the keys after it are not in the cache
        await pilot.pause()
        shown = cells(app)
        later = [text for text, _ in shown if not text.startswith(("the₁", "cat"))]
        assert later and all(text.endswith(" ·") for text in later), shown


# ---- left for the lead --------------------------------------------------------------------------


def test_a_view_asked_for_on_the_command_line_is_not_saved_unasked(write):
    import argparse

    from attn_tui.core.editing.session import Session
    from attn_tui.core.model.edits import SetCell
    from attn_tui.tui.cli import with_views

    path = write(BASE)
    scenario = with_views(
        argparse.ArgumentParser(), argparse.Namespace(tiles="2,2", decode=True), load(path)
    )
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
