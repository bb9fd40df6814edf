"""Where benchmarks/run.py runs attn-tui: a private tmux server whose panes each get a fresh
state and config folder, in one scratch folder removed at exit, with the modules compiled once."""

from __future__ import annotations

import atexit
import os
import shutil
import subprocess
import tempfile
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
INSTALLED = {**{key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"},
             "PYTHONPYCACHEPREFIX": PYCACHE}


# ---- a tmux of our own ----------------------------------------------------------------------------

class Tmux:
    """A private tmux server; every pane gets a fresh state and config folder."""

    def __init__(self) -> None:
        self.sock = ["tmux", "-L", "attn-bench-" + uuid.uuid4().hex[:8]]
        self.env = dict(os.environ, XDG_STATE_HOME=tempfile.mkdtemp(prefix="bench-state-", dir=SCRATCH),
                        XDG_CONFIG_HOME=tempfile.mkdtemp(prefix="bench-config-", dir=SCRATCH))
        # a session that idles for the whole run: when the last pane closed, the server began to
        # exit, and the next new-session could reach it dying and make no session at all (a
        # row then waited 60 s on an empty screen and the run ended)
        self("new-session", "-d", "-s", "keep", "sleep 86400")

    def __call__(self, *args: str) -> str:
        return subprocess.run(self.sock + list(args), capture_output=True, text=True, env=self.env,
                              check=False).stdout

    def start(self, name: str, command: str) -> float:
        # a fresh state folder per pane: an app killed with an edit leaves a recovery copy, which
        # the next app on the same scenario would offer to restore (tmux's server keeps the
        # environment it started with, so the folders go on the command line)
        # (and the compiled modules, see INSTALLED)
        fresh = (f"env -u PYTHONDONTWRITEBYTECODE PYTHONPYCACHEPREFIX={PYCACHE} "
                 f"XDG_STATE_HOME={tempfile.mkdtemp(prefix='bench-state-', dir=SCRATCH)} "
                 f"XDG_CONFIG_HOME={tempfile.mkdtemp(prefix='bench-config-', dir=SCRATCH)} ")
        started = time.perf_counter()
        # remain-on-exit: an app that dies leaves its last screen (a traceback) for wait() to show
        self("new-session", "-d", "-s", name, "-x", "120", "-y", "40", fresh + command,
             ";", "set-option", "-t", name, "remain-on-exit", "on")
        return started

    def screen(self, name: str) -> str:
        return self("capture-pane", "-p", "-t", name)

    def pid(self, name: str) -> int:
        return int(self("display", "-p", "-t", name, "#{pane_pid}").strip())

    def wait(self, name: str, done, timeout: float = 60) -> str:
        start = time.perf_counter()
        while True:
            text = self.screen(name)
            if done(text):
                return text
            if time.perf_counter() - start > timeout:
                raise RuntimeError(f"{name}: timed out after {timeout} s; the screen was:\n{text}")
            time.sleep(0.002)

    def settle(self, name: str, quiet: float = 0.3, timeout: float = 60) -> str:
        last, since, start = self.screen(name), time.perf_counter(), time.perf_counter()
        while time.perf_counter() - since < quiet and time.perf_counter() - start < timeout:
            time.sleep(0.02)
            now = self.screen(name)
            if now != last:
                last, since = now, time.perf_counter()
        return last

    def key(self, name: str, key: str) -> float:
        """Seconds from sending ``key`` until the pane shows a different screen."""
        before = self.settle(name)
        start = time.perf_counter()
        self("send-keys", "-t", name, key)
        self.wait(name, lambda text: text != before)
        return time.perf_counter() - start

    def kill(self, name: str) -> None:
        self("kill-session", "-t", name)

    def stop(self) -> None:
        self("kill-server")


def rss_mb(pid: int) -> float:
    """The resident size of the process (or of its largest child: tmux runs a shell first)."""
    pids = [pid] + [int(child) for child in
                    Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    sizes = []
    for one in pids:
        for line in Path(f"/proc/{one}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                sizes.append(int(line.split()[1]) / 1024)
    return max(sizes)
