"""``attn-tui --serve`` in a real headless Chromium: numbers on screen, keys, a save, two apps."""

from __future__ import annotations

import asyncio
import math
import os
import signal
import socket
import sys

import pytest

from tests.chromium import CHROMIUM, Chromium, end_group, group_members, wait_until
from tests.conftest import ROOT
from tests.reference import softmax

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(
        CHROMIUM is None,
        reason="no chromium on PATH: install Debian's chromium to run the browser "
        "test (apt-get install chromium; CI does)",
    ),
]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def softmax_row(scores: list[float], d_k: int) -> str:
    """A row of weights as the app prints it (3 decimals), computed here independently."""
    return "  ".join(f"{w:.3f}" for w in softmax([score / math.sqrt(d_k) for score in scores]))


async def start_server(port: int, folder) -> asyncio.subprocess.Process:
    server = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "attn_tui",
        "--serve",
        "cat_sat",
        "--port",
        str(port),
        "--serve-dir",
        str(folder),
        cwd=ROOT,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
        start_new_session=True,
    )
    banner = await asyncio.wait_for(server.stdout.readline(), 15)
    assert banner.decode() == f"attn-tui: serving cat_sat at http://127.0.0.1:{port}\n"
    return server


async def test_a_class_in_browsers_gets_numbers_its_own_apps_and_saves_in_the_folder(tmp_path):
    port, folder = free_port(), tmp_path / "class"
    server = await start_server(port, folder)
    try:
        async with Chromium(tmp_path / "chromium") as browser:
            first = await browser.new_page()
            await first.open(f"http://127.0.0.1:{port}/")
            # the debugger, with cat_sat's scores: "sat" (q = [1, 1]) against the keys
            # k = [1, 0], [0, 1], [1, 1] scores 1, 1, 2
            await first.wait_for("sat   1   1   2", timeout=15)
            loaded = await first.evaluate(
                "performance.getEntriesByType('resource').map(entry => entry.name)"
            )
            outside = [url for url in loaded if not url.startswith(f"http://127.0.0.1:{port}/")]
            assert loaded and outside == []  # a classroom may have no internet: all from here
            await first.press("4")  # step 4, Softmax, typed into the browser
            await first.wait_for(f"sat  {softmax_row([1, 1, 2], 2)}")
            await first.press("c")  # causal off, in this browser's app only
            await first.wait_for("causal off")

            second = await browser.new_page()
            await second.open(f"http://127.0.0.1:{port}/")
            await second.wait_for("sat   1   1   2", timeout=15)
            screen = await second.wait_for("cat_sat (served)")  # the header comes after the numbers
            assert "causal on" in screen and "Step 1 · Score" in screen  # an app of its own
            apps = [pid for pid in group_members(server.pid) if pid != server.pid]
            assert len(apps) >= 2, apps  # one process per browser (and its shell)

            await first.press("s", ctrl=True)  # a served built-in: Save As, in the folder
            await first.wait_for("Save the scenario as")
            await first.press("u", ctrl=True)  # clear the suggested name…
            await first.wait_for("cat_sat.yaml", gone=True)  # …once the field has the focus
            await first.type_into_field("../escape.yaml")
            await first.press("enter")
            await first.wait_for('"../escape.yaml" is outside the folder')
            await first.press("s", ctrl=True)
            await first.wait_for("Save the scenario as")
            await first.press("enter")  # the suggested name: cat_sat.yaml
            await first.wait_for("Saved ")
            saved = folder / "cat_sat.yaml"
            assert saved.exists() and "causal: false" in saved.read_text()
            downloads = tmp_path / "downloads"
            await first.call(
                "Page.setDownloadBehavior", behavior="allow", downloadPath=str(downloads)
            )
            await first.press(
                "p", ctrl=True
            )  # the palette's Download: the saved file, to this browser
            await first.type("download")
            await first.wait_for("Download the scenario")
            await first.press("enter")
            await first.wait_for("Sent cat_sat.yaml to your browser")
            await wait_until(
                lambda: (downloads / "cat_sat.yaml").exists(), 10, "no download arrived"
            )
            await wait_until(
                lambda: (downloads / "cat_sat.yaml").read_bytes() == saved.read_bytes(),
                5,
                "the download is not the saved file",
            )
            assert sorted(os.listdir(folder)) == [
                ".attn-tui-recovery",
                "cat_sat.yaml",
            ]  # (edits kept there)
            assert (
                not (tmp_path / "escape.yaml").exists()
                and not (ROOT.parent / "escape.yaml").exists()
            )

            # Ctrl+C while both browsers are still connected: the server ends every app it
            # started and stops (the bound is a guard against hanging, not a speed test)
            server.send_signal(signal.SIGINT)
            output = (await asyncio.wait_for(server.stdout.read(), 15)).decode()
            assert await server.wait() == 0, output
            assert f"1 new file in {os.path.realpath(folder)}" in output
            assert "a browser connected from 127.0.0.1: 2 apps running" in output
            assert group_members(server.pid) == []
    finally:
        await end_group(server)


async def test_edits_in_a_browser_survive_ctrl_c_and_come_back_to_that_browser(tmp_path):
    """The lecturer presses Ctrl+C by mistake and serves again on the same folder: the student
    reloads and is offered their unsaved edits; another browser is not."""
    port, folder = free_port(), tmp_path / "class"
    server = await start_server(port, folder)
    try:
        async with (
            Chromium(tmp_path / "chromium") as browser,
            Chromium(tmp_path / "other") as other,
        ):
            page = await browser.new_page()
            await page.open(f"http://127.0.0.1:{port}/")
            await page.wait_for("sat   1   1   2", timeout=15)
            await page.press("c")  # an unsaved edit: causal off
            await page.wait_for("causal off")
            await asyncio.sleep(0.5)  # the copy is written just after the frame
            server.send_signal(signal.SIGINT)
            output = (await asyncio.wait_for(server.stdout.read(), 15)).decode()
            assert await server.wait() == 0, output
            assert "1 browser has unsaved edits" in output and f"--serve-dir {folder}" in output, (
                output
            )

            server = await start_server(port, folder)
            back = await browser.new_page()  # the same browser (its cookie), the same folder
            await back.open(f"http://127.0.0.1:{port}/")
            screen = await back.wait_for("1 unsaved edit", timeout=15)
            assert "Restore them?" in screen
            await back.wait_for("Enter confirms")  # the question has settled: keys answer it now
            await back.press("r")
            await back.wait_for("causal off")
            stranger = await other.new_page()  # another student's browser: nothing offered
            await stranger.open(f"http://127.0.0.1:{port}/")
            screen = await stranger.wait_for("cat_sat (served)", timeout=15)
            assert "unsaved edit" not in screen and "causal on" in screen
    finally:
        await end_group(server)
