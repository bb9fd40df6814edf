"""The stages of the 2025 models' attention in the app, played as a student would: the built-in
scenario opens on its first step, the keys step through it, the Why pane says the row's numbers,
and the lesson's edit leaves what the stage promises where it was (QK-norm: the weights, however
large x grows)."""

from __future__ import annotations

import pytest

from tests.conftest import SCENARIOS
from tests.tui_helpers import current, debugger, explanation, running, screen_text


async def test_qk_norm_opens_steps_and_keeps_the_weights_when_x_grows():
    async with running(SCENARIOS / "qk_norm.yaml") as (app, pilot):
        screen = debugger(app)
        assert screen.stage == "qk_norm" and "QK-norm" in screen_text(app)
        why = explanation(app)
        assert "q3 (sat) before the norm = [100.000, 100.000]" in why
        assert "= [1.500, 0.500]" in why and "whatever x is" in why
        weights = current(app).weights.copy()
        await pilot.press("right")
        assert screen.stage == "score"
        await pilot.press("n", "n", "n")  # the lesson: QK-norm, softmax, then x ten times larger
        assert screen.session.scenario.inputs["X"][2, :2].tolist() == [1000.0, 1000.0]
        assert screen.stage == "softmax"
        assert current(app).weights[2] == pytest.approx(weights[2], abs=1e-9)


async def test_sinks_open_step_and_the_why_pane_says_the_sinks_share():
    async with running(SCENARIOS / "attention_sinks.yaml") as (app, pilot):
        screen = debugger(app)
        await pilot.press("4")
        assert screen.stage == "softmax"
        why = explanation(app)
        assert "the sink (s1 = 2.000, learned)" in why and "0.602 (60%)" in why
        assert "60% goes to the sink, nowhere" in why
        await pilot.press("h")  # head 2: a low sink
        assert "the sink (s2 = −2.000, learned)" in explanation(app)
        await pilot.press("right")
        assert screen.stage == "weighted_sum"


async def test_chunked_attention_opens_steps_and_says_a_key_is_in_another_chunk():
    async with running(SCENARIOS / "chunked_attention.yaml") as (app, pilot):
        screen = debugger(app)
        await pilot.press("3")
        assert screen.stage == "mask"
        why = explanation(app)
        assert "(mat, sat) is in another chunk" in why and "(mat, on) is visible" in why
        await pilot.press("right")
        assert screen.stage == "softmax" and "chunks of 3" in screen_text(app)
