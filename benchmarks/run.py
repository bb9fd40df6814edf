"""Measure attn-tui against its speed and memory targets, the way a person meets it; print a table.

    python benchmarks/run.py                 # every row (about 25 minutes)
    python benchmarks/run.py --quick         # fewer repetitions, T up to 4096
    python benchmarks/run.py --json out.json # the table as JSON too

Every latency is from the key press to the changed screen, through a real terminal: each app
runs in a tmux pane of its own (120×40), the key goes in with ``send-keys``, and the time is
when the last output that made ``capture-pane`` show a different screen reached the terminal
(the key's last frame: frames within FRAMES_GAP of each other are one key's). A
tmux control-mode client hears each output as it arrives (benchmarks/tmux.py), and the screen
is read only then: the team's ``keylatency.py`` polls ``capture-pane`` every few milliseconds,
which on two cores took as much processor as the app it measured. Each is measured
interleaved with the same key on a bare Textual app that repaints one line ("the floor"), and
reported as the floor plus what attn-tui adds. Start-up is timed until the numbers of the first
stage and their explanation are on screen — nothing a placeholder could show — against the bare
app's start to its first line. Memory is the app
process's resident size, read from /proc while it runs in its pane. ``--json`` and ``--print``
are timed as whole processes. Every process finds attn-tui's modules compiled, as an installed
package has them.

Scenarios are one head with random Q, K, V of d = 64 in an .npz, at T = 16 … 16,384, and
8 heads of d_k = 64 projected from X (T = 1024, d_model = 512) with an output projection.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.tmux import INSTALLED, SCRATCH, ServerGone, Tmux, rss_mb
from benchmarks.workloads import (
    make_backward,
    make_capture_shaped,
    make_lesson,
    make_multihead,
    make_scenario,
    make_small_index,
    make_walked,
)

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


def lesson_rows(tmux: Tmux, folder: Path, sizes: list[int], n: int) -> list[dict]:
    """The lesson's n (next beat) and N (back), each a step, a row and an edit of Q."""
    rows = []
    for T in sizes:
        scenario = make_lesson(folder, T)
        rows += key_row(
            f"next beat and back (n, N: a step and a Q edit), T = {T}",
            *keys(tmux, scenario, "into percentages", [], ["n", "N"], n),
            20,
        )
    return rows


BARE_QUITTING = BARE_APP.replace(
    "class Floor(App):", "class Floor(App):\n    BINDINGS = [('q', 'quit', 'Quit')]"
)


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


def app_command(path: Path | str, *flags: str) -> str:
    return " ".join([sys.executable, "-m", "attn_tui", *flags, str(path)])


# ---- measurements ---------------------------------------------------------------------------------


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


def json_run(scenario: Path) -> tuple[float, float]:
    """Seconds and peak RSS (MB) of ``attn-tui --json`` writing to /dev/null."""
    start = time.perf_counter()
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "import resource, sys\n"
            "from attn_tui.tui.cli import main\n"
            "code = main(['--json', sys.argv[1]])\n"
            "sys.stderr.write(str(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss))\n"
            "sys.exit(code)",
            str(scenario),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env=INSTALLED,
    )
    elapsed = time.perf_counter() - start
    if done.returncode:
        raise RuntimeError(done.stderr)
    return elapsed, int(done.stderr.strip().splitlines()[-1]) / 1024


def json_dumps_baseline(scenario: Path) -> float:
    """Seconds for a plain script to load the arrays, compute every stage with NumPy and
    json.dumps them: the same numbers --json writes, the cheapest way Python writes them."""
    code = f"""
import json, sys, time, numpy as np
data = np.load({str(scenario.with_suffix(".npz"))!r})
Q, K, V = data['Q'], data['K'], data['V']
T = len(Q)
scores = Q @ K.T
scaled = scores / 8.0
blocked = np.triu(np.ones((T, T), bool), 1)
masked = np.where(blocked, -np.inf, scaled)
row_max = masked.max(1)
exp = np.exp(masked - row_max[:, None])
row_sum = exp.sum(1)
weights = exp / row_sum[:, None]
output = weights @ V
doc = dict(Q=Q.tolist(), K=K.tolist(), V=V.tolist(), scores=scores.tolist(), scaled=scaled.tolist(),
           masked=np.where(blocked, None, masked).tolist(), row_max=row_max.tolist(),
           row_sum=row_sum.tolist(), weights=weights.tolist(), output=output.tolist())
sys.stdout.write(json.dumps(doc))
"""
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-c", code], stdout=subprocess.DEVNULL, check=True, env=INSTALLED
    )
    return time.perf_counter() - start


