"""Measure attn-tui against its speed and memory targets; print a table (and --json).

    python benchmarks/run.py            # every row, a few minutes
    python benchmarks/run.py --quick    # fewer repetitions
    python benchmarks/run.py --json results.json

Start-up is timed as whole processes in a pseudo-terminal, until the first frame's text
arrives, against a bare Textual app started the same way in the same run (so the figure is a
ratio, fair on a shared, noisy machine). attn-tui's first frame is its header and step strip,
drawn before NumPy is imported; the time until the whole debugger is on screen is given too.
The project's modules are byte-compiled first, as an installed package's are. In-app rows run the real app headless (``run_test``)
and time the work a keystroke causes: the handler, then a full synchronous layout, render and
serialisation of the screen to terminal text, i.e. everything up to the terminal write; Pilot's
own sleeps are not in it. The time until Textual's next frame (it paints at most 60 times a
second) is given alongside.
"""

from __future__ import annotations

import argparse
import asyncio
import compileall
import fcntl
import json
import os
import platform
import pty
import resource
import select
import signal
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

D_K = 64


# ---- scenarios ---------------------------------------------------------------------------------

def make_scenario(folder: Path, T: int, d_k: int = D_K) -> Path:
    """A T-token scenario with random Q, K, V in an .npz beside it."""
    rng = np.random.RandomState(T)
    np.savez(folder / f"head_{T}.npz", Q=rng.randn(T, d_k), K=rng.randn(T, d_k), V=rng.randn(T, d_k))
    path = folder / f"head_{T}.yaml"
    path.write_text(f"title: One head, T = {T}\nnpz: head_{T}.npz\n")
    return path


# ---- whole processes in a pseudo-terminal ---------------------------------------------------

def time_to_text(command: list[str], marker: bytes, size=(120, 40), timeout=30.0) -> float:
    """Seconds from starting ``command`` in a pty until ``marker`` appears in its output."""
    pid, fd = pty.fork()
    if pid == 0:
        os.environ["TERM"] = "xterm-256color"
        os.environ["COLUMNS"], os.environ["LINES"] = str(size[0]), str(size[1])
        os.execvp(command[0], command)
    start = time.perf_counter()
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", size[1], size[0], 0, 0))
    seen = b""
    try:
        while time.perf_counter() - start < timeout:
            ready, _, _ = select.select([fd], [], [], 0.05)
            if ready:
                try:
                    chunk = os.read(fd, 65536)
                except OSError:
                    break
                seen += chunk
                if marker in seen:
                    return time.perf_counter() - start
        raise RuntimeError(f"{command}: {marker!r} did not appear within {timeout} s")
    finally:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        os.close(fd)


def startup(runs: int, scenario: Path) -> dict:
    python = sys.executable
    ours, bare = [], []
    for _ in range(runs):  # interleaved, so both see the same machine
        bare.append(time_to_text([python, str(ROOT / "benchmarks" / "bare_app.py")], b"bare app ready"))
        ours.append(time_to_text([python, "-m", "attn_tui", str(scenario)], b"Weighted sum"))
    return {"ours": ours, "bare": bare, "ratios": [o / b for o, b in zip(ours, bare)]}


# ---- in-app latency ---------------------------------------------------------------------------

async def app_latencies(scenario: Path, actions: list[str], repeats: int) -> dict[str, list[float]]:
    from attn_tui.core import load
    from attn_tui.tui.app import AttnApp
    from attn_tui.tui.widgets.input_matrix import InputMatrix

    app = AttnApp(load(scenario))
    frames: list[float] = []
    display = app._display

    def serialising_display(screen, renderable):
        if renderable is not None and hasattr(renderable, "render_segments"):
            renderable.render_segments(app.console)  # what a terminal write would cost
        frames.append(time.perf_counter())
        return display(screen, renderable)

    app._display = serialising_display
    results: dict[str, list[float]] = {name: [] for name in actions}
    results.update({f"{name} (to next frame)": [] for name in actions})
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause(0.2)
        screen = app.screen
        q = screen.query_one("#input-Q", InputMatrix)
        rng = np.random.RandomState(1)
        T = screen.session.scenario.T
        for repeat in range(repeats):
            for name in actions:
                await pilot.pause(0.05)
                frames.clear()
                start = time.perf_counter()
                if name == "edit Q cell":
                    row = int(rng.randint(T))
                    screen.apply_cell(q, row, int(rng.randint(D_K)), float(rng.randn()), "x")
                elif name == "next stage":
                    screen.action_goto(repeat % 5 + 1)
                elif name == "move query row":
                    screen.action_row(1 if repeat % 2 else -1)
                screen._refresh_layout()
                results[name].append(time.perf_counter() - start)
                frames.clear()
                screen.refresh()  # and once more through Textual's own frame timer
                start = time.perf_counter()
                while not frames and time.perf_counter() - start < 1:
                    await asyncio.sleep(0.0005)
                results[f"{name} (to next frame)"].append(frames[0] - start if frames else float("nan"))
        screen.session.discard_recovery()
    return results


# ---- separate processes: memory, JSON -----------------------------------------------------------

