"""The model view (tui/screens/model_view.py), driven by the keys a user presses: an index opens
as a grid of layers × heads, the maps arrive, arrows choose, Enter opens that layer and head in
the debugger, Esc comes back, s colours by a pattern score."""

from __future__ import annotations

import numpy as np
import pytest

from attn_tui.core import load
from attn_tui.core.engine.attention import Attention
from attn_tui.core.loading.model_index import read_index
from attn_tui.core.teaching.overview import weights_overview
from attn_tui.core.teaching.patterns import pattern_scores
from attn_tui.tui.app import AttnApp
from attn_tui.tui.screens.debugger import DebuggerScreen
from attn_tui.tui.screens.model_view import ModelViewScreen
from attn_tui.tui.widgets.head_map import HeadMap
from tests.reading.test_model_index import two_layer_index
from tests.tui_helpers import screen_text


async def wait_for(pilot, condition, tries: int = 200) -> None:
    for _ in range(tries):
        if condition():
            return
        await pilot.pause(0.02)
    raise AssertionError("timed out")


@pytest.fixture
def index(tmp_path):
    return read_index(str(two_layer_index(tmp_path)))


async def test_the_grid_shows_every_head_of_every_layer_with_its_map(index):
    app = AttnApp(index=index, remember=False)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = app.screen
        assert isinstance(screen, ModelViewScreen)
        await wait_for(pilot, lambda: screen.maps_done == 8)
        maps = {(view.grid_row, view.head): view for view in screen.query(HeadMap)}
        assert sorted(maps) == [(row, h) for row in (0, 1) for h in range(4)]
        text = screen_text(app)
        assert "two layers" in text and "layer 0" in text and "layer 1" in text
        assert "◀" in text  # the focus row is marked
        # each map is core's block means of that head's weights
        view = maps[(1, 2)]
        scenario = load(index.layers[1].path)
        expected = weights_overview(Attention(scenario), 2, *view.wanted)
        largest = expected.max(axis=1, keepdims=True)
        assert np.allclose(view.small, expected / largest)
        assert view.selected_row == scenario.focus == 5


async def test_a_map_line_is_a_segment_per_run_of_equal_cells(index):
    """Each segment costs a style sent to the terminal: equal neighbours are one segment (the
    masked corner of a causal map is a run of equal cells)."""
    app = AttnApp(index=index, remember=False)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = app.screen
        await wait_for(pilot, lambda: screen.maps_done == 8)
        view = next(view for view in screen.query(HeadMap) if (view.grid_row, view.head) == (0, 0))
        width = view.content_size.width
        runs = 0
        for y in range(1, view.content_size.height):
            segments = list(view.render_line(y))
            cells = [segment for segment in segments if "▀" in segment.text]
            assert "".join(segment.text for segment in cells) == "▀" * (width - 1)
            assert all(a.style != b.style for a, b in zip(cells, cells[1:]))
            runs += sum(len(segment.text) > 1 for segment in cells)
        assert runs > 0


async def test_arrows_choose_enter_opens_the_head_and_esc_comes_back(index):
    app = AttnApp(index=index, remember=False)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = app.screen
        await pilot.press("down", "right", "right")
        assert screen.chosen == (1, 2)
        assert [(v.grid_row, v.head) for v in screen.query(HeadMap) if v.has_class("-chosen")] == [
            (1, 2)
        ]
        await pilot.press("right", "right", "right")  # stops at the last head
        assert screen.chosen == (1, 3)
        await pilot.press("left", "enter")
        await pilot.pause()
        debugger = app.screen
        assert isinstance(debugger, DebuggerScreen) and debugger.head == 2
        assert debugger.session.scenario.head_names[2] == "h2"  # the second layer's file
        assert "h2" in screen_text(app)
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is screen and screen.chosen == (1, 2)


