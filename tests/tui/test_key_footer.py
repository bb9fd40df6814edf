"""The footer (tui/widgets/key_footer.py): one widget drawing the keys that work now; a click on
a key presses it, and a click on a key that does not work now rings instead."""

from __future__ import annotations

from attn_tui.core import load
from attn_tui.tui.app import AttnApp
from attn_tui.tui.widgets.key_footer import KeyFooter
from tests.conftest import SCENARIOS
from tests.tui_helpers import screen_text


def footer_line(app) -> str:
    return screen_text(app).splitlines()[-1]


async def test_a_click_on_a_key_presses_it():
    app = AttnApp(load(SCENARIOS / "cat_sat.yaml"), remember=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        footer = app.screen.query_one(KeyFooter)
        assert not footer.children  # one widget, not a widget per key
        line = footer_line(app)
        causal = app.screen.session.scenario.options.causal
        await pilot.click(KeyFooter, offset=(line.index("c Causal") + 2, 0))
        await pilot.pause()
        assert app.screen.session.scenario.options.causal is not causal
        await pilot.click(KeyFooter, offset=(line.index("^p palette") + 1, 0))
        await pilot.pause()
        assert "CommandPalette" in type(app.screen).__name__


async def test_a_key_that_does_not_work_now_is_dim_and_a_click_on_it_rings(monkeypatch):
    """Decoding replays a causal mask: without one, d is shown dimmed."""
    app = AttnApp(load(SCENARIOS / "cat_sat_bidirectional.yaml"), remember=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        footer = app.screen.query_one(KeyFooter)
        off = [entry for entry in footer.entries if not entry.enabled]
        assert [entry.description for entry in off] == ["Decode"]
        rang = []
        monkeypatch.setattr(app, "bell", lambda: rang.append(True))
        start, end, entry = next(span for span in footer._spans if span[2] is off[0])
        await pilot.click(KeyFooter, offset=(start, 0))
        await pilot.pause()
        assert rang == [True]
        assert any("dim" in str(span.style) for span in footer.render().spans)


async def test_the_keys_follow_the_focus_and_the_width():
    app = AttnApp(load(SCENARIOS / "cat_sat.yaml"), remember=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        assert "Edit/commit" not in footer_line(app) and " ? Help  ^s Save" in footer_line(app)
        await pilot.press("tab")
        await pilot.pause()
        assert footer_line(app).startswith(" ⏎ Edit/commit")
        await pilot.resize_terminal(80, 24)
        await pilot.pause()
        assert "? Help ^s Save q Quit" in footer_line(app) and "^p palette" in footer_line(
            app
        )  # compact
        await pilot.resize_terminal(40, 24)
        await pilot.pause()
        assert "^p palette" not in footer_line(app)
