"""What a layer costs to READ, per MB of its files, and to score, per weight: the constants of
core/loading/work_estimate.py, which must count reading: ``heads`` on 1,024 layers naming one
3.3 MB YAML file spends ~35 minutes reading where scoring costs nothing.

    python benchmarks/read_costs.py

Writes, in a temporary folder, a scenario whose matrices are YAML text and one whose matrices
are in an .npz, and times ``load`` of each (the best of a few: the machine is shared), then
times the pattern scores of a T = 2,048, d_k = 1 scenario. Prints seconds a MB of YAML text,
seconds a MB of .npz (the arrays' bytes, as the archive's directory gives them) and
nanoseconds a weight. A measurement, not a test: the numbers are this machine's.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import numpy as np

from attn_tui.core.loading.scenario_file import load
from attn_tui.core.teaching.patterns import scenario_scores

TRIES = 3


def best(run) -> float:
    times = []
    for _ in range(TRIES):
        started = time.perf_counter()
        run()
        times.append(time.perf_counter() - started)
    return min(times)


def yaml_seconds_per_mb(folder: Path) -> float:
    """Q, K, V of 4,096 × 38 written as YAML numbers (about 490,000 values, the most a file may
    hold), as a hand-written or hostile layer holds them."""
    rng = np.random.default_rng(0)
    lines = []
    for name in ("Q", "K", "V"):
        lines.append(f"{name}:")
        for row in rng.uniform(-1, 1, (4096, 38)):
            lines.append("  - [" + ", ".join(f"{value:.3f}" for value in row) + "]")
    path = folder / "text.yaml"
    path.write_text("\n".join(lines) + "\n")
    return best(lambda: load(path)) / (os.path.getsize(path) / 2**20)


def npz_seconds_per_mb(folder: Path) -> float:
    """X and Wq, Wk, Wv in an .npz (float32, as capture writes them), read as float64."""
    rng = np.random.default_rng(0)
    arrays = {"X": rng.standard_normal((64, 1024)).astype(np.float32)}
    arrays.update(
        {name: rng.standard_normal((1024, 4096)).astype(np.float32) for name in ("Wq", "Wk", "Wv")}
    )
    np.savez(folder / "w.npz", **arrays)
    path = folder / "npz.yaml"
    path.write_text("npz: w.npz\nheads: 64\n")
    size = sum(array.nbytes for array in arrays.values()) / 2**20
    return best(lambda: load(path)) / size


def score_ns_per_weight(folder: Path) -> float:
    path = folder / "score.yaml"
    path.write_text("random: {seed: 0, T: 2048, d_k: 1}\n")
    scenario = load(path)
    return best(lambda: scenario_scores(scenario)) / (scenario.T * scenario.T_k) * 1e9


def main() -> None:
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        print(f"YAML text: {yaml_seconds_per_mb(folder):.3f} s a MB (parsed and checked)")
        print(f".npz:      {npz_seconds_per_mb(folder):.4f} s a MB of arrays (read as float64)")
        print(f"scoring:   {score_ns_per_weight(folder):.0f} ns a weight (T = 2,048, d_k = 1)")


if __name__ == "__main__":
    main()
