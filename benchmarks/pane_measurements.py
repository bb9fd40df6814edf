"""benchmarks/run.py's measurements of the app in a tmux pane: start-up, a key and quitting, each
interleaved with a bare Textual app that repaints one line (the floor), and memory with the
overview's refresh after edits."""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

from benchmarks.tmux import SCRATCH, Tmux, rss_mb

BARE_APP = r"""
from textual.app import App
from textual.widgets import Static
class Floor(App):
    def compose(self):
        self.n = 0
        yield Static("bare ready 0", id="s")
    def on_key(self, event):
        self.n += 1
        self.query_one("#s", Static).update(f"bare ready {self.n}")
Floor().run()
"""

BARE_QUITTING = BARE_APP.replace(
    "class Floor(App):", "class Floor(App):\n    BINDINGS = [('q', 'quit', 'Quit')]"
)


def app_command(path: Path | str, *flags: str) -> str:
    return " ".join([sys.executable, "-m", "attn_tui", *flags, str(path)])


def startup(
    tmux: Tmux, scenario: Path, marker: str, runs: int
) -> tuple[list[float], list[float], list[float]]:
    """Seconds to the whole debugger (``marker``: text of the first stage's explanation), to the
    bare app's first line, and to the first line of the bare app importing NumPy and PyYAML
    first (what the debugger's first frame cannot do without), interleaved."""
    folder = Path(tempfile.mkdtemp(dir=SCRATCH))
    (folder / "bare.py").write_text(BARE_APP)
    (folder / "libs.py").write_text("import numpy, yaml\n" + BARE_APP)
    ours, bare, libs = [], [], []
    for run in range(runs + 1):  # the first of each warms the disk cache
        for which, command, text, times in (
            ("bare", f"{sys.executable} {folder / 'bare.py'}", "bare ready 0", bare),
            ("libs", f"{sys.executable} {folder / 'libs.py'}", "bare ready 0", libs),
            ("ours", app_command(scenario), marker, ours),
        ):
            name = f"start-{which}-{run}"
            started = tmux.start(name, command)
            tmux.wait(name, lambda screen: text in screen)
            if run:
                times.append(tmux.changed_at - started)  # (when the output that showed it arrived)
            tmux.kill(name)
            time.sleep(0.2)
    return ours, bare, libs


def keys(
    tmux: Tmux, scenario: Path, ready: str, setup: list[str], cycle: list[str], n: int
) -> tuple[list[float], list[float]]:
    """Seconds per key for attn-tui and for the bare app, interleaved; ``cycle`` is repeated
    (each key must change the screen: e.g. Up then Down). The bare app is sent x each time, as
    keylatency.py's floor: its Esc would wait for Textual's input thread to wake (0.1 s), which
    attn-tui's driver does not (tui/driver.py)."""
    bare_file = Path(tempfile.mkdtemp(dir=SCRATCH)) / "bare.py"
    bare_file.write_text(BARE_APP)
    tmux.start("ours", app_command(scenario))
    tmux.start("bare", f"{sys.executable} {bare_file}")
    tmux.wait("ours", lambda text: ready in text)
    tmux.wait("bare", lambda text: "bare ready" in text)
    for key in setup:
        tmux("send-keys", "-t", "ours", key)
        tmux.settle("ours")
    ours, bare = [], []
    for i in range(n):
        key = cycle[i % len(cycle)]
        ours.append(tmux.key("ours", key))
        bare.append(tmux.key("bare", "x"))
    tmux.kill("ours")
    tmux.kill("bare")
    return ours, bare


def memory_and_overview(tmux: Tmux, scenario: Path, edits: int) -> dict[str, float]:
    """RSS after opening and after ``edits`` edits, and seconds from an edit until the overview
    shows the new numbers (its "updating…" mark gone)."""
    started = tmux.start("mem", app_command(scenario))
    tmux.wait("mem", lambda text: "how well does" in text, timeout=120)
    opened_s = tmux.changed_at - started
    tmux.wait("mem", lambda text: "updating" not in text, timeout=120)
    pid = tmux.pid("mem")
    opened = rss_mb(pid)
    tmux("send-keys", "-t", "mem", "Tab")
    for i in range(edits):
        tmux("send-keys", "-t", "mem", "+" if i % 2 else "-")
        time.sleep(0.01)
    tmux.settle("mem")
    start = time.perf_counter()
    tmux("send-keys", "-t", "mem", "+")
    tmux.wait("mem", lambda text: "updating" in text, timeout=30)
    tmux.wait("mem", lambda text: "updating" not in text, timeout=120)
    overview = tmux.changed_at - start
    after = rss_mb(pid)
    tmux.kill("mem")
    return {"open_s": opened_s, "rss_open": opened, "rss_after": after, "overview_s": overview}


def quit_times(
    tmux: Tmux, scenario: Path, ready: str, runs: int
) -> tuple[list[float], list[float]]:
    """Seconds from q until the terminal shows what was there before the app (the app gone),
    beside the same for a bare Textual app that quits on q (its driver's own shutdown, ~0.2 s
    here, is the floor), interleaved: each run a fresh app."""
    bare_file = Path(tempfile.mkdtemp(dir=SCRATCH)) / "bare.py"
    bare_file.write_text(BARE_QUITTING)
    ours, bare = [], []
    for run in range(runs):
        tmux.start("quit", app_command(scenario))
        tmux.wait("quit", lambda text: ready in text)
        ours.append(tmux.key("quit", "q"))
        tmux.kill("quit")
        tmux.start("bare", f"{sys.executable} {bare_file}")
        tmux.wait("bare", lambda text: "bare ready" in text)
        bare.append(tmux.key("bare", "q"))
        tmux.kill("bare")
    return ours, bare