def walk_run(command: str, scenario: Path) -> tuple[float, float]:
    """Seconds and peak RSS (MB) of ``attn-tui print`` or ``markdown`` writing to /dev/null (the
    child's own peak, read by wait4: this process never grows by NumPy)."""
    start = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, "-m", "attn_tui", command, str(scenario)],
        cwd=ROOT,
        env=INSTALLED,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    _, status, usage = os.wait4(process.pid, 0)
    if os.waitstatus_to_exitcode(status):
        raise RuntimeError(process.stderr.read().decode(errors="replace"))
    process.stderr.close()
    return time.perf_counter() - start, usage.ru_maxrss / 1024


def print_time(scenario: Path) -> float:
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "attn_tui", "--print", str(scenario)],
        stdout=subprocess.DEVNULL,
        check=True,
        cwd=ROOT,
        env=INSTALLED,
    )
    return time.perf_counter() - start


# ---- the table ------------------------------------------------------------------------------------


def row(what: str, values: list[float], target: float | None, unit: str, note: str = "") -> dict:
    median = statistics.median(values)
    return {
        "what": what,
        "median": median,
        "min": min(values),
        "max": max(values),
        "unit": unit,
        "target": target,
        "ok": None if target is None else median <= target,
        "n": len(values),
        "note": note,
    }


