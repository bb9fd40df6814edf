"""Text from a scenario in the app: a token such as ``[/INST]`` is shown
as written, never parsed as markup, and no control character reaches the terminal; every screen
the keys lead to is drawn, and what it draws holds no raw control character."""

from __future__ import annotations

import pytest

from attn_tui.core import loads
from attn_tui.tui.app import AttnApp
from attn_tui.tui.screens.debugger import DebuggerScreen
from tests.tui_helpers import screen_text

# YAML's double-quoted escapes: \e is ESC, \a BEL, \x9b a C1 control, \u202e a bidi override
HOSTILE = r"""
title: "t\e[2J[red]x"
description: "[/] \e]52;c;cm0=\a"
tokens: ["[/INST]", "a\e]0;pwned\a", "[b]x[/b]", "[@click=app.quit]q[/]", "c\x9b2J", "d\u202e"]
heads:
  - name: "[/h]\e[31m"
    Q: [[1, 0], [0, 1], [1, 1], [1, 0], [0, 1], [1, 1]]
    K: [[1, 0], [0, 1], [1, 1], [1, 0], [0, 1], [1, 1]]
    V: [[1, 0], [0, 1], [1, 1], [1, 0], [0, 1], [1, 1]]
  - name: "[@click=app.quit]"
    Q: [[1, 0], [0, 1], [1, 1], [1, 0], [0, 1], [1, 1]]
    K: [[1, 0], [0, 1], [1, 1], [1, 0], [0, 1], [1, 1]]
    V: [[1, 0], [0, 1], [1, 1], [1, 0], [0, 1], [1, 1]]
variants: [{name: "[/v]\e[1m"}, {name: plain, scale: false}]
"""
RAW = (
    [chr(c) for c in range(32) if c != 10]
    + ["\x7f"]
    + [chr(c) for c in range(0x80, 0xA0)]
    + ["\u202e"]
)


def assert_inert(text: str) -> None:
    found = sorted({repr(ch) for ch in text if ch in RAW})
    assert not found, found


@pytest.mark.slow
async def test_hostile_text_is_shown_as_written_on_every_screen():
    scenario = loads(HOSTILE)
    assert "\x1b" in scenario.tokens[1] and "\x9b" in scenario.tokens[4]  # the raw bytes, as loaded
    app = AttnApp(scenario, read_only=True, remember=False)
    async with app.run_test(size=(140, 45)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, DebuggerScreen)
        seen = []
        for keys in (
            [],
            ["3"],
            ["4"],
            ["5"],
            ["6"],
            ["7"],
            ["h"],
            ["up", "up"],
            ["tab", "enter", "x", "y", "enter"],
            ["escape", "escape"],
            ["a"],
            ["escape"],
            ["question_mark"],
            ["escape"],
            ["p"],
            ["p"],
            ["ctrl+p"],
            list("show"),
            ["escape"],
        ):
            await pilot.press(*keys)
            await pilot.pause()
            text = screen_text(app)
            assert_inert(text)
            seen.append(text)
        assert isinstance(app.screen, DebuggerScreen) and app.is_running  # no link quit the app
        everything = "\n".join(seen)
        assert "[/INST]" in everything and "[b]x[/b]" in everything  # markup shown as written
        assert "a␛]0;pwned␇" in everything  # ESC and BEL made visible
        assert "[/h]␛[31m" in everything  # a head's name too
