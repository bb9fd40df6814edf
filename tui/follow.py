"""The follow channel of ``--serve --follow``: the teacher's app tells the class's apps which
beat it is at, and nothing else.

Every served app runs on the teacher's machine (textual-serve starts one per browser), so the
channel never touches the network: it is a Unix-domain socket in a folder only the teacher's
user may enter (0700, made by the teacher's process). Only the teacher's app listens on it, and
nothing a connection sends is passed on to the others: an app of the class cannot publish a
beat. What is sent is a beat number per line, as ASCII digits (or ``reveal BEAT``: show that
beat's answer); a student's app reads at most ``MAX_LINE`` bytes a line, accepts only a number
from 1 to the lesson's length, keeps only the latest one (a flood is one move), and stops
following at anything else.

The other way, a student's app sends its guesses at a predict beat (``core.classroom.wire``).
The teacher's app reads them as hostile input: at most ``wire.MAX_LINE`` bytes a line, at most
``RATE`` messages a second a connection after a burst of ``BURST`` (a longer line, or one more,
closes that connection: a flood costs the teacher's app a few lines, never a loop of reading and
dropping), at most ``max_followers`` connections, and at most ``JOIN_RATE`` new connections a
second after a burst of ``JOIN_BURST`` (a client that reconnects as fast as it can waits in the
kernel's queue, and costs nothing here); each connection is read by a task of its own, so that
one that floods or stalls holds up no other.
"""

from __future__ import annotations

import asyncio
import os
import re
import secrets
import socket
import tempfile
from typing import Callable

from attn_tui.core.classroom import wire

MAX_LINE = 16
RATE, BURST = 2.0, 6  # messages a second a follower may send, and how many at once
# new connections a second, and how many at once: a whole class (--max-apps, 40 by default)
# joining together, as when the teacher's app starts after its students' apps
JOIN_RATE, JOIN_BURST = 10.0, 64
CHANGED_DELAY = 0.25  # seconds: the class's size is told at most this often


_BEAT = re.compile(rb"[0-9]{1,6}\n")
_REVEAL = re.compile(rb"reveal ([0-9]{1,6})\n")
RETRY_SECONDS = 1.0


def channel_socket() -> tuple[socket.socket, str]:
    """A listening socket for the channel, in a new private folder; returns it and its path."""
    folder = tempfile.mkdtemp(prefix="attn-tui-follow-")  # mkdtemp makes it 0700
    path = os.path.join(folder, "beats")
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(64)
    listener.setblocking(False)
    return listener, path