def key_row(what: str, ours: list[float], bare: list[float], allowance_ms: float) -> list[dict]:
    """attn-tui's key, as floor + what it adds; the target is floor + ``allowance_ms``."""
    floor = statistics.median(bare) * 1000
    added = [o * 1000 - floor for o in ours]
    return [
        row(
            f"{what}: added to the floor",
            added,
            allowance_ms,
            "ms",
            f"floor {floor:.1f} ms, attn-tui {statistics.median(ours) * 1000:.1f} ms",
        )
    ]


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--json", metavar="FILE")
    parser.add_argument(
        "--only",
        metavar="TEXT",
        action="append",
        help="measure only the rows whose label holds TEXT (again for more)",
    )
    args = parser.parse_args()
    if shutil.which("tmux") is None:
        sys.exit("benchmarks/run.py needs tmux (apt-get install tmux)")
    sizes = [16, 256, 1024, 4096] if args.quick else [16, 256, 1024, 4096, 16384]
    n = 7 if args.quick else 15
    folder = Path(tempfile.mkdtemp(prefix="attn-bench-", dir=SCRATCH))
    scenarios = {T: make_scenario(folder, T) for T in sizes}
    subprocess.run(
        [
            sys.executable,
            "-m",
            "compileall",
            "-q",
            *(str(ROOT / name) for name in ("attn_tui", "core", "tui", "capture")),
        ],
        env=INSTALLED,
        check=True,
        stdout=subprocess.DEVNULL,
    )
    tmux = Tmux()
    rows: list[dict] = []

    def wanted(label: str) -> bool:
        return not args.only or any(text in label for text in args.only)

    def key(label: str, scenario: Path, ready: str, setup: list[str], cycle: list[str]) -> None:
        if wanted(label):
            try:
                measured = keys(tmux, scenario, ready, setup, cycle, n)
            except ServerGone as gone:  # (once: the row is measured again on a new server)
                print(f"{gone}; {label} again", file=sys.stderr)
                measured = keys(tmux, scenario, ready, setup, cycle, n)
            rows.extend(key_row(label, *measured, 20))

    try:
        # (#47) against its real floor: a bare Textual app that imports NumPy and PyYAML first,
        # which the debugger's first frame, numbers computed, cannot do without
        label = (
            "start to the whole debugger of cat_sat ÷ bare Textual app importing NumPy and PyYAML"
        )
        if wanted(label):
            ours, bare, libs = startup(
                tmux,
                ROOT / "scenarios" / "cat_sat.yaml",
                "raw scores: [1, 1, 2]",
                3 if args.quick else 7,
            )
            ratios = [o / l for o, l in zip(ours, libs)]
            floor = statistics.median([l / b for l, b in zip(libs, bare)])
            rows.append(
                row(
                    label,
                    ratios,
                    1.25,
                    "×",
                    f"attn-tui {statistics.median(ours):.2f} s, that bare app {statistics.median(libs):.2f} s; "
                    f"a bare app alone {statistics.median(bare):.2f} s (the libraries add {floor:.2f}×)",
                )
            )
        for T in sizes:
            ready = "how well does"
            key(f"edit a Q cell (+), T = {T}", scenarios[T], ready, ["Tab"], ["+"])
            key(f"edit a K cell (+), T = {T}", scenarios[T], ready, ["Tab"] * 2, ["+"])
            key(f"edit a V cell (+), T = {T}", scenarios[T], ready, ["Tab"] * 3, ["+"])
            key(
                f"step to the next stage and back, T = {T}",
                scenarios[T],
                ready,
                [],
                ["Right", "Left"],
            )
            key(f"move the query row, T = {T}", scenarios[T], ready, ["4"], ["Up", "Down"])
            key(
                f"page the rows, T = {T}",
                scenarios[T],
                ready,
                ["4", "Home"] if T < 64 else ["4"],
                ["PageUp", "PageDown"],
            )
            tiles = make_walked(
                folder, T, f"tiles: {{queries: 128, keys: {max(2, min(128, T // 4))}}}\n", "tiles"
            )
            key(
                f"walk a key tile of the online softmax ([ ]), T = {T}",
                tiles,
                ready,
                ["6"],
                ["]", "["],
            )  # (tmux sends a name it does not know as letters: "right_square_bracket" was typed)
            decoded = make_walked(folder, T, "decode: true\n", "decode")
            key(
                f"a decode step and back (up, down), T = {T}", decoded, ready, ["6"], ["Up", "Down"]
            )
        if any(wanted(f"next beat and back (n, N: a step and a Q edit), T = {T}") for T in sizes):
            rows.extend(lesson_rows(tmux, folder, sizes, n))
        for T in [size for size in sizes if size in (256, 1024)]:
            backward = make_backward(folder, T)
            # 8 dP, 9 dS: a window of each, from dO, V and the weights
            key(
                f"a backward step (dP → dS and back), T = {T}",
                backward,
                "how well does",
                ["8"],
                ["Right", "Left"],
            )
            key(
                f"one training step (Space in the Train view), T = {T}",
                backward,
                "how well does",
                ["t"],
                ["space"],
            )
        cat_sat = ROOT / "scenarios" / "cat_sat.yaml"
        key(
            "open a cell editor and Esc out of it (Enter, Esc), cat_sat",
            cat_sat,
            "how well does",
            ["Tab"],
            ["Enter", "Escape"],
        )
        if wanted("quit (q), no edits, cat_sat"):
            rows.extend(
                key_row(
                    "quit (q), no edits, cat_sat",
                    *quit_times(tmux, cat_sat, "how well does", n),
                    20,
                )
            )
        index = make_small_index(folder)
        label = "model view (12 layers × 4 heads): Enter opens a head in the debugger"
        if wanted(label):
            ours, bare = keys(tmux, index, "Arrows choose", [], ["Enter", "Escape"], 2 * n)
            rows.extend(key_row(label, ours[0::2], bare[0::2], 20))
            rows.extend(
                key_row(
                    "model view (12 layers × 4 heads): Esc comes back", ours[1::2], bare[1::2], 20
                )
            )
        heads = make_multihead(folder)
        ready = "how well does"
        label = "8 heads, T = 1024, d_model = 512"
        key(f"{label}: edit an X cell (+)", heads, ready, ["Tab"], ["+"])
        key(f"{label}: edit a Wq cell (+)", heads, ready, ["Tab", "Tab"], ["+"])
        key(f"{label}: next head (h)", heads, ready, [], ["h"])
        key(f"{label}: step to the next stage and back", heads, ready, [], ["Right", "Left"])
        capture = make_capture_shaped(folder)
        label = "capture-shaped: T = 2048, 4 heads / 2 key-value, RoPE"
        turned = "Each pair of dimensions turns"  # the Rotate stage's explanation: RoPE comes first
        if wanted(f"{label}: open to the whole debugger"):
            opened, _, _ = startup(tmux, capture, turned, 1 if args.quick else 3)
            rows.append(row(f"{label}: open to the whole debugger", opened, 2.0, "s"))
        key(f"{label}: edit a Q cell (+)", capture, turned, ["Tab"], ["+"])
        key(f"{label}: next head (h)", capture, turned, [], ["h"])
        biggest = max(sizes)
        if wanted(f"T = {biggest}, opened") or wanted("overview"):
            found = memory_and_overview(tmux, scenarios[biggest], 100)
            rows.append(
                row(f"open T = {biggest} to the whole debugger", [found["open_s"]], 2.0, "s")
            )
            rows.append(row(f"RSS, T = {biggest}, opened", [found["rss_open"]], 1024, "MB"))
            rows.append(
                row(f"RSS, T = {biggest}, after 100 edits", [found["rss_after"]], 1024, "MB")
            )
            rows.append(
                row(f"overview exact after an edit, T = {biggest}", [found["overview_s"]], 10, "s")
            )
        T_json = 4096 if 4096 in scenarios else max(sizes)
        if wanted("--json"):
            ours_json, rss = json_run(scenarios[T_json])
            baseline = json_dumps_baseline(scenarios[T_json])
            rows.append(
                row(
                    f"--json, T = {T_json} ÷ json.dumps of the same stages",
                    [ours_json / baseline],
                    1.2,
                    "×",
                    f"attn-tui {ours_json:.1f} s, json.dumps {baseline:.1f} s",
                )
            )
            rows.append(row(f"--json, T = {T_json}, peak RSS", [rss], 1536, "MB"))
            with_loss = make_backward(folder, T_json)
            with_loss.write_text(
                with_loss.read_text().split("train:")[0]
            )  # (no training: the backward pass alone)
            seconds, rss = json_run(with_loss)
            rows.append(
                row(
                    f"--json with loss:, T = {T_json} ÷ --json without",
                    [seconds / ours_json],
                    1.5,
                    "×",
                    f"{seconds:.1f} s against {ours_json:.1f} s; peak RSS {rss:.0f} MB",
                )
            )
            walked = make_walked(folder, T_json, "tiles: {queries: 128, keys: 128}\n", "tiles")
            seconds, rss = json_run(walked)
            rows.append(
                row(
                    f"--json with tiles 128×128, T = {T_json}, peak RSS",
                    [rss],
                    1536,
                    "MB",
                    f"{seconds:.1f} s, every tile of every row written",
                )
            )
        if wanted("markdown") or wanted("--print"):  # both stream a block of rows at a time
            with_loss = make_backward(folder, T_json)
            with_loss.write_text(with_loss.read_text().split("train:")[0])
            printed, printed_rss = walk_run("print", with_loss)
            written, written_rss = walk_run("markdown", with_loss)
            rows.append(
                row(
                    f"print with loss:, T = {T_json}, peak RSS",
                    [printed_rss],
                    400,
                    "MB",
                    f"{printed:.1f} s",
                )
            )
            rows.append(
                row(
                    f"markdown with loss:, T = {T_json}, peak RSS",
                    [written_rss],
                    400,
                    "MB",
                    f"{written:.1f} s; {written_rss / printed_rss:.2f}× print's peak",
                )
            )
        if wanted("--print"):
            rows.append(
                row(
                    "--print, T = 1024",
                    [print_time(scenarios[1024]) for _ in range(1 if args.quick else 3)],
                    2.0,
                    "s",
                )
            )
    finally:
        tmux.stop()
        report(rows, args.json)  # (what was measured before a failure is still worth seeing)


def report(rows: list[dict], json_file: str | None) -> None:
    print(
        f"attn-tui benchmarks, {time.strftime('%Y-%m-%d')}, {platform.node() or 'machine'}: "
        f"{os.cpu_count()} cores, Python {platform.python_version()}, {platform.system()} {platform.machine()}"
    )
    print(f"{'what':<62}{'median':>9}{'min':>9}{'max':>9}{'target':>11}")
    for item in rows:
        target = "" if item["target"] is None else f"≤ {item['target']:g} {item['unit']}"
        verdict = "" if item["ok"] is None else ("ok" if item["ok"] else "MISSED")
        print(
            f"{item['what']:<62}{item['median']:9.2f}{item['min']:9.2f}{item['max']:9.2f}{target:>11}  {verdict}"
        )
        if item["note"]:
            print(f"    ({item['note']})")
    if json_file:
        Path(json_file).write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
