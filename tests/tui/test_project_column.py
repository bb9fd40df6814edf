"""The Project step explains the output column the cursor is on: [ and ] move
along the columns of a stage whose columns are not keys, and the footer calls them "Column".

two_heads.yaml by hand, "sat" (scaled by √4 = 2; causal: it sees the, cat, sat): head 1's scores
[0, 4, 0], so weights [1, e⁴, 1]/(e⁴ + 2) and output [2, e⁴ + 1]/(e⁴ + 2) = [0.035, 0.982];
head 2's scores [0, 0, 4], weights [1, 1, e⁴]/(e⁴ + 2), output [e⁴ + 1, e⁴ + 1]/(e⁴ + 2) = [0.982,
0.982]. Wo = [[1, 0], [0, 1], [1, 0], [0, 1]] adds the heads: o1 = (e⁴ + 3)/(e⁴ + 2) = 1.018,
o2 = 2(e⁴ + 1)/(e⁴ + 2) = 1.965.
"""

from __future__ import annotations

import math

import pytest

from tests.conftest import SCENARIOS
from tests.tui_helpers import debugger, explanation, running, screen_text

E4 = math.exp(4)
O1, O2 = (E4 + 3) / (E4 + 2), 2 * (E4 + 1) / (E4 + 2)


@pytest.mark.parametrize("size", [(80, 24), (120, 36)])
async def test_brackets_choose_the_output_column_project_explains(size):
    assert (round(O1, 3), round(O2, 3)) == (1.018, 1.965)
    async with running(SCENARIOS / "two_heads.yaml", size=size) as (app, pilot):
        screen = debugger(app)
        await pilot.press("end")
        assert screen.stage == "project"
        assert f"o1 = 0.035 × 1 + 0.982 × 0 + 0.982 × 1 + 0.982 × 0 = {O1:.3f}" in explanation(app)
        assert "[] Column" in screen_text(app).splitlines()[-1]
        await pilot.press("right_square_bracket")
        assert f"o2 = 0.035 × 0 + 0.982 × 1 + 0.982 × 0 + 0.982 × 1 = {O2:.3f}" in explanation(app)
        assert screen.stage_view.cursor == (screen.row, 1)
        await pilot.press("right_square_bracket")  # the last column: it stays
        assert "o2 = " in explanation(app) and screen.stage_view.cursor == (screen.row, 1)
        await pilot.press("left_square_bracket")
        assert "o1 = " in explanation(app) and "o2 = " not in explanation(app)
        await pilot.press(
            "4"
        )  # at Softmax the columns are keys: [ and ] are "Key" there, as before
        assert "[] Key" in screen_text(app).splitlines()[-1]
        column = screen.column
        await pilot.press("left_square_bracket")
        assert screen.column == max(0, column - 1)