async def test_the_layer_opened_last_is_kept_where_it_was_left_until_its_edits_are_discarded(index):
    """Enter on the layer opened last is a switch of screens (the debugger kept, at its step, on
    the head now chosen); once its unsaved edits are discarded, Enter opens the file afresh."""
    app = AttnApp(index=index, remember=False)
    async with app.run_test(size=(120, 40)) as pilot:
        grid = app.screen
        await pilot.press("down", "enter")
        await pilot.pause()
        first = app.screen
        await pilot.press("3", "escape")
        await pilot.pause()
        await pilot.press("right", "enter")
        await pilot.pause()
        assert app.screen is first and first.step == 2 and first.head == 1
        first.session.set_cell("Q", 0, 0, 7.0, 1)
        await pilot.press("escape")
        await pilot.pause()
        assert "unsaved edits" in screen_text(app)
        await pilot.press("d")  # discard
        await pilot.pause()
        assert app.screen is grid
        await pilot.press("enter")
        await pilot.pause()
        again = app.screen
        assert again is not first and not again.session.modified and again.step == 0


async def test_the_kept_layer_is_restyled_on_enter_only_when_the_theme_or_palette_changed(
    index, monkeypatch
):
    """Enter on the kept layer does not work out its widgets' styles again (Textual does on every
    push: most of Enter's time) unless something they depend on changed while the grid was up."""
    app = AttnApp(index=index, remember=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("enter")
        await pilot.pause()
        layer = app.screen
        dark = layer.styles.background
        await pilot.press("escape")
        await pilot.pause()
        restyled = []
        update_styles = app.update_styles
        monkeypatch.setattr(
            app,
            "update_styles",
            lambda node, animate=True: (
                restyled.append(node),
                update_styles(node, animate=animate),
            ),
        )
        await pilot.press("enter")
        await pilot.pause()
        assert app.screen is layer and layer not in restyled
        await pilot.press("escape")
        await pilot.pause()
        app.theme = "textual-light"
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        assert app.screen is layer and layer in restyled and layer.styles.background != dark
        await pilot.press("escape")
        await pilot.pause()
        restyled.clear()
        app.set_class(True, "-colour-blind")  # the palette, as the command palette sets it
        await pilot.press("enter")
        await pilot.pause()
        assert layer in restyled


async def test_s_colours_each_head_by_its_score(index):
    app = AttnApp(index=index, remember=False)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = app.screen
        await pilot.press("s")
        assert screen.score == "previous"
        await wait_for(pilot, lambda: screen.scores is not None)
        await pilot.pause()
        scenario = load(index.layers[0].path)
        rows = range(scenario.T)
        weights = Attention(scenario).head(1).values("softmax", rows, rows)
        expected = pattern_scores(weights, scenario.tokens)["previous"]
        view = next(v for v in screen.query(HeadMap) if (v.grid_row, v.head) == (0, 1))
        assert view.score_text == f"prev {expected:.2f}"
        level = min(4, int(expected * 5))
        assert level == 0 or view.has_class(f"-score-{level}")
        assert "s colour: previous" in screen_text(app)
        for _ in range(5):  # first, self, local, induction, then off
            await pilot.press("s")
        assert screen.score is None and view.score_text == ""


async def test_s_keeps_the_20_second_rule_and_says_so(index, monkeypatch):
    """Issue 47 (attacked): s scored every layer of an index heads refuses at once, for minutes
    and gigabytes. With reading made to cost a minute a MB, this index's two small files are
    past the limit: s is refused in words, nothing is scored, and the colouring goes back off."""
    from attn_tui.core.loading import work_estimate

    monkeypatch.setattr(work_estimate, "YAML_SECONDS_PER_MB", 60.0 * 2**20)  # a minute a byte
    app = AttnApp(index=index, remember=False)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = app.screen
        await pilot.press("s")
        await wait_for(pilot, lambda: screen.score is None)
        await pilot.pause()
        assert screen.scores is None
        said = [notice.message for notice in app._notifications]
        assert any(
            m.startswith("s: ") and "the 2 layers would take about" in m and "--layers" in m
            for m in said
        ), said
        assert "s colour: off" in screen_text(app)


async def test_a_layer_whose_file_is_broken_is_shown_not_fatal(tmp_path):
    path = two_layer_index(tmp_path)
    (tmp_path / "second.yaml").write_text("title: [broken\n", encoding="utf-8")
    app = AttnApp(index=read_index(str(path)), remember=False)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = app.screen
        await wait_for(pilot, lambda: screen.maps_done == 4)
        await pilot.pause()
        assert "unreadable" in screen_text(app)
        assert any("second.yaml:" in note.message for note in app._notifications)
        await pilot.press("down", "enter")
        await pilot.pause()
        assert app.screen is screen  # nothing to open: told, not crashed


async def test_an_index_that_names_each_layers_heads_opens_without_reading_them_first(tmp_path):
    """capture writes heads: into the index; the grid is laid out from it, and a file that
    turns out broken when its maps are computed is told, its cells marked."""
    path = two_layer_index(tmp_path)
    path.write_text(
        path.read_text()
        .replace(".yaml}", ".yaml, heads: 4}")
        .replace('.yaml"}', '.yaml", heads: 4}')
    )
    (tmp_path / "second.yaml").write_text("title: [broken\n", encoding="utf-8")
    index = read_index(str(path))
    assert [entry.heads for entry in index.layers] == [4, 4]
    app = AttnApp(index=index, remember=False)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = app.screen
        assert len(list(screen.query(HeadMap))) == 8
        await wait_for(pilot, lambda: screen.maps_done == 4 and screen.listed[1][2] is not None)
        await pilot.pause()
        assert "unreadable" in screen_text(app)
        await pilot.press("down", "enter")
        await pilot.pause()
        assert app.screen is screen


async def test_only_the_layers_in_view_are_computed_and_moving_brings_the_rest(tmp_path):
    two_layer_index(tmp_path)
    path = tmp_path / "deep.yaml"
    path.write_text(
        "model_index: 1\nlayers:\n"
        + "".join(
            f"  - {{layer: {n}, scenario: tiny_gpt2_l1.yaml, heads: 4}}\n" for n in range(10)
        ),
        encoding="utf-8",
    )
    app = AttnApp(index=read_index(str(path)), remember=False)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = app.screen
        await wait_for(
            pilot, lambda: screen.in_view_maps and screen.maps_done >= screen.in_view_maps
        )
        await pilot.pause(0.3)
        first = screen.maps_done
        assert (
            screen.rows_fit == 5 and len(list(screen.query(HeadMap))) == 5 * 4
        )  # a window, not 40
        assert first == screen.in_view_maps + 4 < 40  # one layer ahead; the others below wait
        assert (9, 0) not in screen._cache
        for _ in range(9):
            await pilot.press("down")
        assert screen.chosen == (9, 0) and screen.top == 5
        await wait_for(pilot, lambda: (9, 0) in screen._cache)
        await pilot.pause()
        view = screen._map(9, 0)
        assert view.has_class("-chosen") and view.small is not None
        assert "layer 9" in screen_text(app) and "layer 4" not in screen_text(app)
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, DebuggerScreen) and app.screen.head == 0


