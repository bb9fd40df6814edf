"""A served class of three real headless Chromium browsers answering the teacher (#44): the
teacher's app (here, headless, as ``serve --follow`` runs it, with its class's server a real
``serve --lesson --follow-from`` process) leads to beat 4, each browser's student types their
guesses of "sat"'s weights and presses r, and the teacher's screen counts the three.

By hand: "sat"'s weights are exp([1, 1, 2]/√2) / sum = [0.248, 0.248, 0.503]; forgetting to
divide by √d_k gives softmax([1, 1, 2]) = [0.212, 0.212, 0.576]. Two type [0.25, 0.25, 0.5]
(within 0.05: right), one [0.21, 0.21, 0.58] (that mistake, within 0.05)."""

from __future__ import annotations

import asyncio
import json
import sys

import pytest

from attn_tui.core import load
from attn_tui.tui.app import AttnApp
from attn_tui.tui.classroom import Classroom
from attn_tui.tui.follow import Leader, channel_socket
from tests.chromium import CHROMIUM, Chromium, end_group
from tests.conftest import ROOT, SCENARIOS
from tests.serve.test_follow import until
from tests.serve.test_serve_browser import free_port

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(
        CHROMIUM is None,
        reason="no chromium on PATH: install Debian's chromium to run the browser "
        "test (apt-get install chromium; CI does)",
    ),
]

GUESSES = [("0.25", "0.25", "0.5"), ("0.21", "0.21", "0.58"), ("0.25", "0.25", "0.5")]


def panel(app) -> str:
    return app.screen.query_one("#class-answers").text


async def serving(channel: str, port: int, folder, *more: str) -> asyncio.subprocess.Process:
    """The class's server as ``serve --follow`` starts it (tui/lead.py; ``more``: its
    --names, --record-names), up once it says so."""
    server = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "attn_tui",
        "serve",
        str(SCENARIOS / "cat_sat_lesson.yaml"),
        "--lesson",
        "--follow-from",
        channel,
        "--port",
        str(port),
        "--max-apps",
        "5",
        "--serve-dir",
        str(folder),
        *more,
        cwd=ROOT,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
        start_new_session=True,
    )
    said = b""
    while b"Ctrl+C stops it" not in said:
        line = await asyncio.wait_for(server.stdout.readline(), 30)
        assert line, f"the class's server ended: {said.decode(errors='replace')}"
        said += line
    return server


async def test_three_browsers_answers_appear_on_the_teachers_screen(tmp_path):
    listener, channel = channel_socket()
    leader = Leader(listener, channel)
    leader.max_followers = 5
    log = tmp_path / "class.jsonl"
    port = free_port()
    app = AttnApp(
        load(SCENARIOS / "cat_sat_lesson.yaml"),
        read_only=True,
        remember=False,
        classroom=Classroom(
            leader=leader, address=f"http://127.0.0.1:{port}", responses=str(log), channel=channel
        ),
    )
    server = None
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            server = await serving(channel, port, tmp_path / "class")
            # three browsers, not three tabs of one: a browser's tabs share its cookie, so its
            # student id (one student answering three times: the latest counts)
            async with (
                Chromium(tmp_path / "one") as one,
                Chromium(tmp_path / "two") as two,
                Chromium(tmp_path / "three") as three,
            ):
                pages = [await browser.new_page() for browser in (one, two, three)]
                for page in pages:
                    await page.open(f"http://127.0.0.1:{port}/")
                    await page.wait_for("Following the teacher (at beat 1)", timeout=30)
                await until(lambda: leader.followers == 3, timeout=10)
                await pilot.press(
                    "n", "n", "n"
                )  # the teacher goes to beat 4: "sat"'s weights, predicted
                assert "0 answered of 3 following" in panel(app)
                for page, guess in zip(pages, GUESSES):
                    await page.wait_for("beat 4/9")
                    await page.wait_for("Step 4 · Softmax")
                    await page.type(
                        "\r" + "\t".join(guess) + "\r"
                    )  # Enter opens the guess, Tab moves on
                    await page.wait_for("3 of 3 cells guessed")
                    await page.press("r")
                    await page.wait_for(
                        "close"
                    )  # their own marks: the row revealed in that browser
                try:
                    await until(lambda: "3 answered of 3 following" in panel(app), timeout=10)
                except AssertionError:
                    desk = app.screen.lessons.lead.desk
                    raise AssertionError(
                        f"{panel(app)}\n{desk.tallies[4].latest} refused {desk.refused} "
                        f"{desk.last_refusal} {leader.dropped}\n{await pages[0].screen()}"
                    )
                await pilot.pause()
                counts = app.screen.lessons.lead.desk.counts(4)  # the teacher's state…
                assert (counts.answered, counts.right) == (3, 2)
                assert [(key, n) for key, _, n in counts.mistakes] == [("unscaled", 1)]
                text = panel(app)  # …and their screen
                assert "2 right" in text and "1 forgot to divide by √d_k" in text, text
                assert "other" not in text  # nobody's guess went unexplained
                # "sat"'s column: guesses 0.5, 0.58, 0.5 → median 0.5; the correct 0.503
                assert "correct 0.503" in text and "median 0.500" in text
                logged = [json.loads(line) for line in log.read_text().splitlines()]
                assert len({entry["student"] for entry in logged}) == 3  # each browser its own id
                assert sorted(tuple(entry["guess"]) for entry in logged) == sorted(
                    tuple(float(value) for value in guess) for guess in GUESSES
                )
                assert {(entry["beat"], entry["stage"], entry["row"]) for entry in logged} == {
                    (4, "weights", 2)
                }
    finally:
        if server is not None:
            await end_group(server)
        leader.close()