def child_memory(scenario: str, edits: int) -> None:
    """Run in a child process: open the scenario, make ``edits`` edits, print the peak RSS."""
    from attn_tui.core import load
    from attn_tui.tui.app import AttnApp
    from attn_tui.tui.widgets.input_matrix import InputMatrix

    async def main() -> None:
        app = AttnApp(load(scenario))
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.pause(0.1)
            screen = app.screen
            rng = np.random.RandomState(2)
            T = screen.session.scenario.T
            for i in range(edits):
                name = "QKV"[i % 3]
                matrix = screen.query_one(f"#input-{name}", InputMatrix)
                screen.apply_cell(matrix, int(rng.randint(T)), int(rng.randint(D_K)), float(rng.randn()), "x")
                if i % 10 == 0:
                    screen.action_step(1)
                    await pilot.pause()
            screen.session.discard_recovery()  # the next run starts afresh, not "restore?"

    asyncio.run(main())
    print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)  # kB → MB on Linux


def memory(scenario: Path, edits: int) -> float:
    done = subprocess.run([sys.executable, __file__, "--child-memory", str(scenario), str(edits)],
                          capture_output=True, text=True, cwd=ROOT)
    if done.returncode:
        raise RuntimeError(f"the memory run failed:\n{done.stderr[-2000:]}")
    return float(done.stdout.strip().splitlines()[-1])


def json_time(scenario: Path) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "attn_tui", "--json", str(scenario)], stdout=subprocess.DEVNULL,
                   check=True, cwd=ROOT)
    return time.perf_counter() - start


# ---- the table --------------------------------------------------------------------------------

def row(what: str, values: list[float], target: float | None, unit: str, scale: float = 1.0) -> dict:
    values = [v * scale for v in values]
    median = statistics.median(values)
    return {"what": what, "median": median, "min": min(values), "max": max(values), "unit": unit,
            "target": target, "ok": None if target is None else median <= target, "n": len(values)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="fewer repetitions")
    parser.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    parser.add_argument("--child-memory", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child_memory:
        child_memory(args.child_memory[0], int(args.child_memory[1]))
        return
    for package in ("core", "tui"):
        compileall.compile_dir(str(ROOT / package), quiet=1)
    runs = 3 if args.quick else 9
    repeats = 5 if args.quick else 15
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        folder = Path(folder)
        # the edits made here leave recovery copies: keep them out of the user's state folder
        # (and out of the next run, which would be asked to restore them)
        os.environ["XDG_STATE_HOME"] = str(folder / "state")
        scenarios = {T: make_scenario(folder, T) for T in (16, 256, 1024)}

        start = startup(runs, ROOT / "scenarios" / "cat_sat.yaml")
        rows.append(row("first paint of cat_sat ÷ bare Textual app", start["ratios"], 1.5, "×"))
        rows.append(row("  (first paint of cat_sat)", start["ours"], None, "ms", 1000))
        rows.append(row("  (bare Textual app)", start["bare"], None, "ms", 1000))
        whole = [time_to_text([sys.executable, "-m", "attn_tui", str(ROOT / "scenarios" / "cat_sat.yaml")],
                              b"row = query") for _ in range(runs)]
        rows.append(row("  (whole debugger of cat_sat on screen)", whole, None, "ms", 1000))

        targets = {16: 20, 256: 40, 1024: 80}
        for T, scenario in scenarios.items():
            actions = ["edit Q cell"] + (["next stage", "move query row"] if T == 1024 else [])
            latencies = asyncio.run(app_latencies(scenario, actions, repeats))
            rows.append(row(f"edit one Q cell, T = {T}", latencies["edit Q cell"], targets[T], "ms", 1000))
            rows.append(row("  (until Textual's next frame)", latencies["edit Q cell (to next frame)"],
                            None, "ms", 1000))
            if T == 1024:
                rows.append(row("next stage, T = 1024", latencies["next stage"], 20, "ms", 1000))
                rows.append(row("move the query row, T = 1024", latencies["move query row"], 20, "ms", 1000))

        opened = [time_to_text([sys.executable, "-m", "attn_tui", str(scenarios[1024])], b"Weighted sum")
                  for _ in range(max(3, runs // 2))]
        rows.append(row("open a T = 1024 npz scenario to first paint", opened, 1.5, "s"))
        whole = [time_to_text([sys.executable, "-m", "attn_tui", str(scenarios[1024])], b"row = query")
                 for _ in range(max(3, runs // 2))]
        rows.append(row("  (whole debugger on screen)", whole, None, "s"))
        rows.append(row("peak RSS, T = 1024 open, after 100 edits",
                        [memory(scenarios[1024], 100) for _ in range(1 if args.quick else 3)], 300, "MB"))
        rows.append(row("attn-tui --json, T = 1024", [json_time(scenarios[1024]) for _ in range(3)], 3, "s"))

    machine = f"{platform.node() or 'this machine'}: {os.cpu_count()} cores, Python {platform.python_version()}, " \
              f"{platform.system()} {platform.machine()}"
    print(f"attn-tui benchmarks, {time.strftime('%Y-%m-%d')}, {machine}")
    print(f"{'what':<48} {'median':>9} {'min':>9} {'max':>9}  {'target':>8}")
    for r in rows:
        target = "" if r["target"] is None else f"≤ {r['target']:g} {r['unit']}"
        verdict = "" if r["ok"] is None else ("ok" if r["ok"] else "MISSED")
        print(f"{r['what']:<48} {r['median']:>9.3f} {r['min']:>9.3f} {r['max']:>9.3f}  {target:>8}  {verdict}"
              .replace(".000 ", "     "))
    if args.json:
        Path(args.json).write_text(json.dumps({"date": time.strftime("%Y-%m-%d"), "machine": machine,
                                               "rows": rows}, indent=2))


if __name__ == "__main__":
    main()
