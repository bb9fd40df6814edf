"""``attn-tui --serve LESSON --follow`` in a real terminal (tmux) and two real headless Chromium
tabs: the teacher's n moves both browsers; a student who leaves (f) stays, and rejoins at the
teacher's beat; quitting the teacher's app ends the class."""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import sys
import time
import uuid

import pytest

from tests.chromium import CHROMIUM, Chromium
from tests.conftest import ROOT
from tests.serve.test_serve_browser import free_port

pytestmark = [
    pytest.mark.browser,
    pytest.mark.tmux,
    pytest.mark.skipif(
        CHROMIUM is None or shutil.which("tmux") is None,
        reason="needs chromium and tmux on PATH (apt-get install chromium tmux; CI does)",
    ),
]


def class_processes(folder) -> list[int]:
    """The live processes whose command line names the class's folder (server and apps)."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit() and int(entry) != os.getpid():
            try:
                with open(f"/proc/{entry}/cmdline", "rb") as file:
                    words = file.read().split(b"\0")
                with open(f"/proc/{entry}/stat") as file:
                    zombie = file.read().rsplit(")", 1)[1].split()[0] == "Z"
            except OSError:
                continue
            if (
                not zombie
                and any(str(folder).encode() in word for word in words)
                and b"-m" in words
            ):
                found.append(int(entry))
    return found


class Terminal:
    """The teacher's terminal: a tmux server of its own, 120×40."""

    def __init__(self, tmp_path) -> None:
        self.socket = ["tmux", "-L", f"attn-lesson-{uuid.uuid4().hex[:8]}"]
        self.env = dict(
            os.environ,
            XDG_STATE_HOME=str(tmp_path / "state"),
            XDG_CONFIG_HOME=str(tmp_path / "config"),
        )

    def __call__(self, *args: str) -> str:
        return subprocess.run(
            self.socket + list(args), capture_output=True, text=True, env=self.env
        ).stdout

    def start(self, command: list[str]) -> None:
        line = " ".join(subprocess.list2cmdline([word]) for word in command)
        self(
            "new-session",
            "-d",
            "-s",
            "teacher",
            "-x",
            "120",
            "-y",
            "40",
            f"cd {ROOT} && {line}; echo TEACHER-ENDED $?; sleep 60",
        )

    def screen(self) -> str:
        return self("capture-pane", "-p", "-t", "teacher")

    async def wait_for(self, text: str, timeout: float = 20) -> str:
        deadline = time.monotonic() + timeout
        while True:
            screen = self.screen()
            if text in screen:
                return screen
            if time.monotonic() > deadline:
                raise AssertionError(
                    f"{text!r} not in the teacher's terminal after {timeout} s:\n{screen}"
                )
            await asyncio.sleep(0.05)

    def stop(self) -> None:
        self("kill-server")


async def test_two_browsers_follow_the_teachers_terminal(tmp_path):
    port, folder = free_port(), tmp_path / "class"
    teacher = Terminal(tmp_path)
    teacher.start(
        [
            sys.executable,
            "-m",
            "attn_tui",
            "--serve",
            "cat_sat_lesson",
            "--follow",
            "--port",
            str(port),
            "--serve-dir",
            str(folder),
        ]
    )
    try:
        await teacher.wait_for("Leading the class: 0 apps following your beats")
        async with Chromium(tmp_path / "chromium") as browser:
            first, second = await browser.new_page(), await browser.new_page()
            for page in (first, second):
                await page.open(f"http://127.0.0.1:{port}/")
                await page.wait_for("beat 1/9", timeout=20)
                await page.wait_for("Following the teacher (at beat 1)")
            await teacher.wait_for("Leading the class: 2 apps following")

            teacher("send-keys", "-t", "teacher", "n")
            await teacher.wait_for("beat 2/9")
            for page in (first, second):
                await page.wait_for("beat 2/9")
                await page.wait_for("Step 2 · Scale")
                assert "Question: Why divide by √d_k?" in (await page.screen())

            await second.press("f")  # this student goes at their own pace
            await second.wait_for("On your own · f rejoins the teacher at beat 2")
            teacher("send-keys", "-t", "teacher", "n")
            await teacher.wait_for("beat 3/9")
            await first.wait_for("beat 3/9")
            await first.wait_for("Step 3 · Mask")
            await second.wait_for("f rejoins the teacher at beat 3")
            assert "beat 2/9" in await second.screen()  # not moved
            await second.press("n")  # their own pace: n is theirs
            await second.wait_for("beat 3/9")
            await second.press("n")
            await second.wait_for("beat 4/9")
            await second.press("f")  # back with the class: at the teacher's beat
            await second.wait_for("Following the teacher (at beat 3)")
            screen = await second.wait_for("beat 3/9")
            assert "Step 3 · Mask" in screen

            assert len(class_processes(folder)) >= 3  # the server and an app per browser
            teacher("send-keys", "-t", "teacher", "q")
            ended = await teacher.wait_for("TEACHER-ENDED", timeout=30)
            assert "TEACHER-ENDED 0" in ended, ended
            assert "attn-tui: stopped" in ended and "a browser connected from 127.0.0.1" in ended
            assert class_processes(folder) == []  # the class's server and apps ended with it
    finally:
        teacher.stop()
