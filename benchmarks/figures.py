"""Measure ``attn-tui figure`` on ``random:`` scenarios of T = 4,096 and 16,384: the time of the
whole process (as a user runs it, imports included), its peak memory and the size of the SVG.

    python benchmarks/figures.py            # weights and scores at T = 4,096 and 16,384
    python benchmarks/figures.py --t 4096   # one size

The map of T > 96 is drawn in blocks (core/outputs/figures/heat_map.py, MAX_CELLS), so the SVG
stays ~96 × 96 cells; the time is that of computing every cell of the stage once, a row block
at a time. The target (issue 45): ≤ ~2 s and ≤ ~20 MB of output.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run(T: int, stage: str, folder: Path) -> tuple[float, float, int]:
    scenario = folder / f"random_{T}.yaml"
    scenario.write_text(f"random: {{T: {T}, d_k: 64, seed: 0}}\ncausal: true\n", encoding="utf-8")
    out = folder / f"{stage}_{T}.svg"
    start = time.perf_counter()
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    subprocess.run([sys.executable, "-m", "attn_tui", "figure", str(scenario), "--stage", stage, "-o", str(out)],
                   cwd=ROOT, check=True, capture_output=True)
    seconds = time.perf_counter() - start
    peak = max(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, before) / 1024
    return seconds, peak, out.stat().st_size


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--t", type=int, action="append", help="T (again for more; default 4096 and 16384)")
    args = parser.parse_args()
    sizes = args.t or [4096, 16384]
    print(f"attn-tui figure, whole process; host: {os.cpu_count()} cores, shared (loaded: other work ran)")
    print(f"{'T':>7} {'stage':>8} {'seconds':>8} {'peak MB':>8} {'SVG KB':>8}")
    with tempfile.TemporaryDirectory() as name:
        for T in sizes:
            for stage in ("weights", "scores"):
                seconds, peak, size = run(T, stage, Path(name))
                print(f"{T:>7,} {stage:>8} {seconds:>8.2f} {peak:>8.0f} {size / 1024:>8.0f}", flush=True)


if __name__ == "__main__":
    main()
