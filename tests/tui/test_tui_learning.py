"""Predict, then reveal; and a student's own values marked ✓/✗ with the likely bug."""

from __future__ import annotations

import numpy as np

from attn_tui.core import load
from tests.conftest import SCENARIOS
from tests.reference import softmax
from tests.tui_helpers import debugger, explanation, running, stage_view

SAT = 2


def with_lines(tmp_path, extra: str):
    path = tmp_path / "mine.yaml"
    path.write_text((SCENARIOS / "cat_sat.yaml").read_text() + extra)
    return path


async def test_predict_a_row_then_reveal_it(tmp_path):
    path = with_lines(tmp_path, "predict: [weights]\n")
    async with running(path) as (app, pilot):
        await pilot.press("4")
        view = stage_view(app)
        assert view.row_texts(SAT) == ["?", "?", "?"]
        assert view.row_texts(0) == ["?", "0.000", "0.000"]  # a masked weight is 0: no guess needed
        assert "8.169" not in explanation(app) and "r reveals the row" in explanation(app)
        # Enter opens a guess; Tab commits it and opens the next one
        await pilot.press("enter", *"0.25", "tab", *"0.1", "tab", *"0.5", "enter")
        assert view.row_texts(SAT) == ["0.250?", "0.100?", "0.500?"]
        await pilot.press("r")
        assert view.row_texts(SAT) == ["0.248✓", "0.248✗", "0.503✓"]  # 0.1 is 0.148 off
        text = explanation(app)
        assert "sum        = 8.169" in text  # the arithmetic, now that the row is shown
        assert "Score so far: 2 of 3 guesses close" in text
        assert view.row_texts(0) == ["?", "0.000", "0.000"]  # other rows stay hidden
        # keep the predictions as expect: and save them with the scenario
        app.screen.action_keep_predictions()
        await pilot.press("ctrl+s")
        await pilot.pause()
    saved = load(path)
    expected = saved.expect["weights"]
    assert expected.given.tolist() == [[False] * 3, [False] * 3, [True] * 3]
    assert expected.values[SAT].tolist() == [0.25, 0.1, 0.5]


async def test_a_students_values_are_marked_and_the_bug_named(tmp_path):
    Q = K = np.array([[1, 0], [0, 1], [1, 1]], float)
    scores = Q @ K.T  # the student forgot to divide by √d_k
    masked = np.where(np.triu(np.ones((3, 3)), 1).astype(bool), -np.inf, scores)
    weights = softmax(masked)
    rows = "[" + ", ".join("[" + ", ".join(repr(float(v)) for v in r) + "]" for r in weights) + "]"
    path = with_lines(tmp_path, f"expect:\n  weights: {rows}\n")
    async with running(path) as (app, pilot):
        await pilot.press("4")
        texts = stage_view(app).row_texts(SAT)
        assert texts == ["0.248✗", "0.248✗", "0.503✗"]
        assert stage_view(app).row_texts(0) == [
            "1.000✓",
            "0.000✓",
            "0.000✓",
        ]  # row 1 is right either way
        text = explanation(app)
        assert "Likely bug: the scores were not divided by √d_k" in text
        assert "The mistaken way, for this row:" in text
        assert "exp(1.000) = 2.718" in text  # the unscaled arithmetic beside the correct one
        assert debugger(app).session.comparison.first_difference.stage == "weights"


async def test_a_screenshot_is_saved_beside_the_scenario(tmp_path):
    path = with_lines(tmp_path, "")
    async with running(path) as (app, pilot):
        await pilot.press("4", "ctrl+t")
        await pilot.pause()
    shots = list(tmp_path.glob("mine-step4-*.svg"))
    assert len(shots) == 1
    assert shots[0].read_text().lstrip().startswith("<svg") and "Softmax" in shots[0].read_text()


async def test_nothing_else_gives_a_hidden_prediction_away(tmp_path):
    path = tmp_path / "bank.yaml"
    path.write_text((SCENARIOS / "unscaled_x10.yaml").read_text() + "predict: [weights]\n")
    async with running(path) as (app, pilot):
        await pilot.press("5")  # the weighted sum would show the weights of "sat"
        assert 'Hidden until you predict and reveal "sat"' in explanation(app)
        assert "× v1" not in explanation(app)
        assert set(stage_view(app).row_texts(SAT)) == {"?"}  # its output too: V would give it away
        variants = str(app.screen.query_one("VariantsView").render())
        assert "? (predict first)" in variants
        await pilot.press("4", "r", "5")  # the digits keep jumping to stages while guessing
        assert "× v1" in explanation(app)  # sat's row is revealed now
        assert "? (predict first)" not in str(app.screen.query_one("VariantsView").render())


async def test_keeping_predictions_merges_into_an_existing_expect(tmp_path):
    path = with_lines(
        tmp_path,
        "expect:\n  weights: [[1, 0, 0], [0.33, 0.67, 0], [~, ~, ~]]\npredict: [weights]\n",
    )
    async with running(path) as (app, pilot):
        await pilot.press("4", "enter", *"0.3", "enter")
        app.screen.action_keep_predictions()
        await pilot.press("ctrl+s")
        await pilot.pause()
    saved = load(path).expect["weights"]
    assert saved.given.tolist() == [[True] * 3, [True] * 3, [True, False, False]]
    assert saved.values[1].tolist() == [0.33, 0.67, 0] and saved.values[SAT, 0] == 0.3
    assert load(path).expect_tolerance == 1e-6  # the student's own tolerance stays


async def test_predictions_kept_without_an_expect_are_checked_within_0_05(tmp_path):
    path = with_lines(tmp_path, "predict: [weights]\n")
    async with running(path) as (app, pilot):
        await pilot.press("4", "enter", *"0.25", "tab", *"0.25", "tab", *"0.5", "enter")
        app.screen.action_keep_predictions()
        await pilot.press("ctrl+s")
        await pilot.pause()
    from attn_tui.tui.cli import main

    assert load(path).expect_tolerance == 0.05
    assert main(["--check", str(path)]) == 0  # the ✓ the app gave, --check gives too


async def test_y_shows_the_students_own_values(tmp_path):
    path = with_lines(
        tmp_path,
        "expect:\n  weights: [[1, 0, 0], [0.4, 0.6, 0], [~, ~, ~]]\nexpect_tolerance: 1e-3\n",
    )
    async with running(path) as (app, pilot):
        await pilot.press("4")
        view = stage_view(app)
        assert view.row_texts(1) == ["0.330✗", "0.670✗", "0.000✓"]
        await pilot.press("y")
        assert view.row_texts(1) == ["0.400✗", "0.600✗", "0.000✓"]
        assert view.row_texts(SAT) == ["0.248", "0.248", "0.503"]  # not given: attention's
        await pilot.press("y")
        assert view.row_texts(1)[0] == "0.330✗"
