"""The debugger's one position: made valid in one place, whoever sets it, and the
stage view's cursor follows it, so that after any keys the two cannot disagree.

The bounds are the scenario's own sizes, read from its file (tokens, heads), not from the screen."""

from __future__ import annotations

import random

import pytest
import yaml

from attn_tui.tui.screens.position import DebuggerPosition
from tests.conftest import SCENARIOS
from tests.tui_helpers import debugger, explanation, post, running


def sizes(name: str) -> tuple[int, int]:
    """(tokens, heads) of a scenario, as its file says them."""
    data = yaml.safe_load((SCENARIOS / name).read_text())
    heads = data.get("heads", 1)
    return len(data["tokens"]), heads if isinstance(heads, int) else len(heads)


async def test_a_position_out_of_range_is_clamped_where_it_is_set():
    tokens, heads = sizes("two_heads.yaml")
    assert heads == 2
    async with running(SCENARIOS / "two_heads.yaml") as (app, pilot):
        screen = debugger(app)
        last = len(screen.stages) - 1
        screen.position = DebuggerPosition(
            step=last + 5, row=tokens + 3, column=tokens + 9, head=heads + 4, stage_column=99
        )
        await pilot.pause()
        where = screen.position
        assert (where.step, where.row, where.column, where.head) == (
            last,
            tokens - 1,
            tokens - 1,
            heads - 1,
        )
        assert where.stage_column == screen.described.column_count(screen.session.scenario) - 1
        screen.move(step=-2, row=-7, column=-1, head=-3)  # below: the first of each
        await pilot.pause()
        where = screen.position
        assert (where.step, where.row, where.column, where.head) == (0, 0, 0, 0)
        assert screen.stage_view.cursor == (where.row, where.stage_column)


async def test_the_quiet_setters_validate_too():
    """place (a lesson's beat) and put (a change of stages) go through the same validation."""
    from attn_tui.core.model.lesson import Position

    tokens, _ = sizes("two_heads.yaml")
    async with running(SCENARIOS / "two_heads.yaml") as (app, pilot):
        screen = debugger(app)
        screen.place(Position(screen.stages[0].name, row=tokens * 2, column=-4, head=9))
        assert (screen.row, screen.column, screen.head) == (tokens - 1, 0, 1)
        with pytest.raises(ValueError):  # a stage the screen does not have: refused, nothing moves
            screen.place(Position("no such stage", row=0))
        assert screen.row == tokens - 1


async def test_at_a_stage_whose_columns_are_keys_the_stage_column_is_the_keys():
    tokens, _ = sizes("cat_sat.yaml")
    async with running(SCENARIOS / "cat_sat.yaml") as (app, pilot):
        screen = debugger(app)
        keyed = next(
            index for index, stage in enumerate(screen.stages) if stage.arithmetic.columns == "keys"
        )
        screen.move(
            step=keyed, column=tokens - 1, stage_column=0
        )  # a stage column that disagrees: not taken
        await pilot.pause()
        assert screen.stage_column == tokens - 1
        assert screen.stage_view.cursor == (screen.row, tokens - 1)


KEYS = [
    "left",
    "right",
    "up",
    "down",
    "left_square_bracket",
    "right_square_bracket",
    "home",
    "end",
    "h",
    "pageup",
    "pagedown",
    *"123456789",
]


def agrees(screen) -> None:
    """The stage view's cursor is where the position says, and the position is valid."""
    where = screen.position
    assert screen.stage_view.cursor == (where.row, where.stage_column), where
    assert screen.validate_position(where) == where
    if screen.keyed:
        span = (
            screen.described.arithmetic.span(screen.session.scenario)
            if screen.described.arithmetic.span
            else 1
        )
        assert where.stage_column == min(
            where.column // span, screen.described.column_count(screen.session.scenario) - 1
        )


@pytest.mark.parametrize("name", ["two_heads.yaml", "cat_sat.yaml", "projections.yaml"])
async def test_after_any_keys_the_cursor_and_the_position_agree(name):
    rng = random.Random(f"46:{name}")
    async with running(SCENARIOS / name) as (app, pilot):
        screen = debugger(app)
        for _ in range(120):
            key = rng.choice(KEYS)
            await post(app, key)
            await pilot.pause()
            agrees(screen)
        visited = set()
        for step in range(len(screen.stages)):  # and every stage, [ and ] at each
            if step < 9:
                await post(app, str(step + 1))
            else:
                screen.move(step=step)
            await pilot.pause()
            for key in ("right_square_bracket", "right_square_bracket", "left_square_bracket"):
                await post(app, key)
                await pilot.pause()
                agrees(screen)
            visited.add(screen.step)
        assert len(visited) == len(screen.stages)


async def test_the_why_pane_explains_the_column_the_cursor_is_on():
    """At Project (columns: outputs), ] moves the position's stage column; the Why pane and the
    cursor follow it, and a step away and back keeps it."""
    async with running(SCENARIOS / "two_heads.yaml") as (app, pilot):
        screen = debugger(app)
        await pilot.press("end", "right_square_bracket")
        assert screen.stage_column == 1 and "o2 = " in explanation(app)
        await pilot.press("left", "right")
        assert screen.stage_column == 1 and screen.stage_view.cursor == (screen.row, 1)
        assert "o2 = " in explanation(app)


async def test_the_guess_editor_moving_on_moves_the_position(tmp_path):
    """Tab in a guess moves the editor along the row (the widget, at once, for keys sent
    together); its Moved message brings the position there, so they agree once it is handled."""
    path = tmp_path / "lesson.yaml"
    path.write_text((SCENARIOS / "cat_sat_lesson.yaml").read_text())
    async with running(path) as (app, pilot):
        screen = debugger(app)
        await pilot.press("n", "n", "n")
        assert screen.predicting
        before = screen.column
        await pilot.press("0", "tab")
        await pilot.pause()
        assert screen.stage_view.editing
        assert screen.stage_view.cursor == (screen.row, screen.stage_column)
        assert screen.column != before and screen.column == screen.stage_column
