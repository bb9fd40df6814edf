"""Measure ``attn-tui responses`` on a class's log of 100,000 lines (target: ≤ 20 s).

    python benchmarks/responses.py                  # 100,000 lines, 3 runs
    python benchmarks/responses.py --lines 20000 --runs 1 --profile

The lesson is the chapter's "the cat sat" with four predict beats (scores, scaled, weights and
output of "sat"); the log is made here, line by line: every valid line a DISTINCT guess (the
right row, the unscaled one, the mask-after-softmax one or a random one, each moved by its own
small amount, so no judgement can be reused), students drawn from as many ids as lines (so
most answers are a student's latest, each judged; some change their minds), and one line in
fifty not a valid answer (not JSON, NaN, a beat that does not predict, the wrong length, too
long). Each run is a whole ``python -m attn_tui responses
LESSON LOG --json`` process, timed from start to exit. ``--profile`` runs the summary once in
this process under cProfile and prints the 25 costliest functions.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

LESSON = """title: the cat sat, four predictions
tokens: [the, cat, sat]
Q: [[1, 0], [0, 1], [1, 1]]
K: [[1, 0], [0, 1], [1, 1]]
V: [[1.0, 0.0], [0.0, 1.0], [0.5, 0.5]]
causal: true
lesson:
  - {step: score, row: sat, predict: row, say: "The scores of sat?"}
  - {step: scale, predict: row, say: "Scaled?"}
  - {step: mask, say: "The mask."}
  - {step: softmax, predict: row, say: "The weights of sat?"}
  - {step: weighted_sum, predict: row, say: "The output of sat?"}
"""
# beat: (stage, columns, answers the class gives: right, and mistakes worked out by hand)
BEATS = {
    1: ("scores", 3, [[1, 1, 2], [2, 1, 1], [0.5, 0.5, 1]]),
    2: ("scaled", 3, [[0.707, 0.707, 1.414], [1, 1, 2], [0.5, 0.5, 1]]),
    4: ("weights", 3, [[0.248, 0.248, 0.503], [0.212, 0.212, 0.576], [0.333, 0.333, 0.333]]),
    5: ("output", 2, [[0.5, 0.5], [0.504, 0.504], [0.4, 0.6]]),
}
INVALID = [
    "this is not JSON",
    '{"time": "t", "student": "x", "beat": 4, "stage": "weights", "row": 2, '
    '"guess": [NaN, 0.2, 0.3]}',
    '{"time": "t", "student": "x", "beat": 3, "stage": "masked", "row": 2, "guess": [1, 2, 3]}',
    '{"time": "t", "student": "x", "beat": 4, "stage": "weights", "row": 2, "guess": [0.2, 0.3]}',
    '{"time": "t", "student": "x", "beat": 4, "stage": "weights", "row": 2, '
    '"guess": [0.2, 0.3, 0.5]}' + " " * 5000,
    "\x1b[2J[/INST]",
]


def make_log(path: Path, lines: int, seed: int = 44) -> int:
    """Write ``lines`` lines; return how many are valid answers."""
    rng = random.Random(seed)
    valid = 0
    with path.open("w", encoding="utf-8") as out:
        for n in range(lines):
            if n % 50 == 49:
                out.write(INVALID[(n // 50) % len(INVALID)] + "\n")
                continue
            beat = (1, 2, 4, 5)[n % 4]
            stage, columns, answers = BEATS[beat]
            base = (
                answers[rng.randrange(len(answers))]
                if rng.random() < 0.9
                else [rng.uniform(-3, 3) for _ in range(columns)]
            )
            guess = [
                round(value + rng.uniform(-0.004, 0.004), 6) for value in base
            ]  # distinct, near
            out.write(
                json.dumps(
                    {
                        "time": f"2026-12-07T10:00:{n % 60:02d}.000+00:00",
                        "student": f"s{rng.randrange(lines):06d}",
                        "beat": beat,
                        "stage": stage,
                        "row": 2,
                        "guess": guess,
                    }
                )
                + "\n"
            )
            valid += 1
    return valid


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        lesson = folder / "lesson.yaml"
        lesson.write_text(LESSON, encoding="utf-8")
        log = folder / "class.jsonl"
        valid = make_log(log, args.lines)
        size = log.stat().st_size
        if args.profile:
            profile(lesson, log)
            return
        times, summary = [], None
        for _ in range(args.runs):
            start = time.perf_counter()
            done = subprocess.run(
                [sys.executable, "-m", "attn_tui", "responses", str(lesson), str(log), "--json"],
                check=False,
                capture_output=True,
                text=True,
                cwd=ROOT,
                timeout=600,
            )
            times.append(time.perf_counter() - start)
            if done.returncode:
                sys.exit(f"responses failed: {done.stderr}")
            summary = json.loads(done.stdout)
    answered = sum(beat["answered"] for beat in summary["beats"])
    ok = max(times) <= 20
    print(
        f"attn-tui responses, {args.lines:,} lines ({valid:,} valid, {args.lines - valid:,} not; "
        f"{size / 1e6:.1f} MB) over {len(summary['beats'])} beats, "
        f"{answered:,} latest answers judged: "
        f"median {statistics.median(times):.2f} s "
        f"(min {min(times):.2f}, max {max(times):.2f}; {args.runs} runs) "
        f"{'✓' if ok else 'missed'} ≤ 20 s  [2-core host shared with other work: loaded]"
    )
    print(f"skipped: {summary['skipped']} ({summary['skipped_why']})")


def profile(lesson: Path, log: Path) -> None:
    import cProfile
    import pstats

    from attn_tui.core import load
    from attn_tui.core.classroom.summary import summarise

    scenario = load(lesson)
    with cProfile.Profile() as profiler, log.open("rb") as stream:
        summarise(scenario, stream)
    pstats.Stats(profiler).sort_stats("cumulative").print_stats(25)


if __name__ == "__main__":
    main()
