"""Measure the teacher's screen while a class of 40 answers (#44's targets): the counts on the
screen within 1 s of the last answer, and every key within floor + 20 ms while answers arrive.

    python benchmarks/class_answers.py                 # 8 rounds of answers, 12 presses of each key
    python benchmarks/class_answers.py --rounds 4 --keys 6 --hostile
    python benchmarks/class_answers.py --flooders 40   # and 40 connections flooding answers
    python benchmarks/class_answers.py --storm 20      # and 20 s of reconnects with fresh ids

The teacher's app is the real one, ``python -m attn_tui serve cat_sat_lesson --follow
--responses LOG`` (its class's server beside it), in a tmux pane (120×40), taken to the predict
beat (4: the weights of "sat") with n n n. The 40 followers are simulated: 40 connections to its
real follow channel (the Unix-domain socket it made), each saying hello and then answering in
the real wire format, as a student's app does when its student presses r. A round is the 40
answering within one second (25 ms apart), each a distinct guess: 39 right, or, the next
round, 39 forgetting √d_k, so the screen's "40 answered of 40 following · N right" shows the
round's N only once its last answer is counted (the 40th answers "other" every round, so the
line of mistakes is always there: the counts never change the height of what is below them).
Times are when the output that showed it reached the terminal (a tmux control-mode client
hears each output: benchmarks/tmux.py).

Keys: ↑/↓ (the row) and ]/[ (the key column) on the teacher's screen, pressed while rounds of
answers arrive without a pause, each timed from the key to the last frame that changed the
screen below the class's counts (the counts change with every answer; what the key changes is
the stage and its explanation), interleaved with x on a bare Textual app in the same tmux (the
floor). An answer's frame that came in the same read as the key's is counted in the key's time:
the figures err high, never low. ``--hostile``: the same, with a 41st connection flooding the
channel with hostile lines as fast as it can (NaN, an ESC byte, '[/INST]', a beat that
predicts nothing, a number too large) and a 42nd that half-writes a line and hangs.

``--flooders N`` (the attack of a teacher's week): N more connections, from a process of their
own, each saying hello with a fresh id and then flooding valid answers as fast as the channel
takes them, and connecting again with another fresh id as soon as the teacher's app drops it
(it does, after a burst over 2 a second); the keys are timed while they flood (``--max-apps``
lets them all in). ``--storm S``: for S seconds one client connects, says hello with a fresh id,
answers, reads the beat and leaves, again and again (3,000 times took ~13 s on its own before the
teacher's app took at most 10 connections a second); the screen's "N answered of M following"
is read all the while and N must never pass M (it had said "3006 answered of 0 following").
Every connection is to 127.0.0.1's Unix-domain socket the app made: nothing leaves the machine.
"""

from __future__ import annotations

import argparse
import asyncio
import glob
import random
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from attn_tui.core.classroom import wire
from benchmarks.class_attacks import flood, storm
from benchmarks.pane_measurements import BARE_APP
from benchmarks.serve import free_port
from benchmarks.tmux import FRAMES_GAP, SCRATCH, Tmux

STUDENTS = 40
RIGHT = (0.248, 0.248, 0.503)  # the chapter's weights of "sat"
UNSCALED = (0.212, 0.212, 0.576)  # softmax([1, 1, 2]): √d_k forgotten, by hand
OTHER = (0.9, 0.05, 0.05)  # no mistake gives it: one student answers it every round
COUNTS = re.compile(r"(\d+) answered of (\d+) following · (\d+) right")
STAGE = "╭─ Step"  # the key's part of the screen starts here
HOSTILE = [
    b"answer 4 2 nan 0.2 0.3\n",
    b"\x1b]52;c;AAAA\x07\n",
    b"[/INST] ignore the lesson\n",
    b"answer 3 2 0.25 0.25 0.5\n",
    b"answer 4 2 1e999 0 0\n",
]


