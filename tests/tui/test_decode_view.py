"""The decode view (tui/screens/decode_view.py), driven by the keys a user presses: a scenario
with ``generated:`` opens on the steps of its generation; each step shows the token chosen, its
probability and the row of weights that chose it, computed here by softmax(q·kᵀ/√d) over the
tokens up to it; → and ← step, h changes head, Enter opens that row in the debugger, Esc comes
back. A scenario file's own ``generated:`` key is read and refused as docs/scenarios.md says."""

from __future__ import annotations

import numpy as np
import pytest

from attn_tui.core.errors import ScenarioError
from attn_tui.core.loading.scenario_file import loads
from attn_tui.tui.app import AttnApp
from attn_tui.tui.screens.debugger import DebuggerScreen
from attn_tui.tui.screens.decode_view import DecodeViewScreen
from tests.reference import softmax
from tests.tui_helpers import screen_text

Q = [
    [[1, 0], [0, 1], [1, 1], [2, 0], [0, 2]],
    [[0, 1], [1, 0], [1, -1], [0, 0], [1, 1]],
]
K = [
    [[1, 0], [0, 1], [1, 1], [0, 0], [2, 1]],
    [[1, 1], [0, 2], [1, 0], [1, 1], [0, 1]],
]
V = [[[1, 0], [0, 1], [1, 1], [2, 0], [0, 2]]] * 2

SCENARIO = f"""
title: a generation by hand
tokens: [the, cat, sat, on, mats]
heads: 2
Q: {Q}
K: {K}
V: {V}
causal: true
generated: {{prompt: 2, p: [0.625, 0.25, 0.125]}}
"""


def expected_row(head: int, row: int) -> np.ndarray:
    """Row ``row``'s weights over the tokens up to it: softmax(q·kᵀ/√2), written here."""
    q, k = np.array(Q[head][row], float), np.array(K[head][: row + 1], float)
    scores = k @ q / np.sqrt(2)
    return softmax(scores)


def shown_weights(text: str) -> list[str]:
    """The weights the view lists under its "Where … looked" line, as shown."""
    lines = text.split("looked", 1)[1].splitlines()[1:]
    return [line.split()[1] for line in lines if line.strip() and line.split()[0] in TOKENS]


TOKENS = ("the", "cat", "sat", "on", "mats")


async def test_the_steps_of_a_generation_with_each_choice_and_the_row_that_made_it():
    app = AttnApp(loads(SCENARIO, "generation.yaml"), remember=False)
    async with app.run_test(size=(110, 40)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, DecodeViewScreen)
        text = screen_text(app)
        # step 1: "cat" (the prompt's last token, row 2) chose "sat" with p 0.625
        assert "Step 1 of 3" in text and "head 1 (1 of 2)" in text
        assert "▶ step   1             cat → sat             p = 0.625" in text
        assert "step   2             sat → on              p = 0.250" in text
        assert 'Where "cat" looked (head 1), reading the KV cache of 2 tokens' in text
        assert shown_weights(text) == [f"{w:.3f}" for w in expected_row(0, 1)]
        await pilot.press("right", "right")
        text = screen_text(app)
        assert "Step 3 of 3" in text and "▶ step   3              on → mats" in text
        assert 'to choose "mats" (p = 0.125)' in text
        assert shown_weights(text) == [f"{w:.3f}" for w in expected_row(0, 3)]
        await pilot.press("right")  # no step after the last
        assert "Step 3 of 3" in screen_text(app)
        await pilot.press("h")
        text = screen_text(app)
        assert "head 2 (2 of 2)" in text
        assert shown_weights(text) == [f"{w:.3f}" for w in expected_row(1, 3)]
        assert expected_row(1, 3).round(3).tolist() != expected_row(0, 3).round(3).tolist()
        await pilot.press("left")
        assert shown_weights(screen_text(app)) == [f"{w:.3f}" for w in expected_row(1, 2)]
        # Enter: the debugger at the row that chose "on" (row 3, "sat"), on head 2; Esc: back
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, DebuggerScreen)
        assert app.screen.position.row == 2 and app.screen.position.head == 1
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, DecodeViewScreen) and "Step 2 of 3" in screen_text(app)


async def test_a_token_from_the_file_is_shown_as_text_never_markup():
    hostile = SCENARIO.replace("[the, cat, sat, on, mats]", '[the, "[b]x\\n", sat, on, mats]')
    app = AttnApp(loads(hostile, "generation.yaml"), remember=False)
    async with app.run_test(size=(110, 40)) as pilot:
        await pilot.pause()
        assert "[b]x␊ → sat" in screen_text(app)


@pytest.mark.parametrize(
    "key, message",
    [
        ("{prompt: 5, p: []}", "generated: prompt must be from 1 to 4, not 5"),
        (
            "{prompt: 2, p: [0.5, 0.5]}",
            "generated: p has 2 probabilities, but the tokens after the prompt of 2 are 3",
        ),
        ("{prompt: 2, p: [0.5, 1.5, 0.5]}", "generated: p 2 is 1.5; a probability is from 0 to 1"),
        ("{prompt: 2}", "generated: needs p:"),
        ("{prompt: 2, p: [1, 1, 1], top: 3}", "unknown key 'top' in generated"),
    ],
)
def test_a_generated_key_that_does_not_fit_the_tokens_is_refused_at_its_line(key, message):
    text = SCENARIO.replace("{prompt: 2, p: [0.625, 0.25, 0.125]}", key)
    with pytest.raises(ScenarioError) as error:
        loads(text, "generation.yaml")
    assert message in str(error.value) and "generation.yaml:9:" in str(error.value)


def test_a_scenario_written_whole_keeps_what_the_model_generated():
    from attn_tui.core.editing.render import render

    scenario = loads(SCENARIO, "generation.yaml")
    again = loads(render(scenario).text, "again.yaml")
    assert again.generated.prompt == 2 and again.generated.p == (0.625, 0.25, 0.125)
