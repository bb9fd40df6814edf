"""One key, one frame: a key's changes are drawn together. Textual drew a beat's
narration bar a frame (~40 ms) after the rest of the beat, and a user saw the step move before
the lesson said why."""

from __future__ import annotations

import numpy as np

from attn_tui.tui.whole_frames import collect_refreshes
from tests.conftest import SCENARIOS
from tests.tui_helpers import debugger, running, screen_text, stage_view

LESSON = (
    (SCENARIOS / "cat_sat.yaml").read_text()
    + """lesson:
  - {step: softmax, row: cat}
  - {step: weighted_sum, row: sat, edit: {matrix: Q, row: sat, col: 1, to: 3.5}, \
say: A louder query.}
"""
)


def record_frames(screen) -> list[set[str]]:
    """The widgets each frame of ``screen`` draws from now on (by class name)."""
    frames: list[set[str]] = []
    draw = screen._compositor_refresh

    def recording() -> None:
        frames.append({type(widget).__name__ for widget in screen._dirty_widgets})
        draw()

    screen._compositor_refresh = recording
    return frames


async def test_a_beat_is_drawn_in_one_frame(tmp_path):
    path = tmp_path / "lesson.yaml"
    path.write_text(LESSON)
    async with running(path) as (app, pilot):
        screen = debugger(app)
        for key, beat in (("n", 1), ("N", 0), ("n", 1)):
            frames = record_frames(screen)
            await pilot.press(key)
            await pilot.pause(0.1)
            assert screen.lessons.player.beat == beat
            drawn = [frame for frame in frames if "StageView" in frame]
            assert len(drawn) == 1, frames  # the stage once…
            assert "NarrationBar" in drawn[0] and "ExplanationView" in drawn[0], (
                frames
            )  # …with the words


async def test_refreshes_asked_for_are_collected_at_once():
    async with running() as (app, pilot):
        screen = debugger(app)
        screen.narration.refresh()
        screen.why.refresh()
        assert screen.narration._repaint_required and screen.why._repaint_required
        collect_refreshes(screen)
        assert not screen.narration._repaint_required and not screen.why._repaint_required


async def test_a_step_that_moves_the_layout_is_drawn_in_one_frame(tmp_path):
    """A stage of 16 keys beside one of 16 scores: the step lays the panes out again, and every
    matrix's scroll bars, told their new size by that layout, were drawn a frame (~30 ms) later."""
    rng = np.random.RandomState(16)
    np.savez(tmp_path / "head.npz", Q=rng.randn(16, 64), K=rng.randn(16, 64), V=rng.randn(16, 64))
    path = tmp_path / "head.yaml"
    path.write_text("title: sixteen tokens\nnpz: head.npz\n")
    async with running(path) as (app, pilot):
        screen = debugger(app)
        await pilot.pause(0.1)
        for key in ("right", "left", "right"):
            frames = record_frames(screen)
            await pilot.press(key)
            await pilot.pause(0.15)
            assert len(frames) == 1, frames
            assert {"StageView", "ScrollBar"} <= frames[0], frames


async def test_the_first_frame_draws_every_row_in_view():
    """At 70×20 the panes' second sharing of the width made the stage taller in a frame that
    drew the old, shorter window: the focus row "t5" stayed blank until a key moved the view."""
    async with running(SCENARIOS / "scaled_vs_unscaled_t5.yaml", size=(70, 20)) as (app, pilot):
        await pilot.pause(0.3)
        stage = stage_view(app)
        assert stage.size.height > 6  # (room for the five rows, as the frame below shows)
        drawn = screen_text(app)
        assert "t5   3.739   0.060" in drawn, drawn
