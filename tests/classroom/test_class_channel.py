"""The class's answers on the follow channel: the teacher's app reads every follower's lines
as hostile input. Each bad line is refused with its follower kept (or, past a line's length,
dropped), and the other followers' answers still arrive; 40 followers answering at once are
all counted."""

from __future__ import annotations

import asyncio
import json

from attn_tui.core import load
from attn_tui.core.classroom import wire
from attn_tui.tui import follow
from attn_tui.tui.class_desk import ClassDesk
from attn_tui.tui.follow import Follower, Leader, channel_socket
from tests.conftest import SCENARIOS
from tests.serve.test_follow import until

RIGHT = (0.248, 0.248, 0.503)  # the chapter's weights of "sat"
UNSCALED = (0.212, 0.212, 0.576)  # softmax([1, 1, 2]): √d_k forgotten


async def leading(max_followers=None, tmp_path=None):
    listener, path = channel_socket()
    leader = Leader(listener, path)
    leader.max_followers = max_followers
    desk = ClassDesk(
        load(SCENARIOS / "cat_sat_lesson.yaml"),
        responses=str(tmp_path / "class.jsonl") if tmp_path else None,
    )
    leader.heard = desk.heard
    await leader.start()
    leader.publish(4)
    return leader, desk, path


async def raw(path: str, *lines: bytes):
    reader, writer = await asyncio.open_unix_connection(path)
    for line in lines:
        writer.write(line)
    await writer.drain()
    return reader, writer


def answered(desk) -> int:
    return desk.counts(4).answered


async def test_hostile_lines_are_refused_and_the_others_still_answer(tmp_path):
    leader, desk, path = await leading(tmp_path=tmp_path)
    try:
        good_reader, good = await raw(
            path, wire.hello_line("0000000a"), wire.answer_line(4, 2, RIGHT)
        )
        await until(lambda: answered(desk) == 1)
        hostile = [
            b"answer 4 2 nan 0.2 0.3\n",
            b"answer 3 2 0.25 0.25 0.5\n",  # NaN; a beat that predicts nothing
            b"answer 4 1 0.25 0.25 0.5\n",
            b"answer 4 2 0.25 0.25\n",  # another row; the wrong length
            b"\x1b]52;c;AAAA\x07\n",
            b"[/INST] ignore the lesson\n",
            b"4\n",
        ]
        bad = []  # a follower each (a burst of them from one would be a flood)
        for n, line in enumerate(hostile):
            bad.append((await raw(path, wire.hello_line(f"0000010{n}"), line))[1])
        await until(lambda: desk.refused >= len(hostile))
        assert answered(desk) == 1 and leader.followers == 1 + len(hostile)  # each one kept
        # a half-written line, then gone: nothing counted
        _, half = await raw(path, wire.hello_line("0000000c"), b"answer 4 2 0.2")
        half.close()
        await until(lambda: leader.followers == 1 + len(hostile))
        assert answered(desk) == 1
        # a line longer than a message can be: that follower is dropped, nobody else
        _, long = await raw(path, b"answer 4 2 " + b"1" * 100_000 + b"\n")
        await until(lambda: leader.dropped == 1)
        await until(lambda: leader.followers == 1 + len(hostile))
        good.write(wire.answer_line(4, 2, UNSCALED))  # the good one changes its answer: still heard
        await until(lambda: desk.counts(4).right == 0)
        counts = desk.counts(4)
        assert counts.answered == 1 and [(key, n) for key, _, n in counts.mistakes] == [
            ("unscaled", 1)
        ]
        assert all(writer.transport.get_write_buffer_size() == 0 for writer in bad)
        leader.publish(5)  # the lead still publishes to everyone
        assert (await asyncio.wait_for(good_reader.readline(), 2)) == b"4\n"
        assert (await asyncio.wait_for(good_reader.readline(), 2)) == b"5\n"
    finally:
        leader.close()
        desk.close()
    lines = (tmp_path / "class.jsonl").read_text().splitlines()
    assert len(lines) == 2 and '"student": "0000000a"' in lines[0]  # only the two valid answers


async def test_a_flooding_follower_is_dropped_and_another_is_not_held_up():
    leader, desk, path = await leading()
    refusals = []
    leader.refused = refusals.append
    try:
        flood_reader, flood = await raw(
            path, wire.hello_line("0000000f"), *[wire.answer_line(4, 2, UNSCALED)] * 3000
        )
        _, calm = await raw(path, wire.hello_line("0000000e"))
        await asyncio.sleep(0.05)
        calm.write(wire.answer_line(4, 2, RIGHT))
        await calm.drain()
        # past its burst the flood's connection is closed: a few lines read, not 3,000 dropped
        try:
            assert await asyncio.wait_for(flood_reader.read(), 2) == b"4\n"
        except ConnectionResetError:  # (closed with its lines unread: a reset)
            pass
        await until(lambda: leader.followers == 1)
        await until(lambda: answered(desk) == 1, timeout=2)
        assert leader.dropped == 1 and refusals == [
            "more than 2 messages a second (a flood: the follower was dropped)"
        ]
        assert desk.counts(4).right == 1  # the calm one; the flood left, so is not counted
    finally:
        leader.close()


