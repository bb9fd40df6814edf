"""The app on real sizes: scrolling, go-to, the overview, folded sums, an edit at the far end."""

from __future__ import annotations

import numpy as np
import pytest

from attn_tui.core import Scenario, compute, load
from attn_tui.core.numbers import fixed
from attn_tui.tui.controllers.why_pane import UNFOLDED
from attn_tui.tui.widgets.explanation import ExplanationView
from attn_tui.tui.widgets.overview import OverviewMap
from tests.tui_helpers import (
    current,
    debugger,
    drawn_lines,
    explanation,
    matrix,
    post,
    running,
    screen_text,
    stage_view,
)

T, D = 512, 64


@pytest.fixture(scope="module")
def big_scenario(tmp_path_factory):
    folder = tmp_path_factory.mktemp("big")
    rng = np.random.RandomState(5)
    np.savez(folder / "head.npz", Q=rng.randn(T, D), K=rng.randn(T, D), V=rng.randn(T, D))
    (folder / "head.yaml").write_text("title: One head\nnpz: head.npz\nfocus: 1\n")
    return folder / "head.yaml"


@pytest.mark.slow
async def test_scroll_to_the_last_row_and_edit_a_cell_there(big_scenario):
    async with running(big_scenario) as (app, pilot):
        screen = debugger(app)
        assert screen.row == 0
        await pilot.press("4")
        for _ in range(3):
            await pilot.press("pagedown")
        page = stage_view(app).scrollable_content_region.height - 2
        assert page > 5 and screen.row == 3 * page  # a page at a time
        await pilot.press("g", *"512", "enter")
        await pilot.pause()
        assert screen.row == T - 1
        view = stage_view(app)
        (first, last), _ = view.visible_window()
        assert first <= T - 1 < last  # the view scrolled to it
        assert f"t{T}" in screen_text(app)
        # edit Q[t512, d64]: Tab to Q, go to the cell, type a value
        await pilot.press("tab", "g", *f"t{T}, {D}", "enter")
        await pilot.pause()
        q = matrix(app, "Q")
        assert q.cursor == (T - 1, D - 1)
        await pilot.press("enter", "ctrl+u", *"3.5", "enter")
        session = screen.session
        assert session.scenario.Q[T - 1, D - 1] == 3.5
        scenario = load(big_scenario)
        edited_Q = scenario.Q.copy()
        edited_Q[T - 1, D - 1] = 3.5
        expected = compute(
            Scenario(
                title="by hand",
                tokens=scenario.tokens,
                inputs={"Q": edited_Q, "K": scenario.K, "V": scenario.V},
            )
        )
        assert np.allclose(current(app).weights[T - 1], expected.weights[T - 1], rtol=0, atol=1e-12)
        await pilot.press("shift+tab")
        texts = stage_view(app).row_texts(T - 1)
        assert texts == [fixed(w, 3, tiny=False) for w in expected.weights[T - 1]]
        shown = next(line for line in drawn_lines(stage_view(app)) if line.startswith(f"t{T} "))
        visible = [fixed(w, 3, tiny=False) for w in expected.weights[T - 1][:3]]
        assert shown.split()[1:4] == visible


async def test_only_whole_cells_are_drawn_and_labels_stay_in_view(big_scenario):
    async with running(big_scenario) as (app, pilot):
        await pilot.press("4")
        for _ in range(40):
            await pilot.press("right_square_bracket")
        view = stage_view(app)
        (_, _), (first_col, last_col) = view.visible_window()
        assert first_col > 0 and first_col <= 40 < last_col  # scrolled right to the cursor
        lines = drawn_lines(view)
        header = lines[0].split()
        assert header[0] == f"t{first_col + 1}" and "t1" not in header  # columns scrolled…
        row = next(line for line in lines[1:] if line.startswith("t5 "))  # …row labels stayed
        cells = row.split()[1:]
        assert len(cells) == last_col - first_col
        assert all(len(cell) == 5 and cell[1] == "." for cell in cells)  # no number cut in half


