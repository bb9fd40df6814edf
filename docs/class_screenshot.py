"""Make docs/class_answers.svg, docs/classroom.md's picture of the teacher's screen while a class
answers, with the app itself.

    python docs/class_screenshot.py            # writes docs/class_answers.svg
    python docs/class_screenshot.py OUT.svg    # writes OUT.svg instead

The teacher's app runs headless (Textual's ``run_test``, 120×40) on the built-in cat_sat_lesson,
leading a class as ``serve --follow`` does (its follow channel, without the server), and goes to
beat 4 (n n n: "what share of its attention does 'sat' give each word?"). Twelve students follow
on the real channel and answer in the real wire format, as a student's app does at r: six right,
three who forgot to divide by √d_k (softmax([1, 1, 2]) = [0.212, 0.212, 0.576]), two who divided
by d_k (softmax([1, 1, 2]/2) = [0.274, 0.274, 0.452]) and one unexplained. The screen is saved
with Textual's own ``export_screenshot`` once all twelve are counted. tests/test_class_screenshot.py
checks that the checked-in SVG is what this script makes today.
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
SIZE = (120, 40)
TITLE = "attn-tui serve cat_sat_lesson --follow"
ADDRESS = "http://192.0.2.10:8000"  # (a documentation address: the picture names no real machine)
ANSWERS = (
    [
        (0.25, 0.25, 0.5),
        (0.248, 0.248, 0.503),
        (0.25, 0.25, 0.5),
        (0.24, 0.24, 0.52),
        (0.25, 0.25, 0.5),
        (0.26, 0.24, 0.5),
    ]
    + [(0.212, 0.212, 0.576), (0.21, 0.21, 0.58), (0.212, 0.212, 0.576)]
    + [(0.274, 0.274, 0.452), (0.27, 0.27, 0.45)]
    + [(0.6, 0.2, 0.2)]
)


async def screenshot() -> str:
    """The SVG of the teacher's screen at beat 4 with the twelve answers counted."""
    from attn_tui.core import load
    from attn_tui.core.classroom import wire
    from attn_tui.core.loading.catalog import find
    from attn_tui.tui.app import AttnApp
    from attn_tui.tui.classroom import Classroom
    from attn_tui.tui.follow import Leader, channel_socket

    listener, channel = channel_socket()
    leader = Leader(listener, channel)
    # a state folder of its own: unsaved edits of the built-in left by this user's own app would
    # be offered first (a question on the screen, not the picture)
    state, before = tempfile.TemporaryDirectory(), os.environ.get("XDG_STATE_HOME")
    os.environ["XDG_STATE_HOME"] = state.name
    app = AttnApp(
        load(find("cat_sat_lesson")),
        read_only=True,
        remember=False,
        classroom=Classroom(leader=leader, address=ADDRESS, channel=channel),
    )
    writers = []
    try:
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            await pilot.press("n", "n", "n")
            for n in range(len(ANSWERS)):
                _, writer = await asyncio.open_unix_connection(channel)
                writer.write(wire.hello_line(f"{n + 1:08x}"))
                writers.append(writer)
            await _until(lambda: leader.followers == len(ANSWERS))
            for writer, guess in zip(writers, ANSWERS):
                writer.write(wire.answer_line(4, 2, guess))
                await writer.drain()
            panel = app.screen.query_one("#class-answers")
            await _until(
                lambda: f"{len(ANSWERS)} answered of {len(ANSWERS)} following" in panel.text
            )
            await pilot.pause()
            await pilot.wait_for_scheduled_animations()
            await pilot.pause()
            svg = app.export_screenshot(title=TITLE)
            for writer in writers:  # the class leaves before the app ends
                writer.close()
            await _until(lambda: leader.followers == 0)
            return svg
    finally:
        for writer in writers:
            writer.close()
        leader.close()
        if before is None:
            os.environ.pop("XDG_STATE_HOME", None)
        else:
            os.environ["XDG_STATE_HOME"] = before
        state.cleanup()


async def _until(condition, timeout: float = 10) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not condition():
        if loop.time() > deadline:
            raise RuntimeError("the class's answers did not arrive")
        await asyncio.sleep(0.02)


def main(argv: list[str]) -> int:
    out = Path(argv[0]) if argv else HERE / "class_answers.svg"
    out.write_text(asyncio.run(screenshot()), encoding="utf-8")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(HERE.parent))  # the checkout this script is in, as the tests use it
    sys.exit(main(sys.argv[1:]))
