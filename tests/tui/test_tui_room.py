"""The screens use the room a terminal has (issue 29: at 120×40 the model view of two layers
left 24 lines empty, and a stage of 13 keys showed 5 of them beside wide inputs)."""

from __future__ import annotations

import numpy as np

from attn_tui.core.loading.model_index import read_index
from attn_tui.tui.app import AttnApp
from attn_tui.tui.widgets.head_map import HeadMap
from tests.reading.test_model_index import two_layer_index
from tests.tui.test_model_view import wait_for
from tests.tui_helpers import running, stage_view


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
        (first, last), = [view.visible_window()[1]]
        assert last - first >= 10  # of 13 keys (5 with the inputs at 40%)
        assert app.screen.query_one("#inputs").outer_size.width <= 32
