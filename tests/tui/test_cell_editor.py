"""Whatever a user types into a cell is either stored exactly as parsed or refused with a
message, and then the old value stays."""

from __future__ import annotations

import asyncio

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from textual import events

from attn_tui.core import load
from attn_tui.core.numbers import parse_number
from attn_tui.core.text import visible
from attn_tui.tui.app import AttnApp
from tests.conftest import SCENARIOS
from tests.tui_helpers import matrix, post

TEXTS = st.one_of(
    st.text(max_size=80),
    st.sampled_from(
        [
            "",
            " ",
            "1e999",
            "nan",
            "-0",
            "1_000",
            "٣",
            "１",
            "0x10",
            "-1e-320",
            "1e308",
            "\x00\x07",
            "9" * 400,
            " 2.5 ",
            "+.5",
            "1,5",
            "--1",
        ]
    ),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
)


async def type_into_cell(texts: list[str]) -> list[tuple[str, float, float, bool, str]]:
    """Type each text into Q[0, 0] (pasted, as a user's clipboard would) and commit with Enter."""
    results = []
    app = AttnApp(load(SCENARIOS / "cat_sat.yaml"), read_only=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("tab")
        q = matrix(app, "Q")
        for text in texts:  # keys posted as the terminal driver posts them (Pilot's press sleeps)
            before = float(app.screen.session.scenario.Q[0, 0])
            await post(app, "enter", "ctrl+u")
            q.post_message(events.Paste(text))
            await post(app, "enter")
            after = float(app.screen.session.scenario.Q[0, 0])
            refused = q.editing
            subtitle = str(q.border_subtitle)
            if refused:
                await post(app, "escape")
            results.append((text, before, after, refused, subtitle))
        session = app.screen.session
    session.journal.discard()  # (after the app, which keeps a last copy as it closes): the next
    return results  # example starts afresh, not at "restore?"


# Four lists of 10 to 25 texts, an app each: what parse_number accepts and refuses is proven
# on its own (tests/engine/test_numbers.py); here, that the cell stores its verdict or refuses
# with its message, and keeps the old value.
@pytest.mark.slow
@settings(max_examples=4)
@given(st.lists(TEXTS, min_size=10, max_size=25))
def test_typed_text_is_a_number_stored_exactly_or_refused(texts):
    for text, before, after, refused, subtitle in asyncio.run(type_into_cell(texts)):
        # a paste's newlines become spaces in a one-line cell, its control characters visible
        typed = visible(text.replace("\n", " "))[:256]
        try:
            value = parse_number(typed)
        except ValueError as error:
            assert refused and after == before, text
            assert "✗" in subtitle and str(error)[:20] in subtitle
        else:
            assert not refused and after == value and str(after) == str(value), text
