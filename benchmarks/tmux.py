"""Where benchmarks/run.py runs attn-tui: a private tmux server whose panes each get a fresh
state and config folder, in one scratch folder removed at exit, with the modules compiled once."""

from __future__ import annotations

import atexit
import os
import queue
import shutil
import subprocess
import tempfile
import threading
import time
import uuid
from pathlib import Path

# Every run of attn-tui here finds its modules compiled, as an installed package has them (pip
# compiles them at install): this machine sets PYTHONDONTWRITEBYTECODE, under which every start
# would compile the checkout again (~0.1 s). main() compiles them once, into a folder of its own.
# Everything a run writes (scenarios, state folders, compiled modules) goes in one folder, removed
# at exit: a full run left ~50 MB and ~800 folders in /tmp.
SCRATCH = tempfile.mkdtemp(prefix="attn-bench-")
atexit.register(shutil.rmtree, SCRATCH, True)
PYCACHE = tempfile.mkdtemp(prefix="bench-pycache-", dir=SCRATCH)
# Frames of one key come within this of each other (Textual draws at most every 1/60 s; a pane
# told after the first frame comes a frame or two later). The app's work off the key's path waits
# longer: the weights overview until INPUT_QUIET (0.5 s) after the last key.
FRAMES_GAP = 0.25  # seconds
INSTALLED = {
    **{key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"},
    "PYTHONPYCACHEPREFIX": PYCACHE,
}


# ---- a tmux of our own ---------------------------------------------------------------------------


class Watch:
    """A tmux control-mode client on one session: it hears each piece of output as it reaches
    the terminal, so a key's time needs no polling of the screen. (Polling capture-pane every
    few milliseconds kept one of this machine's two cores busy with tmux clients, and an app
    doing 30 ms of work took 60: the measuring slowed what it measured.) A thread reads the
    client all the time: tmux stops reading a pane whose control client falls behind."""

    def __init__(self, sock: list[str], name: str, env: dict) -> None:
        self.name = name
        self.process = subprocess.Popen(
            sock + ["-C", "attach-session", "-t", name],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
            bufsize=0,
        )
        self.arrivals: queue.Queue[float] = queue.Queue()
        self.heard = 0
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        line_start = True  # (a %output line may come in several reads)
        for data in iter(lambda: os.read(self.process.stdout.fileno(), 1 << 16), b""):
            now = time.perf_counter()
            starts = [data] if line_start else []
            starts += data.split(b"\n")[1:]
            if any(part.startswith(b"%output") for part in starts):
                self.heard += 1
                self.arrivals.put(now)
            line_start = data.endswith(b"\n")

    def output(self, timeout: float) -> float | None:
        """When the pane's next output arrived (the last of what has arrived by now), or None
        after ``timeout`` seconds without any."""
        try:
            arrived = (
                self.arrivals.get(timeout=timeout) if timeout > 0 else self.arrivals.get_nowait()
            )
        except queue.Empty:
            return None
        while not self.arrivals.empty():
            arrived = self.arrivals.get_nowait()
        return arrived

    def send_keys(self, key: str) -> float:
        """Send ``key`` to the pane through this client (no tmux process to start); the time it
        was sent."""
        self.output(timeout=0)  # (what came before is not the key's)
        sent = time.perf_counter()
        self.process.stdin.write(f"send-keys -t {self.name} {key}\n".encode())
        return sent

    def close(self) -> None:
        """Detach, and wait for the client to go (tmux 3.3a's server crashed, now and then, when
        a session was made just after a client was killed)."""
        try:
            self.process.stdin.write(b"detach-client\n")
            self.process.stdin.close()
        except OSError:
            pass
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


class ServerGone(RuntimeError):
    """tmux's server exited under us; another has been started."""


class Tmux:
    """A private tmux server; every pane gets a fresh state and config folder."""

    def __init__(self) -> None:
        self.sock = ["tmux", "-L", "attn-bench-" + uuid.uuid4().hex[:8]]
        self.env = dict(
            os.environ,
            XDG_STATE_HOME=tempfile.mkdtemp(prefix="bench-state-", dir=SCRATCH),
            XDG_CONFIG_HOME=tempfile.mkdtemp(prefix="bench-config-", dir=SCRATCH),
        )
        # a session that idles for the whole run: when the last pane closed, the server began to
        # exit, and the next new-session could reach it dying and make no session at all (a
        # row then waited 60 s on an empty screen and the run ended)
        self("new-session", "-d", "-s", "keep", "sleep 86400")
        self.watches: dict[str, Watch] = {}
        self.changed_at = 0.0

    def __call__(self, *args: str) -> str:
        return subprocess.run(
            self.sock + list(args), capture_output=True, text=True, env=self.env, check=False
        ).stdout

    def start(self, name: str, command: str) -> float:
        # a fresh state folder per pane: an app killed with an edit leaves a recovery copy, which
        # the next app on the same scenario would offer to restore (tmux's server keeps the
        # environment it started with, so the folders go on the command line)
        # (and the compiled modules, see INSTALLED)
        fresh = (
            f"env -u PYTHONDONTWRITEBYTECODE PYTHONPYCACHEPREFIX={PYCACHE} "
            f"XDG_STATE_HOME={tempfile.mkdtemp(prefix='bench-state-', dir=SCRATCH)} "
            f"XDG_CONFIG_HOME={tempfile.mkdtemp(prefix='bench-config-', dir=SCRATCH)} "
        )
        started = time.perf_counter()
        # remain-on-exit: an app that dies leaves its last screen (a traceback) for wait() to show
        made = subprocess.run(
            self.sock
            + [
                "new-session",
                "-d",
                "-s",
                name,
                "-x",
                "120",
                "-y",
                "40",
                fresh + command,
                ";",
                "set-option",
                "-t",
                name,
                "remain-on-exit",
                "on",
            ],
            capture_output=True,
            text=True,
            env=self.env,
            check=False,
        )
        if made.returncode:
            # the server is gone, and every session with it (tmux 3.3a's crashed twice in one run
            # here, just after a session was killed): start another for the next try
            for watch in self.watches.values():
                watch.close()
            self.watches.clear()
            self("new-session", "-d", "-s", "keep", "sleep 86400")
            raise ServerGone(f"tmux: {made.stderr.strip()} (starting {name})")
        self.watches[name] = Watch(self.sock, name, self.env)
        return started

    def screen(self, name: str) -> str:
        return self("capture-pane", "-p", "-t", name)

    def styled(self, name: str) -> str:
        """The screen with its colours and attributes: a cursor or a highlight that moved is a
        change too."""
        return self("capture-pane", "-p", "-e", "-t", name)

    def pid(self, name: str) -> int:
        return int(self("display", "-p", "-t", name, "#{pane_pid}").strip())

    def wait(self, name: str, done, timeout: float = 60) -> str:
        """The screen once ``done(screen)`` and the frames that complete it have come (see
        :meth:`finished`); ``changed_at`` is then when the last output that changed the screen
        reached the terminal. The screen is read only after the app wrote something."""
        watch = self.watches[name]
        start = time.perf_counter()
        self.changed_at = start
        while True:
            text = self.screen(name)
            if done(text):
                self.changed_at = self.finished(name, self.changed_at, self.styled(name))
                return self.screen(name)
            if time.perf_counter() - start > timeout:
                panes = self(
                    "list-panes",
                    "-a",
                    "-F",
                    "#{session_name}: dead #{pane_dead}, #{pane_current_command}",
                )
                raise RuntimeError(
                    f"{name}: timed out after {timeout} s ({watch.heard} outputs heard; "
                    f"panes: {panes!r}); the screen was:\n{text}"
                )
            arrived = watch.output(
                timeout=0.25
            )  # (a quarter of a second: output before the watch began)
            if arrived is not None:
                self.changed_at = arrived

    def finished(self, name: str, changed_at: float, screen: str) -> float:
        """When the last output that changed the screen arrived, ``changed_at`` and ``screen``
        being the last change seen so far: the frames that follow within FRAMES_GAP of each other
        are the same key's (a pane updated a frame later, a layout that settles), and the screen
        is done only when they have come. Work the app does later on purpose, off the key's path
        (the weights overview, at least half a second after the last key), is not the key's."""
        watch = self.watches[name]
        while True:
            arrived = watch.output(timeout=FRAMES_GAP)
            if arrived is None:
                return changed_at
            now = self.styled(name)
            if now != screen:
                screen, changed_at = now, arrived

    def settle(self, name: str, quiet: float = 0.3, timeout: float = 60) -> str:
        """The screen once the app has written nothing for ``quiet`` seconds."""
        watch = self.watches[name]
        start = time.perf_counter()
        while watch.output(timeout=quiet) is not None and time.perf_counter() - start < timeout:
            pass
        return self.screen(name)

    def key(self, name: str, key: str) -> float:
        """Seconds from sending ``key`` until the last output of the frames that show what it did
        reaches the terminal: not the first change (a frame with the step moved but the Why pane
        still to come would do for that), but the screen complete, colours and all."""
        self.settle(name)
        before = self.styled(name)
        watch = self.watches[name]
        start = watch.send_keys(key)
        while True:
            arrived = watch.output(timeout=60)
            if arrived is None:
                raise RuntimeError(
                    f"{name}: {key} changed nothing in 60 s; the screen was:\n{self.screen(name)}"
                )
            now = self.styled(name)
            if now != before:
                return self.finished(name, arrived, now) - start

    def kill(self, name: str) -> None:
        watch = self.watches.pop(name, None)
        if watch is not None:
            watch.close()
        self("kill-session", "-t", name)

    def stop(self) -> None:
        for watch in self.watches.values():
            watch.close()
        self.watches.clear()
        self("kill-server")


def rss_mb(pid: int) -> float:
    """The resident size of the process (or of its largest child: tmux runs a shell first)."""
    pids = [pid] + [
        int(child) for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    ]
    sizes = []
    for one in pids:
        for line in Path(f"/proc/{one}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                sizes.append(int(line.split()[1]) / 1024)
    return max(sizes)
