"""A crash of the app (an exception escaping Textual) is a bug report, not a success: exit 3,
one line naming it (the traceback with --debug), the terminal given back, the edits kept.

The crash is made by the test alone (a key's action replaced by one that raises); nothing in
the shipped code knows about it.
"""

from __future__ import annotations

import functools
import json
import os
import pty
import re
import select
import sys
import textwrap

from attn_tui.core.editing import recovery
from attn_tui.tui.app import AttnApp
from attn_tui.tui.cli import main
from attn_tui.tui.screens.debugger import DebuggerScreen
from tests.conftest import ROOT, SCENARIOS


async def edit_then_toggle_causal(pilot) -> None:
    """Wait for the debugger, set Q[0, 0] to 7 (a recovery copy is written), then press c."""
    for _ in range(200):
        if isinstance(pilot.app.screen, DebuggerScreen):
            break
        await pilot.pause()
    await pilot.press("tab", "7", "enter")
    await pilot.press("c")


def boom(self) -> None:
    raise RuntimeError("boom")


def crash_in_process(monkeypatch, path, *flags: str) -> int:
    monkeypatch.setattr(DebuggerScreen, "action_toggle_causal", boom)
    monkeypatch.setattr(
        AttnApp,
        "run",
        functools.partialmethod(
            AttnApp.run, headless=True, size=(120, 40), auto_pilot=edit_then_toggle_causal
        ),
    )
    return main([str(path), *flags])


def test_a_crash_is_exit_3_one_line_and_the_edits_are_kept(tmp_path, capsys, monkeypatch):
    path = tmp_path / "mine.yaml"
    path.write_text((SCENARIOS / "cat_sat.yaml").read_text())
    assert crash_in_process(monkeypatch, path) == 3
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert err.startswith(
        "attn-tui: internal error: RuntimeError: boom (this is a bug; --debug shows "
        "the traceback); your unsaved edits are kept in "
    )
    with open(recovery.recovery_path(str(path))) as file:
        kept = json.load(file)
    assert kept["edits"][0]["cell"] == ["Q", 0, 0] and kept["edits"][0]["value"] == 7.0


def test_with_debug_the_crash_shows_its_traceback(tmp_path, capsys, monkeypatch):
    path = tmp_path / "mine.yaml"
    path.write_text((SCENARIOS / "cat_sat.yaml").read_text())
    assert crash_in_process(monkeypatch, path, "--debug") == 3
    err = capsys.readouterr().err
    assert "Traceback" in err and "RuntimeError: boom" in err and "in boom" in err
    assert err.count("Traceback (most recent call last)") == 1  # ours only, not Textual's as well


CRASHING_APP = textwrap.dedent("""
    import sys
    from attn_tui.tui.screens.debugger import DebuggerScreen
    from attn_tui.tui.cli import main

    def boom(self):
        raise RuntimeError("boom")

    DebuggerScreen.action_toggle_causal = boom  # the crash, made here and nowhere else
    sys.exit(main(sys.argv[1:]))
""")


def test_a_real_process_in_a_terminal_exits_3_with_one_line(tmp_path):
    """The app in a pseudo-terminal: press c, and the process ends with status 3, the terminal
    restored (alternate screen left), and one line after it."""
    path = tmp_path / "mine.yaml"
    path.write_text((SCENARIOS / "cat_sat.yaml").read_text())
    pid, fd = pty.fork()
    if pid == 0:  # the child: the app, on the pseudo-terminal
        os.chdir(ROOT)
        os.environ.update(XDG_STATE_HOME=str(tmp_path / "state"), COLUMNS="100", LINES="30")
        os.execv(sys.executable, [sys.executable, "-c", CRASHING_APP, str(path)])
    output = b""
    pressed = False
    status = None
    while status is None:
        ready, _, _ = select.select([fd], [], [], 30)
        assert ready, f"no output in 30 s: {output[-300:]!r}"
        try:
            chunk = os.read(fd, 65536)
        except OSError:  # the child closed the terminal
            chunk = b""
        output += chunk
        if not pressed and b"Weighted sum" in output and b"Q (3" in output:
            os.write(fd, b"c")  # the debugger is on screen: the key that crashes
            pressed = True
        if not chunk:
            _, status = os.waitpid(pid, 0)
    os.close(fd)
    assert pressed, output[-500:]
    assert os.waitstatus_to_exitcode(status) == 3
    after = output.rsplit(b"\x1b[?1049l", 1)[-1].decode(
        "utf-8", "replace"
    )  # after leaving the app's screen
    after = re.sub(r"\x1b\[\?[0-9;]*[hl]", "", after)  # Textual switching terminal modes back off
    lines = [line for line in after.replace("\r", "").split("\n") if line.strip()]
    assert lines == [
        "attn-tui: internal error: RuntimeError: boom (this is a bug; --debug shows the traceback)"
    ], after
