"""v on a gradient that is exactly 0 says so in words, not "0.0e+00 (0.0e+00 of it)", a relative
difference of two zeros.

By hand: under the causal mask "the" sees itself alone, so its weights are [1, 0, 0] whatever its
query is: dS of its row is 1·(dP − dP) = 0, so dL/dQ[the, ·] = 0, and L(x ± ε) is the same loss
exactly (the measured slope is 0 too).
"""

from __future__ import annotations

import pytest

from attn_tui.core import loads
from attn_tui.core.engine.gradient_check import gradient_check
from tests.conftest import SCENARIOS
from tests.tui_helpers import debugger, explanation, matrix, running

WITH_LOSS = (SCENARIOS / "cat_sat.yaml").read_text(
    encoding="utf-8"
) + "\nloss:\n  target: [[1, 0], [1, 0], [1, 0]]\n"


def test_a_zero_gradient_is_told_in_words():
    scenario = loads(WITH_LOSS, "cat_sat_loss.yaml")
    from attn_tui.core.engine.attention import Attention

    lines = [line.plain() for line in gradient_check(Attention(scenario), "Q", 0, 0)]
    assert lines[1].endswith("= 0.000000") and lines[2].endswith("= 0.000000")
    assert "both are exactly 0, so they agree" in lines[3] and "e+00" not in "\n".join(lines)
    nonzero = [line.plain() for line in gradient_check(Attention(scenario), "Q", 2, 0)][3]
    assert "of it): they agree" in nonzero  # a gradient that is not 0 keeps its relative difference


@pytest.mark.parametrize("size", [(80, 24), (120, 36)])
async def test_v_on_the_cell_of_a_row_that_sees_itself_alone(tmp_path, size):
    path = tmp_path / "cat_sat_loss.yaml"
    path.write_text(WITH_LOSS, encoding="utf-8")
    async with running(path, size=size) as (app, pilot):
        screen = debugger(app)
        await pilot.press("tab")
        q = matrix(app, "Q")
        assert screen.focused is q
        await pilot.press(*["up"] * 3, "home", "v")  # Q[the, d1]
        assert q.cursor == (0, 0)
        text = explanation(app)
        assert "Gradient check of Q[the, d1]" in text
        assert "both are exactly 0, so they agree" in text and "0.0e+00" not in text
