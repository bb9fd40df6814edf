"""The follow channel of ``--serve --follow``: the teacher's app tells the class's apps which
beat it is at, and nothing else.

Every served app runs on the teacher's machine (textual-serve starts one per browser), so the
channel never touches the network: it is a Unix-domain socket in a folder only the teacher's
user may enter (0700, made by the teacher's process). Only the teacher's app listens on it, and
it never reads what a connection sends: an app of the class cannot publish a beat to the
others. What is sent is a beat number per line, as ASCII digits; a student's app reads at most
``MAX_LINE`` bytes a line, accepts only a number from 1 to the lesson's length, keeps only the
latest one (a flood is one move), and stops following at anything else.
"""

from __future__ import annotations

import asyncio
import os
import re
import socket
import tempfile
from dataclasses import dataclass
from typing import Callable

MAX_LINE = 16


@dataclass(frozen=True)
class Classroom:
    """How an app takes part in lessons: whether it plays a scenario's lesson (a served app
    only with --lesson), the channel it follows a teacher on, or the class it leads."""

    play: bool = True
    follow: str | None = None       # the channel's path (a served app of --serve --follow)
    leader: Leader | None = None    # the teacher's app of --serve --follow
    address: str = ""               # where the students open the class
_BEAT = re.compile(rb"[0-9]{1,6}\n")
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
        self.changed: Callable[[], None] = lambda: None  # called when the class grows or shrinks
        self._server: asyncio.base_events.Server | None = None

    async def start(self) -> None:
        self._server = await asyncio.start_unix_server(self._joined, sock=self.listener)

    async def _joined(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.writers.add(writer)
        self.changed()
        if self.beat is not None:
            self._send(writer, self.beat)
        try:  # nothing a follower sends is read as anything: this only waits for it to leave
            while await reader.read(1024):
                pass
        except (ConnectionError, OSError):
            pass
        finally:
            self.writers.discard(writer)
            writer.close()
            self.changed()

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
        if self._server is not None:
            self._server.close()
        for writer in self.writers:
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

    def __init__(self, path: str, beats: int, arrived: Callable[[int], None],
                 lost: Callable[[str], None], joined: Callable[[], None] = lambda: None) -> None:
        """``joined()`` is called whenever the channel is reached or lost."""
        self.joined = joined
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
            self.joined()
            try:
                problem = await self._read(reader)
            finally:
                self.connected = False
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
            if not _BEAT.fullmatch(line) or not 1 <= int(line) <= self.beats:
                return "the teacher's channel sent something that is not one of this lesson's beats"
            self.latest = int(line)
            if not self._due:  # a burst of beats is one move, to the latest
                self._due = True
                asyncio.get_running_loop().call_soon(self._deliver)

    def _deliver(self) -> None:
        self._due = False
        if self.latest is not None:
            self.arrived(self.latest)
