"""Nothing is lost: a save killed half-way, a folder one cannot write, a full disk."""

from __future__ import annotations

import subprocess
import sys
import textwrap

from textual import events

from attn_tui.core import load
from attn_tui.core.editing.session import Session
from tests.conftest import ROOT, SCENARIOS
from tests.tui_helpers import debugger, running

KILLED_SAVE = textwrap.dedent("""
    import os, signal, sys
    sys.path.insert(0, {root!r})
    import attn_tui.core.files.atomic_write
    from attn_tui.core import load
    from attn_tui.core.editing.session import Session

    rename = os.replace

    def killed(source, target):  # the temporary file is written; the process dies before the rename
        if target == {path!r}:
            assert open(source).read().count("[1, 5]") == 1
            os.kill(os.getpid(), signal.SIGKILL)
        rename(source, target)

    os.replace = killed
    session = Session(load({path!r}))
    session.set_cell("Q", 2, 1, 5.0)
    session.save()
""")


def test_a_save_killed_before_the_rename_leaves_the_original_intact(tmp_path):
    path = tmp_path / "cat_sat.yaml"
    original = (SCENARIOS / "cat_sat.yaml").read_text()
    path.write_text(original)
    result = subprocess.run(
        [sys.executable, "-c", KILLED_SAVE.format(root=str(ROOT), path=str(path))],
        capture_output=True,
        text=True,
    )
    assert result.returncode == -9, result.stderr  # SIGKILL
    assert path.read_text() == original
    assert load(path).Q[2, 1] == 1.0
    # the unsaved edit was kept as a recovery copy before the save began
    found = Session(load(path)).journal.pending()
    assert found is not None and found.edits[0].value == 5.0


async def test_a_folder_that_cannot_be_written_keeps_the_edits_and_save_as_works(
    tmp_path, monkeypatch
):
    path = tmp_path / "locked" / "mine.yaml"
    path.parent.mkdir()
    path.write_text((SCENARIOS / "cat_sat.yaml").read_text())
    real_mkstemp = __import__("tempfile").mkstemp

    def refuse(*args, dir=None, **kwargs):  # (as root, chmod would not stop us: simulate it)
        if dir == str(path.parent):
            raise PermissionError(13, "Permission denied", dir)
        return real_mkstemp(*args, dir=dir, **kwargs)

    monkeypatch.setattr("attn_tui.core.files.atomic_write.tempfile.mkstemp", refuse)
    async with running(path) as (app, pilot):
        await pilot.press("tab", "7", "enter", "ctrl+s")
        await pilot.pause()
        session = debugger(app).session
        assert session.modified and session.scenario.Q[0, 0] == 7.0  # kept in memory
        messages = [n.message for n in app._notifications]
        assert any(
            "cannot write" in m and "Permission denied" in m and "Save As" in m for m in messages
        )
        debugger(app).action_save_as()
        await pilot.pause()
        await pilot.press("end", "ctrl+u")
        app.screen.focused.post_message(
            events.Paste(str(tmp_path / "copy.yaml"))
        )  # (typing costs 60 ms a key)
        await pilot.press("enter")
        await pilot.pause()
        assert not debugger(app).session.modified
    assert load(tmp_path / "copy.yaml").Q[0, 0] == 7.0
    assert load(path).Q[0, 0] == 1.0


async def test_a_full_disk_on_save_is_one_message_and_the_app_goes_on(tmp_path, monkeypatch):
    path = tmp_path / "mine.yaml"
    original = (SCENARIOS / "cat_sat.yaml").read_text()
    path.write_text(original)

    def full(fd, *args, **kwargs):
        raise OSError(28, "No space left on device")

    async with running(path) as (app, pilot):
        await pilot.press("c")
        monkeypatch.setattr("attn_tui.core.files.atomic_write.os.fdopen", full)
        await pilot.press("ctrl+s")
        await pilot.pause()
        messages = [n.message for n in app._notifications]
        assert sum("No space left on device" in m for m in messages) == 1
        assert app.is_running and debugger(app).session.modified
        await pilot.press("right")
        assert debugger(app).stage == "scale"  # still working
    assert path.read_text() == original
    assert [p.name for p in tmp_path.iterdir()] == ["mine.yaml"]  # no temporary file left behind