class Class:
    """The simulated followers, on an event loop of their own in a thread."""

    def __init__(self, channel: str, hostile: bool) -> None:
        self.channel, self.hostile = channel, hostile
        self.loop = asyncio.new_event_loop()
        threading.Thread(target=self.loop.run_forever, daemon=True).start()
        self.writers: list[asyncio.StreamWriter] = []
        self.rng = random.Random(44)
        self.flooded = 0
        self.stop = False
        self.call(self._connect())

    def call(self, coroutine, timeout: float = 60):
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(timeout)

    async def _connect(self) -> None:
        for n in range(STUDENTS):
            reader, writer = await asyncio.open_unix_connection(self.channel)
            writer.write(wire.hello_line(f"{n + 1:08x}"))
            asyncio.ensure_future(
                self._drain(reader)
            )  # the beats the teacher sends: read, as an app does
            self.writers.append(writer)
        if self.hostile:
            reader, flood = await asyncio.open_unix_connection(self.channel)
            asyncio.ensure_future(self._drain(reader))
            asyncio.ensure_future(self._flood(flood))
            _, half = await asyncio.open_unix_connection(self.channel)
            half.write(b"answer 4 2 0.2")  # and nothing more, ever: it hangs
            self.writers.append(half)

    async def _drain(self, reader: asyncio.StreamReader) -> None:
        while await reader.read(4096):
            pass

    async def _flood(self, writer: asyncio.StreamWriter) -> None:
        n = 0
        while not self.stop:
            writer.write(HOSTILE[n % len(HOSTILE)])
            n += 1
            self.flooded += 1
            if n % 50 == 0:
                try:
                    await writer.drain()
                except ConnectionError:
                    return
                await asyncio.sleep(0.001)

    async def round(self, right: bool) -> float:
        """Every student answers once within a second; the time of the last answer sent."""
        last = 0.0
        for n, writer in enumerate(self.writers[:STUDENTS]):
            base = OTHER if n == STUDENTS - 1 else RIGHT if right else UNSCALED
            guess = [
                round(value + self.rng.uniform(-0.003, 0.003), 4) for value in base
            ]  # distinct, still its kind
            writer.write(wire.answer_line(4, 2, guess))
            await writer.drain()
            last = time.perf_counter()
            await asyncio.sleep(1 / STUDENTS)
        return last

    def rounds_in_background(self) -> threading.Event:
        """Rounds without a pause until the event is set (a student answers about once a second)."""
        done = threading.Event()

        async def go() -> None:
            right = True
            while not done.is_set():
                await self.round(right)
                right = not right

        asyncio.run_coroutine_threadsafe(go(), self.loop)
        return done

    def close(self) -> None:
        self.stop = True
        for writer in self.writers:
            self.loop.call_soon_threadsafe(writer.close)
        time.sleep(0.2)
        self.loop.call_soon_threadsafe(self.loop.stop)


def region(screen: str, below: str | None) -> str:
    return screen if below is None else screen[screen.find(below) :]


def key_time(tmux: Tmux, name: str, key: str, below: str | None) -> float:
    """Seconds from ``key`` to the last frame that changed the screen (from ``below`` on): the
    frames that follow within FRAMES_GAP of each other are the key's."""
    watch = tmux.watches[name]
    before = region(tmux.styled(name), below)
    sent = watch.send_keys(key)
    changed_at, seen = None, before
    while True:
        arrived = watch.output(timeout=FRAMES_GAP if changed_at else 10)
        if arrived is None:
            if changed_at is None:
                raise RuntimeError(f"{name}: {key} changed nothing in 10 s:\n{tmux.screen(name)}")
            return changed_at - sent
        now = region(tmux.styled(name), below)
        if now != seen:
            seen, changed_at = now, arrived
        elif changed_at is not None and arrived - changed_at > FRAMES_GAP:
            return changed_at - sent  # (answers' frames go on: the key's are over)


def counts_time(tmux: Tmux, crowd: Class, right: bool, following: int) -> float:
    """Seconds from the round's last answer to the output that showed its counts."""
    watch = tmux.watches["lead"]
    watch.output(timeout=0)
    future = asyncio.run_coroutine_threadsafe(crowd.round(right), crowd.loop)
    want = (STUDENTS, following, STUDENTS - 1 if right else 0)
    shown = None
    deadline = time.perf_counter() + 15
    while shown is None:
        arrived = watch.output(timeout=0.5)
        found = COUNTS.search(tmux.screen("lead"))
        if found and tuple(map(int, found.groups())) == want:
            shown = arrived if arrived is not None else time.perf_counter()
        if time.perf_counter() > deadline:
            raise RuntimeError(f"the counts {want} never showed:\n{tmux.screen('lead')}")
    return shown - future.result(15)


KEYS = {"↑/↓ (row)": ("Up", "Down"), "]/[ (key column)": ("]", "[")}


def presses(tmux: Tmux, n: int) -> tuple[dict[str, list[float]], list[float]]:
    """Seconds per press of each of KEYS on the teacher's screen, interleaved with the bare
    app's."""
    ours: dict[str, list[float]] = {label: [] for label in KEYS}
    bare: list[float] = []
    for i in range(n):
        for label, cycle in KEYS.items():
            ours[label].append(key_time(tmux, "lead", cycle[i % 2], STAGE))
            bare.append(key_time(tmux, "bare", "x", None))
    return ours, bare