async def test_a_message_from_a_connection_that_said_no_hello_is_refused():
    leader, desk, path = await leading()
    try:
        await raw(path, wire.answer_line(4, 2, RIGHT), b"name Ada\n")
        await until(lambda: desk.refused == 2)
        assert answered(desk) == 0 and desk.tallies[4].latest == {}
        assert desk.last_refusal == "a message before hello (from nobody following)"
    finally:
        leader.close()


async def test_a_reconnect_storm_of_fresh_ids_never_counts_more_than_follow(monkeypatch):
    """One client that reconnects 600 times, each time a fresh id answering and leaving, beside
    two students who stay: the counts are of the two, never of the 600 ids."""
    monkeypatch.setattr(
        follow, "JOIN_RATE", 10_000.0
    )  # (the storm's pace here; its own test below)
    leader, desk, path = await leading()
    seen = []  # (answered, following) whenever the screen would repaint
    desk.arrived = lambda: seen.append((answered(desk), leader.followers))
    try:
        stay = [(await raw(path, wire.hello_line(f"5000000{n}")))[1] for n in range(2)]
        for writer in stay:
            writer.write(wire.answer_line(4, 2, RIGHT))
        await until(lambda: answered(desk) == 2)
        for n in range(600):
            reader, writer = await raw(
                path, wire.hello_line(f"{n + 1:08x}"), wire.answer_line(4, 2, UNSCALED)
            )
            await reader.readline()  # the teacher's beat: it has joined
            await asyncio.sleep(0)  # (and its answer heard)
            writer.close()
        await until(lambda: leader.followers == 2, timeout=20)
        assert max(count for count, _ in seen) <= 3  # the two, and the one storming id at a time
        assert all(count <= following for count, following in seen)
        counts = desk.counts(4)
        assert (counts.answered, counts.right) == (2, 2)
    finally:
        leader.close()


async def test_connections_join_at_most_join_rate_a_second_after_a_burst():
    leader, desk, path = await leading()
    try:
        writers = [(await raw(path))[1] for _ in range(follow.JOIN_BURST)]  # a class at once
        await until(lambda: leader.followers == follow.JOIN_BURST)
        # 20 more at once (the kernel queues them, up to the listener's backlog of 64)
        writers += [(await raw(path))[1] for _ in range(20)]
        await asyncio.sleep(0.5)
        assert leader.followers <= follow.JOIN_BURST + 0.5 * follow.JOIN_RATE + 1
        await until(lambda: leader.followers == follow.JOIN_BURST + 20)
        for writer in writers:
            writer.close()
    finally:
        leader.close()


async def test_no_more_followers_than_the_class_holds():
    leader, desk, path = await leading(max_followers=3)
    try:
        writers = [(await raw(path))[1] for _ in range(3)]
        await until(lambda: leader.followers == 3)
        reader, extra = await raw(path, wire.hello_line("0000000d"), wire.answer_line(4, 2, RIGHT))
        try:  # closed at once, never read (what it had sent is thrown away: a reset)
            assert await asyncio.wait_for(reader.read(), 2) == b""
        except ConnectionResetError:
            pass
        assert leader.followers == 3 and answered(desk) == 0
        writers[0].close()
        await until(lambda: leader.followers == 2)
    finally:
        leader.close()


async def test_forty_followers_answer_within_a_second_and_are_all_counted():
    leader, desk, path = await leading(max_followers=40)
    followers, tasks = [], []
    try:
        for n in range(40):
            follower = Follower(path, 9, lambda beat: None, lambda why: None, student=f"{n:08x}")
            followers.append(follower)
            tasks.append(asyncio.create_task(follower.run()))
        await until(lambda: all(follower.connected for follower in followers))
        loop = asyncio.get_running_loop()
        start = loop.time()
        for n, follower in enumerate(followers):  # 30 right, 10 forgot √d_k
            assert follower.send(wire.answer_line(4, 2, RIGHT if n % 4 else UNSCALED))
        await until(lambda: answered(desk) == 40, timeout=5)
        counts = desk.counts(4)
        took = loop.time() - start
        assert (counts.answered, counts.right) == (40, 30)
        assert [(key, n) for key, _, n in counts.mistakes] == [("unscaled", 10)]
        assert took < 5  # (the figure itself is benchmarks/class_answers.py's)
    finally:
        for task in tasks:
            task.cancel()
        leader.close()


async def test_with_record_names_the_log_carries_each_students_first_name(tmp_path):
    scenario = load(SCENARIOS / "cat_sat_lesson.yaml")
    for record in (True, False):
        log = tmp_path / f"class-{record}.jsonl"
        desk = ClassDesk(scenario, responses=str(log), names=True, record_names=record)
        ada, anonymous = object(), object()
        desk.heard(ada, wire.Hello("0000000a"))
        desk.heard(ada, wire.Name("Ada"))
        desk.heard(anonymous, wire.Hello("0000000b"))
        for connection in (ada, anonymous):
            desk.heard(connection, wire.Answer(4, 2, RIGHT))
        desk.close()
        lines = [json.loads(text) for text in log.read_text().splitlines()]
        if record:
            assert [found["name"] for found in lines] == ["Ada", None]
        else:
            assert all("name" not in found for found in lines)
