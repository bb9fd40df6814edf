"""Serving the app to a class (``attn-tui --serve``): the served app's saves."""

from __future__ import annotations

import os
from textual.widgets import Input

from attn_tui.core import load
from attn_tui.core.save_root import SaveRoot
from attn_tui.tui.app import AttnApp
from attn_tui.tui.screens.save_as import SaveAsScreen
from tests.conftest import SCENARIOS


async def save_as(app, pilot, name: str) -> list[str]:
    """Ctrl+S, type ``name`` into Save As, Enter; the notifications that followed."""
    before = len(app._notifications)
    await pilot.press("ctrl+s")
    await pilot.pause()
    assert isinstance(app.screen, SaveAsScreen)
    app.screen.query_one(Input).value = name
    await pilot.press("enter")
    await pilot.pause()
    return [n.message for n in list(app._notifications)[before:]]


async def test_a_served_app_saves_only_in_its_folder_and_says_where(tmp_path, monkeypatch):
    root, elsewhere = tmp_path / "class", tmp_path / "elsewhere"
    root.mkdir()
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    served = SCENARIOS / "cat_sat.yaml"
    before = served.read_text()
    app = AttnApp(load(served), read_only=True, save_root=SaveRoot(root))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("c")  # an edit: causal off
        said = await save_as(app, pilot, "../escape.yaml")
        assert any("outside the folder this class saves in" in message for message in said), said
        said = await save_as(app, pilot, "mine.yaml")
        saved = os.path.join(os.path.realpath(root), "mine.yaml")
        assert f"Saved {saved}" in said, said
        assert not app.screen.session.modified
        app.theme = "textual-light"  # a student's choice, not remembered for the next one
        await pilot.pause()
    assert sorted(os.listdir(root)) == ["mine.yaml"] and os.listdir(elsewhere) == []
    assert not os.path.exists(os.path.join(os.environ["XDG_CONFIG_HOME"], "attn-tui"))
    assert not (tmp_path / "escape.yaml").exists()
    assert load(saved).options.causal is False
    assert served.read_text() == before