def key_lines(what: str, ours: dict[str, list[float]], bare: list[float]) -> None:
    floor = statistics.median(bare) * 1000
    print(f"{what}: floor (bare app, x) median {floor:.1f} ms, max {max(bare) * 1000:.1f} ms")
    for label, times in ours.items():
        added = [t * 1000 - floor for t in times]
        over = [f"{a:.0f}" for a in added if a > 20]
        print(
            f"  {label}: median {statistics.median(times) * 1000:.1f} ms → added median "
            f"{statistics.median(added):.1f} ms, max {max(added):.1f} ms ({len(times)} presses) "
            f"{'✓' if not over else 'missed'} every press ≤ floor + 20 ms"
            f"{'' if not over else f' ({len(over)} over: ' + ', '.join(over) + ' ms added)'}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--keys", type=int, default=12)
    parser.add_argument("--hostile", action="store_true")
    parser.add_argument("--flooders", type=int, default=0, metavar="N")
    parser.add_argument("--storm", type=float, default=0, metavar="SECONDS")
    parser.add_argument("--flood", nargs=3, help=argparse.SUPPRESS)  # (the flooders' process)
    args = parser.parse_args()
    if args.flood:
        kind, channel, size = args.flood
        flood(channel, int(size), 60) if kind == "flood" else storm(channel, float(size))
        return
    folder = Path(tempfile.mkdtemp(prefix="class-", dir=SCRATCH))
    channels = folder / "tmp"
    channels.mkdir(mode=0o700)
    (folder / "bare.py").write_text(BARE_APP)
    log = folder / "class.jsonl"
    tmux = Tmux()
    crowd = None
    try:
        tmux.start(
            "lead",
            f"TMPDIR={channels} {sys.executable} -m attn_tui serve cat_sat_lesson --follow "
            f"--port {free_port()} --max-apps {STUDENTS + 2 + args.flooders} --responses {log}",
        )
        tmux.start("bare", f"{sys.executable} {folder / 'bare.py'}")
        tmux.wait("lead", lambda text: "Leading the class" in text)
        tmux.wait("bare", lambda text: "bare ready" in text)
        for _ in range(3):
            tmux("send-keys", "-t", "lead", "n")
            time.sleep(0.3)
        tmux.wait("lead", lambda text: "The class, beat 4" in text)
        (channel,) = glob.glob(str(channels / "attn-tui-follow-*" / "beats"))
        crowd = Class(channel, args.hostile)
        following = STUDENTS + 2 * args.hostile
        tmux.wait("lead", lambda text: f"{following} apps following" in text)
        shown = [counts_time(tmux, crowd, n % 2 == 0, following) for n in range(args.rounds)]
        quiet, quiet_bare = presses(
            tmux, max(2, args.keys // 2)
        )  # no answer arriving: the app's own
        done = crowd.rounds_in_background()
        time.sleep(1)
        ours, bare = presses(tmux, args.keys)
        attack = attack_said = None
        over: list[str] = []
        if args.flooders or args.storm:
            kind, size = ("flood", args.flooders) if args.flooders else ("storm", args.storm)
            attacker = subprocess.Popen(
                [sys.executable, __file__, "--flood", kind, channel, str(size)],
                stdout=subprocess.PIPE,
                text=True,
            )
            time.sleep(1)
            if args.flooders:
                attack = presses(tmux, args.keys)
            else:
                while attacker.poll() is None:  # the counts, read all the while
                    found = COUNTS.search(tmux.screen("lead"))
                    if found and int(found[1]) > int(found[2]):
                        over.append(found.group(0))
                    time.sleep(0.05)
            attacker.terminate()
            attack_said = attacker.communicate(timeout=30)[0].strip()
        done.set()
        time.sleep(1.2)
        flooded = crowd.flooded
        screen = tmux.screen("lead")
    finally:
        if crowd is not None:
            crowd.close()
        tmux.stop()
    answers = len(log.read_text().splitlines()) if log.exists() else 0
    print(
        f"# the teacher's screen, {STUDENTS} simulated followers answering within a second "
        f"(2-core host shared with other work: loaded)"
        f"{' — with a flood and a hung half-line' * args.hostile}"
    )
    late = max(shown)
    print(
        f"counts on screen after the last answer: median {statistics.median(shown) * 1000:.0f} ms, "
        f"max {late * 1000:.0f} ms ({len(shown)} rounds) {'✓' if late <= 1 else 'missed'} ≤ 1 s"
    )
    key_lines("keys while 40 answer (a round a second, without a pause)", ours, bare)
    key_lines("the same keys with no answer arriving (the app's own)", quiet, quiet_bare)
    if attack is not None:
        key_lines(
            f"the same keys while {args.flooders} followers flood answers (each dropped and back)",
            *attack,
        )
    if args.storm:
        print(
            f"a storm of fresh ids for {args.storm:g} s: the screen's answered passed its "
            f"following {len(over)} times{': ' + over[0] if over else ''} "
            f"{'✓' if not over else 'missed'} never"
        )
    if attack_said:
        print(attack_said)
    print(f"answers logged: {answers}; hostile lines sent: {flooded}")
    found = COUNTS.search(screen)
    print(f"the screen at the end: {found.group(0) if found else '(no counts)'}")


if __name__ == "__main__":
    main()
