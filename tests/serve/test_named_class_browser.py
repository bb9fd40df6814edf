"""The lab again, with names recorded (serve LESSON --follow --names --responses FILE
--record-names), from three real headless Chromium students: each browser's app opens with the
box that asks a first name and says what it is for; two give one, the third presses Esc and
stays anonymous; all three answer; the teacher's screen names the two, and the log carries
"Ada", "Grace" and null. The guesses, by hand as in test_class_answers_browser: [0.25, 0.25,
0.5] is right (within 0.05 of [0.248, 0.248, 0.503]), [0.21, 0.21, 0.58] forgot √d_k."""

from __future__ import annotations

import json

import pytest

from attn_tui.core import load
from attn_tui.tui.app import AttnApp
from attn_tui.tui.classroom import Classroom
from attn_tui.tui.follow import Leader, channel_socket
from tests.chromium import CHROMIUM, Chromium, end_group
from tests.conftest import SCENARIOS
from tests.serve.test_class_answers_browser import GUESSES, panel, serving
from tests.serve.test_follow import until
from tests.serve.test_serve_browser import free_port

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(CHROMIUM is None, reason="no chromium on PATH (apt-get install chromium)"),
]

NAMES = ["Ada", "Grace", None]  # None: Esc, anonymous


async def test_three_browsers_give_names_or_stay_anonymous_and_the_log_records_them(tmp_path):
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
            leader=leader,
            address=f"http://127.0.0.1:{port}",
            responses=str(log),
            channel=channel,
            names=True,
            record_names=True,
        ),
    )
    server = None
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            server = await serving(channel, port, tmp_path / "class", "--names", "--record-names")
            async with (
                Chromium(tmp_path / "one") as one,
                Chromium(tmp_path / "two") as two,
                Chromium(tmp_path / "three") as three,
            ):
                pages = [await browser.new_page() for browser in (one, two, three)]
                for page, name in zip(pages, NAMES):
                    await page.open(f"http://127.0.0.1:{port}/")
                    box = await page.wait_for("Your first name?", timeout=30)
                    assert "teacher's record of the class's" in box, box  # (the box wraps)
                    assert "Esc: stay anonymous" in box, box
                    if name is None:
                        await page.type("\x1b")
                    else:
                        await page.type_into_field(name)
                        await page.type("\r")
                    await page.wait_for("Your first name?", gone=True)
                    await page.wait_for("Following the teacher (at beat 1)", timeout=30)
                await until(lambda: leader.followers == 3, timeout=10)
                await pilot.press("n", "n", "n")
                for page, guess in zip(pages, GUESSES):
                    await page.wait_for("Step 4 · Softmax")
                    await page.type("\r" + "\t".join(guess) + "\r")
                    await page.wait_for("3 of 3 cells guessed")
                    await page.press("r")
                    await page.wait_for("close")
                await until(lambda: "3 answered of 3 following" in panel(app), timeout=10)
                await pilot.pause()
                text = panel(app)
                assert "Ada (right)" in text and "Grace (forgot to divide by √d_k)" in text, text
                logged = [json.loads(line) for line in log.read_text().splitlines()]
                assert sorted((entry["name"] or "") for entry in logged) == ["", "Ada", "Grace"]
                by_name = {entry["name"]: tuple(entry["guess"]) for entry in logged}
                assert by_name["Grace"] == (0.21, 0.21, 0.58)
    finally:
        if server is not None:
            await end_group(server)
        leader.close()
