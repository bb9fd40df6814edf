"""The screens use the room a terminal has (issue 29: at 120×40 the model view of two layers
left 24 lines empty, and a stage of 13 keys showed 5 of them beside wide inputs)."""

from __future__ import annotations

import numpy as np

from attn_tui.core.loading.model_index import read_index
from attn_tui.tui.app import AttnApp
from attn_tui.tui.widgets.head_map import HeadMap
from tests.reading.test_model_index import two_layer_index
from tests.tui.test_model_view import wait_for
from tests.tui_helpers import drawn_lines, running, screen_text, stage_view


async def test_a_model_of_few_layers_fills_the_screen_with_larger_maps(tmp_path):
    app = AttnApp(index=read_index(str(two_layer_index(tmp_path))), remember=False)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = app.screen
        await wait_for(pilot, lambda: screen.maps_done == 8)
        heights = {view.outer_size.height for view in screen.query(HeadMap)}
        assert heights == {(40 - 4) // 2}  # two rows share the screen's 36 lines
        await pilot.resize_terminal(120, 30)
        await pilot.pause()
        assert {view.outer_size.height for view in screen.query(HeadMap)} == {(30 - 4) // 2}


async def test_a_wide_stage_takes_the_width_and_the_inputs_what_is_left(tmp_path):
    rng = np.random.RandomState(0)
    np.savez(tmp_path / "l.npz", Q=rng.randn(13, 8), K=rng.randn(13, 8), V=rng.randn(13, 8))
    (tmp_path / "l.yaml").write_text("title: thirteen\nnpz: l.npz\n")
    async with running(tmp_path / "l.yaml") as (app, pilot):
        await pilot.pause()
        view = stage_view(app)
        ((first, last),) = [view.visible_window()[1]]
        assert last - first >= 10  # of 13 keys (5 with the inputs at 40%)
        assert app.screen.query_one("#inputs").outer_size.width <= 32


def _sixteen_tokens(tmp_path):
    """16 keys labelled token01 … token16 (7 characters), weights of 5 ("0.123")."""
    rng = np.random.RandomState(1)
    np.savez(tmp_path / "s.npz", Q=rng.randn(16, 4), K=rng.randn(16, 4), V=rng.randn(16, 4))
    tokens = ", ".join(f"token{n:02}" for n in range(1, 17))
    (tmp_path / "s.yaml").write_text(f"title: sixteen\nnpz: s.npz\ntokens: [{tokens}]\n")
    return tmp_path / "s.yaml"


async def test_a_cell_is_as_wide_as_its_widest_text_and_one_gap(tmp_path):
    # the helper's check of #29 saw 8 of 16 keys at 120 columns: a label of 7 took 9 columns
    # where 8 hold it and the gap after it
    async with running(_sixteen_tokens(tmp_path), size=(120, 40)) as (app, pilot):
        await pilot.press("4")  # Softmax: every weight 0.xxx or 1.000
        await pilot.pause()
        view = stage_view(app)
        assert view.cell_width == len("token16") + 1
        header = drawn_lines(view)[0]
        assert " token09 token10" in header  # one gap between labels
        ((first, last),) = [view.visible_window()[1]]
        assert last - first >= 10


async def test_a_score_that_reads_0_001_leaves_no_room_for_an_exponent(tmp_path):
    # 0.000998 is written 0.001 (fixed() rounds it); a cell kept room for "−4.000e−4" all the same
    (tmp_path / "t.yaml").write_text(
        "title: tiny\ntokens: [a]\nQ: [[0.000998]]\nK: [[1]]\nV: [[1]]\n"
    )
    async with running(tmp_path / "t.yaml") as (app, pilot):
        view = stage_view(app)
        assert view.texts[0][0] == "0.001"
        assert view.cell_width == len("0.001") + 2


async def test_z_gives_the_stage_the_width_and_tab_brings_the_inputs_back(tmp_path):
    async with running(_sixteen_tokens(tmp_path), size=(120, 40)) as (app, pilot):
        await pilot.press("4")
        await pilot.pause()
        view = stage_view(app)
        inputs = app.screen.query_one("#inputs")
        ((first, last),) = [view.visible_window()[1]]
        shown_before = last - first
        await pilot.press("z")
        await pilot.pause()
        assert not inputs.display and view.outer_size.width == 120
        ((first, last),) = [view.visible_window()[1]]
        assert last - first == 16 - first or last - first >= shown_before + 3
        assert "z Zoom" in screen_text(app)
        await pilot.press("tab")
        await pilot.pause()
        assert inputs.display and view.outer_size.width < 120
        assert app.focused is not None and app.focused.id == "input-Q"
        await pilot.press("z")  # from an input: back to the stage, zoomed
        await pilot.pause()
        assert not inputs.display and app.focused is view
        await pilot.press("z")
        await pilot.pause()
        assert inputs.display


async def test_help_wraps_every_line_under_itself_at_any_width():
    # the check of #29: "Reading the screen" ran on at column 0 and split words ("a row tha" /
    # "t can")
    from attn_tui.tui.screens.help import READING

    for width in (40, 80, 120):  # (at 40 the keys' descriptions split words too)
        async with running(size=(width, 40)) as (app, pilot):
            await pilot.press("question_mark")
            await pilot.pause()
            text = app.screen.query_one("#keys").render()
            lines = str(text).splitlines()
            reading = lines[lines.index("Reading the screen") + 1 :]
            assert reading and all(line.startswith("  ") for line in reading), reading
            assert " ".join(line.strip() for line in reading) == READING  # whole words, all of them
            box = app.screen.query_one("#keys").content_region.width
            assert max(len(line) for line in lines) <= box


async def test_the_key_column_stays_in_view_when_the_step_changes(tmp_path):
    # the attack on #29: at key t30 of 30, Softmax (narrower cells than Score's) showed t12-t17
    (tmp_path / "t30.yaml").write_text("title: t30\nrandom: {seed: 0, T: 30, d_k: 4}\n")
    async with running(tmp_path / "t30.yaml", size=(120, 40)) as (app, pilot):
        await pilot.press("g", "3", "0", "space", "3", "0", "enter")
        await pilot.pause()
        view = stage_view(app)
        for step in ("4", "1", "3"):
            await pilot.press(step)
            await pilot.pause()
            ((first, last),) = [view.visible_window()[1]]
            assert view.cursor == (29, 29) and first <= 29 < last, (step, first, last)


async def test_a_tiny_score_with_a_two_digit_exponent_fits_its_cell(tmp_path):
    # the attack on #29: −1.0e−11 was one character wider than the room kept for "−4.000e−4"
    (tmp_path / "t.yaml").write_text(
        "title: tiny\ntokens: [a, b]\nQ: [[1.0e-5, 0], [1, 1]]\n"
        "K: [[-1.0e-6, 0], [1, 1]]\nV: [[1, 0], [0, 1]]\ncausal: false\n"
    )
    async with running(tmp_path / "t.yaml") as (app, pilot):
        view = stage_view(app)
        assert view.texts[0][0] == "−1.0e−11"  # by hand: 1e-5 × −1e-6
        assert view.cell_width >= len("−1.0e−11") + 2
        header, first = drawn_lines(view)[:2]
        assert len(header.rstrip()) == len(first.rstrip())  # the row's right edge is the header's


async def test_the_first_push_does_not_restyle_what_mounting_styled(monkeypatch):
    # #30: Textual restyles every widget of a screen when it is pushed; at the first push the
    # debugger's widgets are as they were styled at their mount (~13 ms of the start)
    from attn_tui.tui.screens.debugger import DebuggerScreen

    calls = []
    update = DebuggerScreen.update_node_styles
    monkeypatch.setattr(
        DebuggerScreen,
        "update_node_styles",
        lambda self, *a, **k: (self.is_mounted and calls.append(self), update(self, *a, **k))[1],
    )
    async with running() as (app, pilot):
        await pilot.pause()
        assert calls == []
        assert "raw scores: [1, 1, 2]" in screen_text(app)
