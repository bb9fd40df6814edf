"""Measure ``attn-tui --serve`` as a class meets it: time to numbers, memory per browser.

    python benchmarks/serve.py               # 5 starts, then 10 browsers at once
    python benchmarks/serve.py --runs 3 --browsers 20

Needs Debian's chromium and textual-serve (``pip install '.[test]'``). Each start is timed
from launching the server process (``python -m attn_tui --serve cat_sat``) until a headless
Chromium, already running, shows cat_sat's scores: the server starting, the page loading
and the first browser's app starting and drawing. Memory is each browser's app process
(textual-serve starts one per connection), read from /proc once every page shows numbers:
RSS, and PSS (shared pages divided among the processes sharing them, so the apps' sum is
what they take together).
"""

from __future__ import annotations

import argparse
import asyncio
import socket
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.chromium import Chromium, end_group, group_members

SCORES = "sat    1    1    2"  # cat_sat's Score row for "sat", on screen once the app is up


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


async def start_server(folder: Path) -> tuple[asyncio.subprocess.Process, int]:
    port = free_port()
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
    await asyncio.wait_for(server.stdout.readline(), 30)  # the banner: about to listen
    while True:
        try:
            _, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.close()
            return server, port
        except OSError:
            await asyncio.sleep(0.01)


def memory_kib(pid: int) -> tuple[int, int]:
    """(RSS, PSS) of a process, in KiB."""
    fields = {}
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines()[1:]:
        name, value = line.split(":", 1)
        fields[name] = int(value.split()[0])
    return fields["Rss"], fields["Pss"]


def is_app(pid: int) -> bool:
    command = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    return b"--save-root" in command and command[0] != b"/bin/sh"


async def time_to_numbers(browser: Chromium, folder: Path) -> dict[str, float]:
    page = await browser.new_page()
    start = time.perf_counter()
    server, port = await start_server(folder)
    listening = time.perf_counter()
    try:
        await page.open(f"http://127.0.0.1:{port}/")
        await page.wait_for(SCORES, timeout=30)
        shown = time.perf_counter()
    finally:
        await page.close()
        await end_group(server)
    return {"listening": listening - start, "numbers": shown - start}


async def memory_per_browser(browser: Chromium, folder: Path, count: int) -> dict:
    server, port = await start_server(folder)
    try:
        pages = [await browser.new_page() for _ in range(count)]
        for page in pages:
            await page.open(f"http://127.0.0.1:{port}/")
        for page in pages:
            await page.wait_for(SCORES, timeout=60)
        await asyncio.sleep(1)  # let every app settle after its first frames
        members = group_members(server.pid)
        apps = [pid for pid in members if pid != server.pid and is_app(pid)]
        shells = [pid for pid in members if pid != server.pid and not is_app(pid)]
        figures = [memory_kib(pid) for pid in apps]
        return {
            "apps": len(apps),
            "shells": len(shells),
            "server": memory_kib(server.pid),
            "rss": [rss for rss, _ in figures],
            "pss": [pss for _, pss in figures],
        }
    finally:
        await end_group(server)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--browsers", type=int, default=10)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        scratch = Path(scratch)
        async with Chromium(scratch / "chromium") as browser:
            starts = [
                await time_to_numbers(browser, scratch / f"class{run}") for run in range(args.runs)
            ]
            memory = await memory_per_browser(browser, scratch / "memory", args.browsers)
    numbers = [start["numbers"] for start in starts]
    listening = [start["listening"] for start in starts]
    print(
        f"server start → listening:        median {statistics.median(listening):.2f} s "
        f"(min {min(listening):.2f}, max {max(listening):.2f}; {args.runs} runs)"
    )
    print(
        f"server start → numbers on page:  median {statistics.median(numbers):.2f} s "
        f"(min {min(numbers):.2f}, max {max(numbers):.2f})"
    )
    rss, pss = memory["rss"], memory["pss"]
    print(
        f"{memory['apps']} browsers → {memory['apps']} app processes "
        f"(+{memory['shells']} shells textual-serve starts them with)"
    )
    print(
        f"per app: RSS median {statistics.median(rss) / 1024:.1f} MiB "
        f"(min {min(rss) / 1024:.1f}, max {max(rss) / 1024:.1f}); "
        f"PSS median {statistics.median(pss) / 1024:.1f} MiB, "
        f"all apps together {sum(pss) / 1024:.0f} MiB"
    )
    print(f"the server itself: RSS {memory['server'][0] / 1024:.1f} MiB")


if __name__ == "__main__":
    asyncio.run(main())
