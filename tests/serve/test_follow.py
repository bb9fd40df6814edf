"""The follow channel: only the teacher's app publishes, a student's app reads only beat
numbers within the lesson, at most a short line at a time, and a burst is one move."""

from __future__ import annotations

import asyncio
import os
import shutil
import stat

from attn_tui.tui.follow import Follower, Leader, channel_socket


async def until(condition, timeout: float = 5.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not condition():
        assert asyncio.get_running_loop().time() < deadline, "timed out"
        await asyncio.sleep(0.01)


def follower(path: str, beats: int = 9):
    got, lost = [], []
    found = Follower(path, beats, got.append, lost.append)
    return found, got, lost


async def test_followers_get_the_teachers_beat_and_the_channel_is_private():
    listener, path = channel_socket()
    assert stat.S_IMODE(os.stat(os.path.dirname(path)).st_mode) == 0o700  # only this user gets in
    leader = Leader(listener, path)
    await leader.start()
    leader.publish(2)
    one, got_one, _ = follower(path)
    two, got_two, _ = follower(path)
    tasks = [asyncio.create_task(one.run()), asyncio.create_task(two.run())]
    try:
        await until(lambda: got_one == [2] and got_two == [2])  # the current beat, on joining
        leader.publish(3)
        await until(lambda: got_one == [2, 3] and got_two == [2, 3])
        # an app of the class writing to the channel publishes nothing: what it sends is never
        # passed on (and a hundred lines at once is a flood: it is dropped)
        reader, writer = await asyncio.open_unix_connection(path)
        writer.write(b"7\n" * 3)
        await writer.drain()
        await until(lambda: leader.followers == 3)
        await asyncio.sleep(0.2)
        assert got_one == [2, 3] and got_two == [2, 3] and leader.followers == 3
        writer.write(b"7\n" * 100)
        await until(lambda: leader.followers == 2)
        assert got_one == [2, 3] and got_two == [2, 3]
        writer.close()
    finally:
        for task in tasks:
            task.cancel()
        leader.close()
    assert not os.path.exists(path)


async def serving(lines: bytes):
    """A fake teacher that sends ``lines`` and stays connected."""
    listener, path = channel_socket()

    async def handle(reader, writer):
        writer.write(lines)
        await writer.drain()
        await asyncio.sleep(10)

    server = await asyncio.start_unix_server(handle, sock=listener)
    return _Served(server, path), path


class _Served:
    """A fake teacher's server, whose close() also removes its channel's folder (each test left
    one in the temporary folder)."""

    def __init__(self, server, path: str) -> None:
        self.server, self.path = server, path

    def close(self) -> None:
        self.server.close()
        shutil.rmtree(os.path.dirname(self.path), ignore_errors=True)


async def check_refused(lines: bytes, why: str) -> None:
    server, path = await serving(lines)
    found, got, lost = follower(path)
    task = asyncio.create_task(found.run())
    try:
        await until(lambda: lost)
        assert why in lost[0] and got in ([], [1])
    finally:
        task.cancel()
        server.close()


async def test_a_channel_that_sends_anything_but_a_beat_is_left():
    await check_refused(b"1\nhello\n", "not one of this lesson's beats")
    await check_refused(b"10\n", "not one of this lesson's beats")  # the lesson has 9
    await check_refused(b"0\n", "not one of this lesson's beats")
    await check_refused(b"\x1b]52;c;AAAA\x07\n", "not one of this lesson's beats")
    await check_refused(b"1" * 100_000, "a line that is not a beat number")  # read 16 bytes at most


async def test_a_burst_of_beats_is_one_move_to_the_latest():
    server, path = await serving(b"".join(b"%d\n" % (n % 9 + 1) for n in range(5000)) + b"4\n")
    found, got, lost = follower(path)
    task = asyncio.create_task(found.run())
    try:
        await until(lambda: got and got[-1] == 4)
        assert len(got) < 100 and not lost  # moves delivered: far fewer than the beats sent
    finally:
        task.cancel()
        server.close()
