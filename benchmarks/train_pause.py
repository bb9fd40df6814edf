"""Pausing a run in the Train view: ms from ``r`` while every run is running until the
frame that says "paused" reaches the terminal, beside the bare Textual app's key, interleaved.

    python benchmarks/train_pause.py           # 9 pauses of each workload
    python benchmarks/train_pause.py --n 5

Two workloads at T = 512, d = 8, training Q and K: the scenario's own run alone, and three variant
runs side by side (scaled, unscaled, bidirectional), the case that took 172–375 ms when the steps
ran on the app's own thread. The target is floor + 20 ms. A pause is timed through the same tmux
control-mode client as benchmarks/run.py, but without waiting for a quiet screen first: a running
Train view redraws every frame, so the first frame holding "paused" is the key's.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.pane_measurements import BARE_APP, app_command
from benchmarks.results_table import key_row
from benchmarks.tmux import SCRATCH, Tmux

T, D = 512, 8
VARIANTS = (
    "variants: [{name: scaled, scale: true}, {name: unscaled, scale: false}, "
    "{name: bidirectional, causal: false}]\n"
)


def workload(folder: Path, variants: bool) -> Path:
    np.save(folder / "target.npy", np.random.default_rng(2).normal(size=(T, D)))
    path = folder / ("variants.yaml" if variants else "alone.yaml")
    path.write_text(
        f"random: {{seed: 0, T: {T}, d_k: {D}}}\nloss: {{target: {{npy: target.npy}}}}\n"
        f"train: {{learn: [Q, K], lr: 0.001, steps: 200}}\n" + (VARIANTS if variants else "")
    )
    return path


def pause_times(tmux: Tmux, scenario: Path, n: int) -> tuple[list[float], list[float]]:
    """Seconds from r (pause) to the frame saying paused, and the bare app's key, interleaved."""
    bare_file = Path(tempfile.mkdtemp(dir=SCRATCH)) / "bare.py"
    bare_file.write_text(BARE_APP)
    tmux.start("bare", f"{sys.executable} {bare_file}")
    tmux.wait("bare", lambda text: "bare ready" in text)

    def open_train_view() -> None:
        tmux.start("ours", app_command(scenario))
        tmux.wait("ours", lambda text: "how well does" in text)
        tmux("send-keys", "-t", "ours", "t")
        tmux.wait("ours", lambda text: "paused" in text)
        tmux.settle("ours")

    open_train_view()
    ours, bare = [], []
    for _ in range(4 * n):
        if len(ours) == n:
            break
        if "done" in tmux.screen("ours"):  # (every step taken: the view afresh, at step 0)
            tmux.kill("ours")
            open_train_view()
        watch = tmux.watches["ours"]
        tmux("send-keys", "-t", "ours", "r")
        while not any(word in tmux.screen("ours") for word in ("running", "done")):
            time.sleep(
                0.01
            )  # (not tmux.wait: it waits for the frames to stop, and running they do not)
        time.sleep(0.3)  # (steps being taken, frames being drawn)
        sent = watch.send_keys("r")
        while True:
            arrived = watch.output(timeout=30)
            if arrived is None:
                raise RuntimeError(
                    f"r did not pause in 30 s; the screen was:\n{tmux.screen('ours')}"
                )
            screen = tmux.screen("ours")
            if "paused" in screen:
                ours.append(arrived - sent)
                break
            if "every run has taken" in screen:
                break  # (the run ended before the pause: not a pause, measured again)
        tmux.settle("ours")
        bare.append(tmux.key("bare", "x"))
    tmux.kill("ours")
    tmux.kill("bare")
    return ours, bare


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--n", type=int, default=9)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(dir=SCRATCH))
    tmux = Tmux()
    try:
        for variants, label in ((False, "one run"), (True, "three variant runs")):
            ours, bare = pause_times(tmux, workload(folder, variants), args.n)
            for found in key_row(f"pause (r) in the Train view, {label}, T = {T}", ours, bare, 20):
                verdict = "✓" if found["ok"] else "✗ missed"
                print(
                    f"{found['what']}: {found['median']:+.1f} ms (min {found['min']:+.1f} .. "
                    f"max {found['max']:+.1f}, n={found['n']}; {found['note']}) "
                    f"target ≤ +20 ms {verdict}"
                )
    finally:
        tmux.stop()


if __name__ == "__main__":
    main()