async def test_a_model_wider_than_the_screen_shows_a_window_of_its_heads(tmp_path):
    two_layer_index(tmp_path)
    path = tmp_path / "wide.yaml"
    path.write_text(
        "model_index: 1\nlayers:\n"
        + "".join(
            f"  - {{layer: {n}, scenario: tiny_gpt2_l1.yaml, heads: 64}}\n" for n in range(80)
        ),
        encoding="utf-8",
    )
    app = AttnApp(index=read_index(str(path)), remember=False)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = app.screen
        assert len(list(screen.query(HeadMap))) == screen.rows_fit * screen.cols_fit <= 5 * 11
        for _ in range(20):
            await pilot.press("right")
        assert screen.chosen == (0, 20) and screen.left == 20 - screen.cols_fit + 1
        assert f"heads {screen.left}–20" in screen_text(app)


async def test_the_hint_counts_in_the_singular_too(tmp_path):
    # the check of #29: "1024 layers × 1 heads"
    (tmp_path / "one.yaml").write_text(
        "tokens: [a, b]\nQ: [[1], [0]]\nK: [[1], [0]]\nV: [[1], [0]]\n"
    )
    (tmp_path / "idx.yaml").write_text(
        "model_index: 1\nlayers:\n  - {layer: 0, scenario: one.yaml}\n"
    )
    app = AttnApp(index=read_index(str(tmp_path / "idx.yaml")), remember=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        assert app.screen._hint().startswith("1 layer × 1 head, each a map")


async def test_each_head_is_titled_as_its_layer_names_it(tmp_path):
    """Issue 47: the model view said h0 … where `heads` and the debugger say "head 1" … for a
    scenario written by hand (its heads count from 1). Once a layer is read, its maps are titled
    as it names its heads: a capture's "head 0" is h0, a hand-written "head 1" is h1, any other
    name as written (made visible, cut with …)."""
    hand = (
        "tokens: [a, b, c]\nheads: 2\nQ: [[[1, 0], [0, 1], [1, 1]], [[1, 0], [0, 1], [1, 1]]]\n"
        "K: [[[1, 0], [0, 1], [1, 1]], [[0, 1], [1, 0], [1, 1]]]\nV: [[[1, 0], [0, 1], [1, 1]], "
        "[[1, 0], [0, 1], [1, 1]]]\n"
    )
    (tmp_path / "hand.yaml").write_text(hand, encoding="utf-8")
    (tmp_path / "named.yaml").write_text(
        hand + 'head_names: [syntax, "a very long name\\e[31m"]\n', encoding="utf-8"
    )
    path = tmp_path / "model_layers.yaml"
    path.write_text(
        'model_index: 1\ntitle: "by hand"\nlayers:\n  - {layer: 0, scenario: hand.yaml}\n'
        "  - {layer: 1, scenario: named.yaml}\n",
        encoding="utf-8",
    )
    app = AttnApp(index=read_index(str(path)), remember=False)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = app.screen
        await wait_for(pilot, lambda: screen.maps_done == 4)
        await pilot.pause()
        titles = {
            (view.grid_row, view.head): str(view.border_title)
            for view in screen.query(HeadMap)
            if view.styles.visibility == "visible"
        }
    assert titles == {(0, 0): "h1", (0, 1): "h2", (1, 0): "syntax", (1, 1): "a very long…"}


async def test_the_first_frame_does_not_wait_for_the_layers_files_and_q_still_quits(
    tmp_path, monkeypatch
):
    """Issue 47, attack 9: 1,024 layers naming a 3.3 MB YAML file (no heads: in the index) gave a
    blank screen for minutes, q and ctrl+c unheard: every file was parsed before the first frame.
    Here reading a file blocks until the test lets it: the grid and its hint are drawn meanwhile,
    and the maps come once the files are read."""
    import threading

    from attn_tui.core.loading import scenario_file

    release, real = threading.Event(), scenario_file.read_document

    def slow(path):
        release.wait(10)
        return real(path)

    monkeypatch.setattr(scenario_file, "read_document", slow)
    index = read_index(str(two_layer_index(tmp_path)))
    app = AttnApp(index=index, remember=False)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = app.screen
        assert isinstance(screen, ModelViewScreen) and screen.listing
        await pilot.pause()
        text = screen_text(app)
        assert "2 layers: reading their files to count their heads" in text and "layer 1" in text
        release.set()
        await wait_for(pilot, lambda: screen.maps_done == 8)
        assert not screen.listing and len(list(screen.query(HeadMap))) == 8

    release.clear()
    app = AttnApp(index=read_index(str(two_layer_index(tmp_path))), remember=False)
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.pause()
            assert app.screen.listing
            await pilot.press("q")
            await pilot.pause()
            assert app.return_code == 0  # q heard while the files are still being read
    finally:
        release.set()