async def test_the_overview_marks_the_window_and_a_click_moves_there(big_scenario):
    async with running(big_scenario) as (app, pilot):
        await pilot.press("4")
        overview = await map_arrived(app, pilot)
        assert overview.small is not None and overview.small.shape[0] >= 16
        assert not overview.stale and "updating" not in screen_text(app)
        assert overview.window[0] == 0
        await pilot.click(OverviewMap, offset=(20, 10))  # somewhere in the lower half
        await pilot.pause()
        screen = debugger(app)
        assert screen.row > T // 2 and screen.column > 0
        rows, _ = stage_view(app).visible_window()
        assert rows[0] <= screen.row < rows[1]
        assert overview.window[0] == rows[0] and overview.selected_row == screen.row


async def test_long_sums_fold_and_x_unfolds_them(big_scenario):
    async with running(big_scenario) as (app, pilot):
        await pilot.press("end")
        assert "more terms" in explanation(app)
        await pilot.press("x")
        await pilot.pause()
        # unfolded to 64 terms (the app's limit: every one of T would cost a key 0.2 s)
        assert T > UNFOLDED  # (so the first 62 terms, "…", and the last are shown)
        assert explanation(app).count(" × [") == UNFOLDED - 1
        assert f"… {T - (UNFOLDED - 2) - 1} more terms …" in explanation(app)
        await pilot.press("x")
        assert "more terms" in explanation(app)


async def test_the_focus_row_is_in_view_from_the_start(big_scenario, tmp_path):
    path = tmp_path / "last.yaml"
    path.write_text(
        big_scenario.read_text()
        .replace("focus: 1", f"focus: {T}")
        .replace("npz: head.npz", f"npz: {big_scenario.parent / 'head.npz'}")
    )
    async with running(path) as (app, pilot):
        await pilot.pause()
        rows, _ = stage_view(app).visible_window()
        assert rows[0] <= T - 1 < rows[1]


async def test_the_overview_gives_way_under_100_columns(big_scenario):
    async with running(big_scenario, size=(90, 30)) as (app, pilot):
        assert app.screen.query_one(OverviewMap).region.width == 0
        assert stage_view(app).region.width > 50


def _painted(app) -> list[list[tuple[str, object]]]:
    """The screen as the compositor has it now: each widget's kept lines, styles included."""
    return [
        [(segment.text, segment.style) for segment in strip]
        for strip in app.screen._compositor.render_strips()
    ]


async def test_partial_repaints_leave_the_screen_as_a_full_repaint_would(big_scenario):
    """Keys repaint only the lines they change (the overview's window, one scrollbar of two): a
    line left out would keep showing the old window or the old thumb (a tall terminal: the window
    spans more lines of the map than the ◀ that moves with it)."""
    async with running(big_scenario, size=(160, 70)) as (app, pilot):
        await workers_done(app)
        for keys in (
            ["4"],
            ["pagedown", "pagedown"],
            ["right_square_bracket"] * 30,
            ["1"],
            ["end"],
            ["g", *"400", "enter"],
            ["left"],
            ["pageup"],
        ):
            await post(app, *keys)
            await map_arrived(app, pilot)  # else the map may arrive between the two paintings
            for view in (
                stage_view(app),
                app.screen.query_one(ExplanationView),
            ):  # bars fit their view
                width, height = view.container_size
                for bar, virtual, room in (
                    (
                        view.vertical_scrollbar,
                        view.virtual_size.height,
                        height - view.scrollbar_size_horizontal,
                    ),
                    (
                        view.horizontal_scrollbar,
                        view.virtual_size.width,
                        width - view.scrollbar_size_vertical,
                    ),
                ):
                    assert (bar.window_virtual_size, bar.window_size) == (
                        virtual,
                        room,
                    ) or not bar.display, keys
            kept = _painted(app)
            for widget in app.screen.walk_children():
                widget.refresh()
            await pilot.pause()
            assert kept == _painted(app), keys


