"""What a teacher saw at 80×24 and 120×36: the header cut ("T=3 d_…"), V out
of view below the description, the Why pane's lines cut mid-phrase; with 13 steps the step bar
naming only the current one, an 8-column Wq showing 5 of its columns."""

from __future__ import annotations

from itertools import pairwise

import pytest

from attn_tui.tui.widgets.explanation import wrap_offsets
from attn_tui.tui.widgets.steps import named_steps
from tests.conftest import SCENARIOS
from tests.tui_helpers import debugger, drawn_lines, explanation, matrix, running, screen_text

CAT_SAT = SCENARIOS / "cat_sat.yaml"
LEARNING = SCENARIOS / "learning_to_attend.yaml"
SIZES = [(80, 24), (120, 36)]


def lines_of(app) -> list[str]:
    return screen_text(app).splitlines()


@pytest.mark.parametrize("size", SIZES)
async def test_the_header_shows_every_option_and_the_shape(size):
    async with running(CAT_SAT, size=size) as (app, _):
        text = screen_text(app)
        assert "The cat sat — cat_sat.yaml" in text or "The cat sat — " in text
        assert "causal on · ÷√2 = 1.414 · mask −∞ · T=3 d_k=2 d_v=2" in text  # whole, not "T=3 d_…"
        header = debugger(app).header
        assert header.region.height == (
            2 if size[0] == 80 else 1
        )  # two lines only where one is too few


async def test_a_long_header_breaks_between_options_not_inside_one():
    async with running(LEARNING, size=(80, 24)) as (app, _):
        header = debugger(app).header
        lines = lines_of(app)[header.region.y : header.region.bottom]
        assert lines[0].strip().startswith("Learning to attend — ") and lines[0].strip().endswith(
            ".yaml"
        )
        assert [line.strip() for line in lines[1:]] == [
            "causal on · ÷√8 = 2.828 · mask −∞",
            "loss ½·Σ(output − target)² · training Wq, Wk (sgd, lr 0.1) · T=5 d_k=8 d_v=8",
        ]


@pytest.mark.parametrize("size", SIZES)
async def test_q_k_and_v_are_in_view_whole(size):
    async with running(CAT_SAT, size=size) as (app, _):
        screen = debugger(app)
        pane = screen.inputs_pane.region
        for name in ("Q", "K", "V"):
            region = matrix(app, name).region
            assert pane.contains_region(region) and region.height == 6, (name, region, pane)
        # the description is read after them at 80×24, above them where all fit
        description = screen.query_one("#description")
        above = description.region.y < matrix(app, "Q").region.y
        assert above == (size == (120, 36))


@pytest.mark.parametrize("size", SIZES)
async def test_a_formula_and_its_words_are_not_cut_mid_phrase(size):
    async with running(CAT_SAT, size=size) as (app, _):
        why = debugger(app).why
        drawn = [
            why.render_line(y).text.rstrip() for y in range(why.scrollable_content_region.height)
        ]
        # (by hand: q3 = [1, 1], k1 = [1, 0]) the formula is one line, whole, at either size
        formula = "q3 · k1 = (1 × 1) + (1 × 0) = 1"
        assert any(line.strip().startswith(formula) for line in drawn), drawn
        assert any(line.strip() == 'how relevant is "the" to "sat"?' for line in drawn) == (
            size[0] == 80
        )


def test_long_sums_are_cut_between_their_terms():
    text = "q5 · k1 = (1.607 × −0.857) + (0.046 × 0.580) + (1.565 × −0.310) + (−1.974 × −0.802)"
    cuts = [0, *wrap_offsets(text, 40), len(text)]
    pieces = [text[a:b] for a, b in pairwise(cuts)]
    # (the greedy wrap cut "(0.046 ×⏎0.580)": the last space within 40 cells is inside a term)
    assert pieces == [
        "q5 · k1 = (1.607 × −0.857) ",
        "+ (0.046 × 0.580) + (1.565 × −0.310) ",
        "+ (−1.974 × −0.802)",
    ]
    cuts = [0, *wrap_offsets("weights = [2.028/8.169, 2.028/8.169, 4.113/8.169]", 40)]
    assert cuts == [0, 37]  # after the list's ", ", not inside "4.113/8.169"
    assert wrap_offsets("abcdefgh", 3) == [3, 6]  # a word longer than the line: cut mid-word


def test_the_step_bar_names_the_current_step_and_its_neighbours_that_fit():
    titles = ["Score", "Scale", "Mask", "Softmax", "Weighted sum"]
    assert named_steps(titles, 2, 80) == {0, 1, 2, 3, 4}  # all fit: all named
    # by hand: numbered, " 1 ·· 5 " is 5 × 3 + 4 = 19 cells; + "Mask " 24, + "Softmax " 32,
    # + "Scale " 38, + "Weighted sum " 51 > 40
    assert named_steps(titles, 2, 40) == {1, 2, 3}
    assert named_steps(titles, 2, 20) == {2}  # the current step, always


@pytest.mark.parametrize("size", SIZES)
async def test_thirteen_steps_name_more_than_the_current_one(size):
    async with running(LEARNING, size=size) as (app, pilot):
        screen = debugger(app)
        assert len(screen.stages) == 13
        strip = screen.steps.region
        bar = lines_of(app)[strip.y]
        named = [stage.title for stage in screen.stages if f" {stage.title} " in f"{bar} "]
        assert "Softmax" in named and len(named) >= (2 if size[0] == 80 else 11), bar
        await pilot.press("end")  # the last step: named, with those before it
        bar = lines_of(app)[strip.y]
        assert "13 dX" in bar and "12 dK" in bar, bar


async def test_an_eight_column_wq_shows_its_eight_columns_at_120():
    async with running(LEARNING, size=(120, 36)) as (app, _):
        for name in ("X", "Wq", "Wk"):
            header = drawn_lines(matrix(app, name))[0]
            assert header.split() == [
                f"{letter}{n}" for n in range(1, 9) for letter in (["m"] if name == "X" else ["d"])
            ], (name, header)


@pytest.mark.parametrize("size", SIZES)
async def test_a_refusal_the_border_cuts_is_whole_in_the_why_pane(size):
    """ "Errors cut off": X's border showed "✗ the score (t1, t1) overflows float64 (nan); use
    smaller numb…"; the Why pane says it whole while the refused text waits in the cell."""
    async with running(LEARNING, size=size) as (app, pilot):
        await pilot.press("tab", "enter", "ctrl+u", *"1e200", "enter")
        why = " ".join(explanation(app).split())
        assert "✗ X: the score (t1, t1) overflows float64 (nan); use smaller numbers" in why
        assert matrix(app, "X").editor_text == "1e200"  # (kept: nothing typed is lost)
        await pilot.press("ctrl+u", *"abc", "enter")
        assert "✗ X: 'abc' is not a number" in " ".join(explanation(app).split())
        await pilot.press("escape")  # the editor closes: the reason goes with it
        assert "✗ X" not in explanation(app)


async def test_the_description_stays_first_where_the_matrices_scroll_anyway():
    """learning_to_attend at 80×24: seven matrices do not fit with or without the description,
    so moving it would only hide it further down."""
    async with running(LEARNING, size=(80, 24)) as (app, pilot):
        screen = debugger(app)
        assert screen.inputs_pane.children[0] is screen.query_one("#description")
        await pilot.resize_terminal(200, 60)  # there, after them, all seven fit
        await pilot.pause(0.2)
        assert screen.inputs_pane.children[0] is not screen.query_one("#description")
