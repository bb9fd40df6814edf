"""Moving through the app by its keys (Textual's Pilot), checked on state and screen: the stages
and the explanation that follows them, the query row, the key, the options (c, s) and what they
change — the weights, the stage titles, the variants side by side, the description."""

from __future__ import annotations

from attn_tui.core.numbers import fixed
from tests.conftest import SCENARIOS
from tests.tui_helpers import (
    current,
    debugger,
    explanation,
    matrix,
    running,
    screen_text,
    stage_view,
)

SAT = 2


async def test_arrows_step_through_the_stages_and_the_explanation_follows():
    async with running() as (app, pilot):
        screen = debugger(app)
        assert screen.stage == "score" and "Step 1 — Score" in explanation(app)
        assert "q3 · k1 = (1 × 1) + (1 × 0) = 1" in explanation(app)
        await pilot.press("right")
        assert screen.stage == "scale" and "1 / √2 = 1/1.414 = 0.707" in explanation(app)
        await pilot.press("right", "right")
        assert screen.stage == "softmax"
        assert "sum        = 8.169" in explanation(app)
        assert '"sat" pays 25% attention to "the", 25% to "cat", and 50% to itself.' in explanation(
            app
        )
        assert "Step 4 · Softmax" in screen_text(app)
        await pilot.press("right", "right")
        assert screen.stage == "weighted_sum"  # stops at the last stage
        await pilot.press("left")
        assert screen.stage == "softmax"
        await pilot.press("home")
        assert screen.stage == "score"
        await pilot.press("end")
        assert screen.stage == "weighted_sum"
        assert (
            "0.248 × [1.0, 0.0] + 0.248 × [0.0, 1.0] + 0.503 × [0.5, 0.5] = [0.500, 0.500]"
            in explanation(app)
        )
        await pilot.press("3")
        assert screen.stage == "mask"
        await pilot.press("1")
        assert screen.stage == "score"


async def test_up_and_down_choose_the_query_row():
    async with running() as (app, pilot):
        screen = debugger(app)
        assert screen.row == SAT  # the scenario's focus
        await pilot.press("4", "up")
        assert screen.row == 1
        assert (
            '"cat" pays 33% attention to "the" and 67% to itself, and 0% to the future.'
            in explanation(app)
        )
        assert stage_view(app).cursor[0] == 1 and stage_view(app).marked_rows == {1}
        await pilot.press("up", "up", "up")
        assert screen.row == 0
        await pilot.press("down")
        assert screen.row == 1


async def test_brackets_choose_the_key_and_score_marks_the_q_and_k_rows():
    async with running() as (app, pilot):
        await pilot.press("right_square_bracket")
        assert debugger(app).column == 1
        assert matrix(app, "Q").marked_rows == {SAT} and matrix(app, "K").marked_rows == {1}
        selected = [
            line
            for line in app.screen.query_one("ExplanationView").explanation.lines
            if line.selected
        ]
        assert [line.plain().split(" =")[0] for line in selected] == ["q3 · k2"]
        await pilot.press("5")
        assert matrix(app, "V").marked_rows == {0, 1, 2} and not matrix(app, "Q").marked_rows


async def test_c_and_s_change_the_weights():
    async with running() as (app, pilot):
        await pilot.press("4")
        before = current(app).weights
        await pilot.press("c")
        assert "causal off" in screen_text(app)
        after = current(app).weights
        assert after[0, 1] > 0 and before[0, 1] == 0
        await pilot.press("s")
        assert "no scaling" in screen_text(app)
        unscaled = current(app).weights
        assert unscaled[SAT, SAT] > after[SAT, SAT]
        await pilot.press("s")
        assert "÷√2 = 1.414" in screen_text(app)


async def test_variants_are_shown_side_by_side():
    async with running(SCENARIOS / "scaled_vs_unscaled_t5.yaml") as (app, pilot):
        await pilot.press("4")
        text = screen_text(app)
        assert "Variants at Softmax" in text and "scaled" in text and "unscaled" in text
        assert fixed(current(app, "unscaled").max_weight[0], 3) in text
        # the focus row: a line per variant, its name, its setting, then its own weights
        lines = str(app.screen.query_one("VariantsView").render()).split("\n")
        for name, setting in (("scaled", "÷√8 = 2.828"), ("unscaled", "none")):
            weights = current(app, name).weights[4][:3]
            line = next(line for line in lines if line.split()[:1] == [name])
            assert line.split()[1:][: len(setting.split())] == setting.split()
            assert " ".join(fixed(w, 3, tiny=False) for w in weights) in line


async def test_the_stage_titles_follow_the_options():
    async with running() as (app, pilot):
        await pilot.press("3", "c")
        assert "no mask: every key visible" in str(stage_view(app).border_title)
        await pilot.press("2", "s")
        assert "scaling is off" in str(stage_view(app).border_title)


async def test_the_description_says_when_options_no_longer_match_it():
    async with running() as (app, pilot):
        description = app.screen.query_one("#description")
        await pilot.press("c")
        assert "(written for causal on; now causal off)" in str(description.render())
        await pilot.press("c")
        assert "written for" not in str(description.render())
        await pilot.press("s", "tab", "plus")  # unscaled, and a number of Q nudged
        await pilot.pause()
        assert (
            "(written for scale ÷√2 = 1.414; now scale none; the numbers have been changed since)"
            in str(description.render())
        )