async def map_arrived(app, pilot) -> OverviewMap:
    """Wait for the overview's map of the current numbers: it is computed off the key path, once
    the keys pause (0.2 s)."""
    overview = app.screen.query_one(OverviewMap)
    for _ in range(100):
        await workers_done(app)
        await pilot.pause(0.05)
        if overview.small is not None and not overview.stale:
            break
    return overview


async def workers_done(app) -> None:
    """Wait for the workers to finish: a computation replaced by the next (the overview's worker is
    exclusive) is cancelled, which Textual's wait_for_complete raises; wait for the one that won."""
    from textual.worker import WorkerCancelled

    for _ in range(50):
        try:
            await app.workers.wait_for_complete()
            return
        except WorkerCancelled:
            continue


async def test_a_step_to_a_stage_of_other_widths_lays_the_screen_out_once(tmp_path, monkeypatch):
    # a step from Weighted sum (T × d_v) back to Softmax (T × T) must lay the screen out once:
    # cells measured only as they are drawn grow after the first layout, and the scrollbars and
    # the Why pane follow one layout each (four layouts, 130 ms)
    from textual.screen import Screen

    (tmp_path / "wide.yaml").write_text("title: wide\nrandom: {seed: 1, T: 16, d_k: 64}\n")
    layouts = []
    refresh_layout = Screen._refresh_layout

    def counted(self, *args, **kwargs):
        layouts.append(self)
        return refresh_layout(self, *args, **kwargs)

    monkeypatch.setattr(Screen, "_refresh_layout", counted)
    async with running(tmp_path / "wide.yaml", size=(120, 40)) as (app, pilot):
        await pilot.press("5")
        await pilot.pause(0.3)
        width = stage_view(app).cell_width
        for key, stage in (("left", "softmax"), ("right", "weighted_sum")):
            layouts.clear()
            await pilot.press(key)
            await pilot.pause(0.3)
            assert debugger(app).stage == stage
            assert len(layouts) <= 1, (key, len(layouts))
        assert stage_view(app).cell_width == width


async def test_labels_are_measured_once_not_at_every_step(big_scenario, monkeypatch):
    # a step between two stages of other labels (tokens × tokens, tokens × d1…) must not measure
    # every label of both again (8,192 of them at T = 16,384), twice a key
    import attn_tui.tui.widgets.matrix_widths as matrix_module

    measured = []
    cells = matrix_module.cells

    def counted(text):
        measured.append(text)
        return cells(text)

    async with running(big_scenario) as (app, pilot):
        await pilot.press("5")
        await pilot.pause()
        monkeypatch.setattr(matrix_module, "cells", counted)
        for key in ("left", "right", "left", "right"):
            await pilot.press(key)
        await pilot.pause()
        assert debugger(app).stage == "weighted_sum"
        assert len(measured) < 50, len(measured)
        assert stage_view(app).label_width == len("t512") + 1


async def test_the_overview_waits_while_keys_come_and_arrives_when_they_stop(big_scenario):
    # computed in a thread beside the keys, the map of a large T would share the processor with
    # each key's frame: it waits while keys come (until INPUT_QUIET after the last)
    from attn_tui.tui.app import INPUT_QUIET

    async with running(big_scenario) as (app, pilot):
        await pilot.press("4")
        overview = await map_arrived(app, pilot)
        assert not overview.stale
        await pilot.press("tab", "plus")  # an edit of Q: the map is stale
        for _ in range(10):  # a key every ~0.1 s for a second: 0.2 s of quiet starts the map
            await pilot.press("down")
            await pilot.pause(0.04)
        assert overview.stale and "updating" in screen_text(app)
        await pilot.pause(INPUT_QUIET)
        overview = await map_arrived(app, pilot)
        assert not overview.stale and "updating" not in screen_text(app)