class Leader:
    """The teacher's side: every app that connects gets the current beat, then each new one."""

    def __init__(self, listener: socket.socket, path: str) -> None:
        self.listener = listener
        self.path = path
        self.beat: int | None = None
        self.writers: set[asyncio.StreamWriter] = set()
        # called when the class grows or shrinks, at most once each CHANGED_DELAY (a storm of
        # joins and leaves is one repaint of the teacher's screen, not one each)
        self.changed: Callable[[], None] = lambda: None
        # called with each follower's messages: (the connection, a wire message), on the loop
        self.heard: Callable[[object, wire.Message], None] = lambda connection, message: None
        # called with why, each time a line or a connection is not read (the screen says the last)
        self.refused: Callable[[str], None] = lambda why: None
        self.max_followers: int | None = None  # more connections than this are closed at once
        self.dropped = 0  # lines or connections unread: too long, too fast, past max_followers
        self._accepting: asyncio.Task | None = None
        self._change_due: asyncio.TimerHandle | None = None
        self._connections: set[asyncio.Task] = set()  # (held: the loop keeps tasks weakly)

    async def start(self) -> None:
        self._accepting = asyncio.get_running_loop().create_task(self._accept())

    async def _accept(self) -> None:
        """Take new connections, at most JOIN_RATE a second after a burst of JOIN_BURST."""
        loop = asyncio.get_running_loop()
        allowance, then = float(JOIN_BURST), loop.time()
        while True:
            now = loop.time()
            allowance, then = min(float(JOIN_BURST), allowance + (now - then) * JOIN_RATE), now
            if allowance < 1:
                await asyncio.sleep((1 - allowance) / JOIN_RATE)
                continue
            try:
                connection, _ = await loop.sock_accept(self.listener)
            except OSError:  # (out of file descriptors, or closed): wait, as a full class does
                await asyncio.sleep(1 / JOIN_RATE)
                continue
            allowance -= 1
            reader = asyncio.StreamReader(limit=wire.MAX_LINE, loop=loop)
            try:
                transport, protocol = await loop.connect_accepted_socket(
                    lambda: asyncio.StreamReaderProtocol(reader, loop=loop), connection
                )
            except OSError:
                connection.close()
                continue
            writer = asyncio.StreamWriter(transport, protocol, reader, loop)
            task = loop.create_task(self._joined(reader, writer))
            self._connections.add(task)
            task.add_done_callback(self._connections.discard)

    def _changed(self) -> None:
        if self._change_due is None:
            self._change_due = asyncio.get_running_loop().call_later(
                CHANGED_DELAY, self._tell_changed
            )

    def _tell_changed(self) -> None:
        self._change_due = None
        self.changed()

    def _refuse(self, why: str) -> None:
        self.dropped += 1
        self.refused(why)

    async def _joined(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if self.max_followers is not None and len(self.writers) >= self.max_followers:
            writer.close()  # the class is full: this one is not read at all
            self._refuse(f"a connection past the class's {self.max_followers} (closed unread)")
            return
        self.writers.add(writer)
        self._changed()
        if self.beat is not None:
            self._send(writer, self.beat)
        try:
            await self._read(reader, writer)
        except (ConnectionError, OSError):
            pass
        finally:
            self.writers.discard(writer)
            writer.close()
            self.heard(writer, None)  # (gone)
            self._changed()

    async def _read(self, reader: asyncio.StreamReader, connection: object) -> None:
        """A follower's lines until it leaves, or is dropped: for a line longer than a message
        can be, or one more than RATE a second allows after a burst of BURST."""
        loop = asyncio.get_running_loop()
        tokens, then = float(BURST), loop.time()
        while True:
            try:
                line = await reader.readline()
            except ValueError:  # longer than wire.MAX_LINE: no message of ours; the follower goes
                self._refuse(
                    f"a line of more than {wire.MAX_LINE} bytes (the follower was dropped)"
                )
                return
            if not line:
                return
            now = loop.time()
            tokens, then = min(float(BURST), tokens + (now - then) * RATE), now
            if tokens < 1:
                self._refuse(
                    f"more than {RATE:g} messages a second (a flood: the follower was dropped)"
                )
                return
            tokens -= 1
            self.heard(connection, wire.parse(line))  # (a line that is no message: refused there)

    def reveal(self, beat: int) -> None:
        """Tell every follower to show the answer at ``beat`` (from 1)."""
        for writer in list(self.writers):
            if not writer.is_closing() and writer.transport.get_write_buffer_size() <= 4096:
                writer.write(wire.reveal_line(beat))

    def publish(self, beat: int) -> None:
        """Tell every follower the teacher is at ``beat`` (from 1)."""
        self.beat = beat
        for writer in list(self.writers):
            self._send(writer, beat)

    def _send(self, writer: asyncio.StreamWriter, beat: int) -> None:
        if writer.is_closing() or writer.transport.get_write_buffer_size() > 4096:
            return  # a follower that does not read is not waited for
        writer.write(b"%d\n" % beat)

    @property
    def followers(self) -> int:
        return len(self.writers)

    def close(self) -> None:
        if self._accepting is not None:
            self._accepting.cancel()
        if self._change_due is not None:
            self._change_due.cancel()
        self.listener.close()
        for writer in self.writers:  # (each connection's task then ends as when its app leaves)
            writer.close()
        try:
            os.unlink(self.path)
            os.rmdir(os.path.dirname(self.path))
        except OSError:
            pass


class Follower:
    """A student's side: the teacher's latest beat, read from the channel at ``path``.

    ``arrived(beat)`` is called (on the app's loop) with each new beat, the latest only;
    ``lost(reason)`` once if the channel sends what is not a beat. While the teacher's app is
    not there (not yet, or gone), it tries again every second."""

    def __init__(
        self,
        path: str,
        beats: int,
        arrived: Callable[[int], None],
        lost: Callable[[str], None],
        joined: Callable[[], None] = lambda: None,
        student: str = "",
        revealed: Callable[[int], None] = lambda beat: None,
    ) -> None:
        """``joined()`` is called whenever the channel is reached or lost; ``revealed(beat)``
        when the teacher shows the answer at a beat to everyone."""
        self.joined = joined
        self.revealed = revealed
        self.student = student or secrets.token_hex(8)
        self.name: str | None = None
        self._writer: asyncio.StreamWriter | None = None
        self.path = path
        self.beats = beats
        self.arrived = arrived
        self.lost = lost
        self.latest: int | None = None
        self.connected = False
        self._due = False

    async def run(self) -> None:
        while True:
            try:
                reader, writer = await asyncio.open_unix_connection(self.path, limit=MAX_LINE)
            except OSError:
                await asyncio.sleep(RETRY_SECONDS)
                continue
            self.connected = True
            self._writer = writer
            self.send(wire.hello_line(self.student))
            if self.name is not None:
                self.send(wire.name_line(self.name))
            self.joined()
            try:
                problem = await self._read(reader)
            finally:
                self.connected = False
                self._writer = None
                writer.close()
                self.joined()
            if problem is not None:
                self.lost(problem)
                return
            await asyncio.sleep(RETRY_SECONDS)

    async def _read(self, reader: asyncio.StreamReader) -> str | None:
        """Read beats until the teacher leaves (None) or the channel sends something else."""
        while True:
            try:
                line = await reader.readline()
            except ValueError:  # longer than the limit
                return "the teacher's channel sent a line that is not a beat number"
            except (ConnectionError, OSError):
                return None
            if not line:
                return None
            reveal = _REVEAL.fullmatch(line)
            if reveal is not None and 1 <= int(reveal[1]) <= self.beats:
                self.revealed(int(reveal[1]))
                continue
            if not _BEAT.fullmatch(line) or not 1 <= int(line) <= self.beats:
                return "the teacher's channel sent something that is not one of this lesson's beats"
            self.latest = int(line)
            if not self._due:  # a burst of beats is one move, to the latest
                self._due = True
                asyncio.get_running_loop().call_soon(self._deliver)

    def send(self, line: bytes) -> bool:
        """Send a message (``core.classroom.wire``) to the teacher; False if not connected now,
        or the teacher's app is not reading (nothing is queued up behind it)."""
        writer = self._writer
        if writer is None or writer.is_closing() or writer.transport.get_write_buffer_size() > 4096:
            return False
        writer.write(line)
        return True

    def _deliver(self) -> None:
        self._due = False
        if self.latest is not None:
            self.arrived(self.latest)
