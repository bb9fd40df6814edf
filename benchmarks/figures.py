"""Measure ``attn-tui figure`` on ``random:`` scenarios of T = 4,096 and 16,384: the time of the
whole process (as a user runs it, imports included), its peak memory and the size of the SVG.

    python benchmarks/figures.py            # weights and scores at T = 4,096 and 16,384
    python benchmarks/figures.py --t 4096   # one size
    python benchmarks/figures.py --model-view-only

And ``figure INDEX --model-view`` of 12 layers × 12 heads (GPT-2 small's grid) at T = 64 and 512,
random arrays in .npz files as a capture writes them.

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
    subprocess.run(
        [
            sys.executable,
            "-m",
            "attn_tui",
            "figure",
            str(scenario),
            "--stage",
            stage,
            "-o",
            str(out),
        ],
        cwd=ROOT,
        check=True,
        capture_output=True,
    )
    seconds = time.perf_counter() - start
    peak = max(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, before) / 1024
    return seconds, peak, out.stat().st_size


def model_view(T: int, folder: Path, layers: int = 12, heads: int = 12) -> tuple[float, float, int]:
    import numpy as np

    rng = np.random.default_rng(0)
    entries = []
    for layer in range(layers):
        name = f"m{T}_l{layer}"
        np.savez(folder / f"{name}.npz", **{key: rng.normal(size=(heads, T, 64)) for key in "QKV"})
        tokens = ", ".join(f"t{i}" for i in range(T))
        (folder / f"{name}.yaml").write_text(
            f'npz: "{name}.npz"\ntokens: [{tokens}]\nheads: {heads}\ncausal: true\n',
            encoding="utf-8",
        )
        entries.append(f"  - {{layer: {layer}, scenario: {name}.yaml, heads: {heads}}}")
    index = folder / f"m{T}_layers.yaml"
    index.write_text(
        f'model_index: 1\ntitle: "random, T = {T}"\nlayers:\n' + "\n".join(entries) + "\n",
        encoding="utf-8",
    )
    out = folder / f"model_view_{T}.svg"
    start = time.perf_counter()
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    subprocess.run(
        [sys.executable, "-m", "attn_tui", "figure", str(index), "--model-view", "-o", str(out)],
        cwd=ROOT,
        check=True,
        capture_output=True,
    )
    seconds = time.perf_counter() - start
    peak = max(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, before) / 1024
    return seconds, peak, out.stat().st_size


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument(
        "--t", type=int, action="append", help="T (again for more; default 4096 and 16384)"
    )
    parser.add_argument("--model-view-only", action="store_true")
    args = parser.parse_args()
    sizes = [] if args.model_view_only else args.t or [4096, 16384]
    print(
        f"attn-tui figure, whole process; host: {os.cpu_count()} cores, "
        "shared (loaded: other work ran)"
    )
    print(f"{'T':>7} {'stage':>8} {'seconds':>8} {'peak MB':>8} {'SVG KB':>8}")
    with tempfile.TemporaryDirectory() as name:
        for T in sizes:
            for stage in ("weights", "scores"):
                seconds, peak, size = run(T, stage, Path(name))
                print(
                    f"{T:>7,} {stage:>8} {seconds:>8.2f} {peak:>8.0f} {size / 1024:>8.0f}",
                    flush=True,
                )
        for T in (64, 512):
            seconds, peak, size = model_view(T, Path(name))
            verdict = "✓" if seconds <= 2 and size <= 20 * 2**20 else "✗ missed"
            print(
                f"{T:>7,} {'12×12 model view':>8} {seconds:>8.2f} {peak:>8.0f} "
                f"{size / 1024:>8.0f}  "
                f"(target ≤ ~2 s, ≤ ~20 MB: {verdict})",
                flush=True,
            )


if __name__ == "__main__":
    main()
