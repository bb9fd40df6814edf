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
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.pane_measurements import keys, memory_and_overview, quit_times, startup
from benchmarks.process_measurements import json_dumps_baseline, json_run, print_time, walk_run
from benchmarks.results_table import key_row, report, row
from benchmarks.tmux import INSTALLED, SCRATCH, ServerGone, Tmux
from benchmarks.workloads import (
    make_backward,
    make_capture_shaped,
    make_lesson,
    make_multihead,
    make_scenario,
    make_small_index,
    make_walked,
)


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
        # the start against its real floor: a bare Textual app that imports NumPy and PyYAML first,
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
                    f"attn-tui {statistics.median(ours):.2f} s, "
                    f"that bare app {statistics.median(libs):.2f} s; "
                    f"a bare app alone {statistics.median(bare):.2f} s "
                    f"(the libraries add {floor:.2f}×)",
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
            if T == 4096:  # the stages of the 2025 models' attention, each at T = 4,096
                normed = make_walked(folder, T, "qk_norm: {style: qwen3}\n", "qk_norm")
                bounded = "whatever x is"  # (its first step is QK-norm, whose Why pane says so)
                key(f"QK-norm: edit a Q cell (+), T = {T}", normed, bounded, ["Tab"], ["+"])
                key(f"QK-norm: edit a K cell (+), T = {T}", normed, bounded, ["Tab"] * 2, ["+"])
                key(
                    f"QK-norm: step to the next stage and back, T = {T}",
                    normed,
                    bounded,
                    [],
                    ["Right", "Left"],
                )
                chunked = make_walked(folder, T, "chunk: 128\n", "chunk")
                key(f"chunked: edit a K cell (+), T = {T}", chunked, ready, ["Tab"] * 2, ["+"])
                key(
                    f"chunked: mask to softmax and back, T = {T}",
                    chunked,
                    ready,
                    ["3"],
                    ["Right", "Left"],
                )
                sinks = make_walked(folder, T, "sinks: 1.0\n", "sinks")
                key(f"learned sinks: edit a Q cell (+), T = {T}", sinks, ready, ["Tab"], ["+"])
                key(
                    f"learned sinks: softmax to the weighted sum and back, T = {T}",
                    sinks,
                    ready,
                    ["4"],
                    ["Right", "Left"],
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


if __name__ == "__main__":
    main()
