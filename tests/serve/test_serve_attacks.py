"""Serving a class under attack: a reconnect storm never runs more apps than --max-apps, the
terminal a page asks for is held within bounds, a responses log that is not a regular file is
refused before the class starts, and --record-names needs --names and a log."""

from __future__ import annotations

import os
import shlex
import socket
import subprocess
import sys

import pytest

from tests.serve.test_serve import run_cli

# ---- the class's log of answers ------------------------------------------------------------------


def serve_follow(*args: str) -> subprocess.CompletedProcess:
    """``attn-tui serve cat_sat_lesson --follow …`` in a process of its own (its terminal none)."""
    return subprocess.run(
        [sys.executable, "-m", "attn_tui", "serve", "cat_sat_lesson", "--follow", *args],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=30,
        check=False,
    )


@pytest.mark.parametrize("kind", ["fifo", "device", "folder"])
def test_a_responses_log_that_is_not_a_regular_file_is_refused_before_the_class(tmp_path, kind):
    """A FIFO held serve --follow up before the app appeared, saying nothing (opening one to
    write waits for a reader); a device would swallow the answers."""
    target = {"fifo": tmp_path / "class.jsonl", "device": "/dev/null", "folder": tmp_path}[kind]
    if kind == "fifo":
        os.mkfifo(target)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    done = serve_follow("--responses", str(target), "--port", str(port))
    assert done.returncode == 2 and done.stdout == ""
    reason = "Is a directory" if kind == "folder" else "not a regular file"
    assert done.stderr == f"attn-tui: --responses {target}: {reason}" + (
        " (answers are appended to a file)\n" if kind != "folder" else "\n"
    ), done.stderr


@pytest.mark.parametrize(
    "args",
    [
        ["--record-names"],
        ["--record-names", "--names"],
        ["--record-names", "--responses", "class.jsonl"],
    ],
)
def test_record_names_needs_names_and_a_log(capsys, args):
    status, _, err = run_cli(capsys, "serve", "cat_sat_lesson", "--follow", *args)
    assert status == 2 and "--record-names goes with --names and --responses" in err, err


def test_each_app_is_told_whether_its_name_is_recorded():
    from attn_tui.tui.serve import app_command

    def asked(names, record):
        words = shlex.split(app_command("x.yaml", "/c", True, "/f", names, record))
        return words[words.index("--ask-name") + 1] if "--ask-name" in words else None

    assert (asked(False, False), asked(True, False), asked(True, True)) == (
        None,
        "yes",
        "recorded",
    )


# ---- a reconnect storm, and the size a page asks for -----------------------------------------

# An app as textual-serve speaks to it: it says it is one, notes the size it was started with
# and every resize it is sent, and when told to quit closes its output at once but takes 0.4 s
# more to end, as an app's process does while Python shuts down.
FAKE_APP = r"""
import json, os, sys, time
alive = os.path.join(sys.argv[1], "alive", str(os.getpid()))
open(alive, "w").close()
with open(os.path.join(sys.argv[1], "sizes"), "a") as sizes:
    sizes.write(f"{os.environ['COLUMNS']} {os.environ['ROWS']}\n")
sys.stdout.write("__GANGLION__\n")
sys.stdout.flush()
stdin = sys.stdin.buffer
while True:
    kind = stdin.read(1)
    if not kind:
        break
    payload = stdin.read(int.from_bytes(stdin.read(4), "big"))
    meta = json.loads(payload) if kind == b"M" else {}
    if meta.get("type") == "resize":
        with open(os.path.join(sys.argv[1], "sizes"), "a") as sizes:
            sizes.write(f"{meta['width']} {meta['height']}\n")
    if meta.get("type") == "quit":
        break
os.close(1)
time.sleep(0.4)
os.unlink(alive)
"""


@pytest.fixture
async def class_of_three(tmp_path):
    from aiohttp.test_utils import TestClient, TestServer

    from attn_tui.tui.serve import ClassServer

    (tmp_path / "alive").mkdir()
    (tmp_path / "app.py").write_text(FAKE_APP)
    command = shlex.join([sys.executable, str(tmp_path / "app.py"), str(tmp_path)])
    server = ClassServer(command, "127.0.0.1", 8000, "", max_apps=3)
    client = TestClient(TestServer(await server._make_app()))
    await client.start_server()
    try:
        yield server, client, tmp_path
    finally:
        await client.close()


async def test_a_reconnect_storm_never_runs_more_apps_than_max_apps(class_of_three):
    import asyncio

    server, client, folder = class_of_three
    alive, peak = folder / "alive", [0]

    async def watch() -> None:
        while True:
            peak[0] = max(peak[0], len(os.listdir(alive)))
            await asyncio.sleep(0.005)

    watching = asyncio.create_task(watch())
    try:
        for _ in range(12):  # each browser leaves as soon as its app is up, and another comes
            try:
                socket_ = await client.ws_connect("/ws")
            except Exception:  # (503: the class is full for now)
                await asyncio.sleep(0.05)
                continue
            for _ in range(200):
                if os.listdir(alive):
                    break
                await asyncio.sleep(0.005)
            await socket_.close()
        for _ in range(300):
            if not os.listdir(alive) and server.apps == 0:
                break
            await asyncio.sleep(0.01)
    finally:
        watching.cancel()
    assert 1 <= peak[0] <= 3, peak
    assert server.apps == 0 and not os.listdir(alive)


async def test_the_terminal_a_page_asks_for_is_held_within_bounds(class_of_three):
    import asyncio

    from attn_tui.tui.browser_sockets import MAX_COLUMNS, MAX_ROWS, MIN_COLUMNS, MIN_ROWS

    server, client, folder = class_of_three
    socket_ = await client.ws_connect("/ws?width=3000&height=3000")
    for width, height in ((3000, 3000), (-5, "x"), ("120", 40.7), (None, True)):
        await socket_.send_json(["resize", {"width": width, "height": height}])
    await socket_.send_json(["resize", "not a size"])  # ignored, as anything not a message is
    await socket_.send_str("not JSON")
    for _ in range(300):
        if (folder / "sizes").exists() and len((folder / "sizes").read_text().splitlines()) == 5:
            break
        await asyncio.sleep(0.01)
    await socket_.close()
    for _ in range(300):  # (its app ended before the test does)
        if server.apps == 0:
            break
        await asyncio.sleep(0.01)
    assert (folder / "sizes").read_text().splitlines() == [
        f"{MAX_COLUMNS} {MAX_ROWS}",  # asked when the page connected
        f"{MAX_COLUMNS} {MAX_ROWS}",
        f"{MIN_COLUMNS} 24",  # what is not a number: the default
        "120 40",
        "80 24",
    ]
    assert (MAX_COLUMNS, MAX_ROWS, MIN_COLUMNS, MIN_ROWS) == (400, 150, 20, 6)
