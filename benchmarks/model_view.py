"""Measure ``attn-tui capture --layer all`` on a GPT-2-sized model and the model view it opens.

    python benchmarks/model_view.py               # 3 runs of each
    python benchmarks/model_view.py --runs 5 --keys 15

A random model at GPT-2's dimensions (12 layers, 12 heads, d_model 768, a byte-level tokenizer
of its own: tests/tiny_models.py) and a 512-token text:

- capture: one forward pass recording all 12 layers, every layer checked in float64 and
  written (.npz + .yaml) and the index, against the model's own forward pass with
  ``output_attentions=True`` on the same loaded model, interleaved; then the whole command as
  a process (importing PyTorch, loading the model) against a process that loads the model and
  runs that forward pass, with each one's peak resident memory;
- the model view of the 12 × 12 heads: seconds from the app's start (headless) until the maps
  in view have arrived and been drawn (the view computes only those, and more as it scrolls);
- the model view's keys (→ ←) through a real terminal (tmux), as floor + what attn-tui adds,
  in the style of benchmarks/run.py.

Needs the models extra and tmux. Prints a table; nothing is asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ["HF_HUB_OFFLINE"] = "1"

T = 512
BASELINE = r"""
import sys, torch
from transformers import AutoModel, AutoTokenizer
folder, text = sys.argv[1], sys.argv[2]
ids = AutoTokenizer.from_pretrained(folder)(text)["input_ids"]
model = AutoModel.from_pretrained(folder, attn_implementation="eager", dtype=torch.float32)
with torch.inference_mode():
    model(input_ids=torch.tensor([ids]), output_attentions=True, use_cache=False)
"""


def in_process(folder: Path, text: str, out: Path, runs: int) -> tuple[list[float], list[float]]:
    """Seconds of the capture's work on a loaded model (one recording forward pass, every layer
    checked and written) and of the model's own forward pass with output_attentions."""
    import torch
    from transformers import AutoModel, AutoTokenizer

    from attn_tui.capture import gpt2 as family
    from attn_tui.capture.agreement import agreement
    from attn_tui.capture.command import shown_tokens
    from attn_tui.capture.model_run import forward
    from attn_tui.capture.projections import Run
    from attn_tui.capture.run_to_layer import run_to_sites
    from attn_tui.capture.write_index import index_yaml
    from attn_tui.capture.write_scenario import About, npz_bytes, scenario_yaml, write_files
    from attn_tui.core.files.atomic_write import write_atomic

    tokenizer = AutoTokenizer.from_pretrained(folder)
    ids = tokenizer(text)["input_ids"]
    model = AutoModel.from_pretrained(folder, attn_implementation="eager", dtype=torch.float32)
    ours, theirs = [], []
    for run in range(runs + 1):  # the first of each warms up
        started = time.perf_counter()
        with torch.inference_mode():
            model(input_ids=torch.tensor([ids]), output_attentions=True, use_cache=False)
        baseline = time.perf_counter() - started

        started = time.perf_counter()
        sites = family.sites(model, "decoder")
        recorded = run_to_sites(forward(model, "decoder", "decoder", _prepared(ids)), sites)
        about = About(
            model="gpt2-sized",
            layer=0,
            depth=len(sites),
            text=text,
            tokens=shown_tokens(tokenizer, ids),
        )
        paths = []
        for number, record in enumerate(recorded):
            captured = family.layer(model, number, record, Run(part="decoder"))
            check = agreement(captured)
            assert check.ok, check
            yaml_path = out.parent / f"{out.stem}_l{number}.yaml"
            npz_path = yaml_path.with_suffix(".npz")
            write_files(
                str(yaml_path),
                scenario_yaml(captured, _at(about, number), check, npz_path.name),
                str(npz_path),
                npz_bytes(captured),
            )
            paths.append((number, str(yaml_path)))
        write_atomic(str(out), index_yaml("gpt2-sized · all layers", "benchmark", paths, 12))
        del recorded
        capture = time.perf_counter() - started
        if run:
            ours.append(capture)
            theirs.append(baseline)
    return ours, theirs


def _prepared(ids):
    from attn_tui.capture.model_run import Prepared

    return Prepared(ids)


def _at(about, layer):
    from dataclasses import replace

    return replace(about, layer=layer)


def processes(
    folder: Path, text: str, out: Path, runs: int
) -> dict[str, list[tuple[float, float]]]:
    """(seconds, peak MB) of the whole command and of a process running the model's own pass."""
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    commands = {
        "capture": [
            sys.executable,
            "-m",
            "attn_tui",
            "capture",
            str(folder),
            "--text",
            text,
            "--layer",
            "all",
            "-o",
            str(out),
            "--force",
        ],
        "baseline": [sys.executable, "-c", BASELINE, str(folder), text],
    }
    found: dict[str, list[tuple[float, float]]] = {name: [] for name in commands}
    for run in range(runs):
        for name, command in commands.items():
            started = time.perf_counter()
            process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL)
            _, status, usage = os.wait4(process.pid, 0)
            assert status == 0, (name, status)
            found[name].append((time.perf_counter() - started, usage.ru_maxrss / 1024))
    return found


def model_view_seconds(index: Path, runs: int) -> list[float]:
    """Seconds from the app's start to the maps in view drawn (the view computes only those),
    headless, in a process of its own with one BLAS thread, as the command line starts the app."""
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    found = []
    for _ in range(runs):
        result = subprocess.run(
            [sys.executable, __file__, "--draw", str(index)],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        found.append(float(result.stdout))
    return found


def draw(index: Path) -> None:
    """Print seconds to the maps in view (see model_view_seconds)."""
    from attn_tui.core.loading.model_index import read_index
    from attn_tui.tui.app import AttnApp

    async def once() -> float:
        app = AttnApp(index=read_index(str(index)), remember=False)
        started = time.perf_counter()
        async with app.run_test(size=(120, 40)) as pilot:
            screen = app.screen
            while not screen.in_view_maps or screen.maps_done < screen.in_view_maps:
                await asyncio.sleep(0.002)
            await pilot.pause()  # the frame that draws them
            return time.perf_counter() - started

    print(asyncio.run(once()))


def key_rows(index: Path, n: int) -> list[dict]:
    from benchmarks.pane_measurements import keys
    from benchmarks.results_table import key_row
    from benchmarks.tmux import Tmux

    tmux = Tmux()
    try:
        ours, bare = keys(tmux, index, "12 layers × 12 heads", [], ["Right", "Left"], n)
    finally:
        tmux.stop()
    return key_row("model view, 12 × 12 heads at T = 512: next head (→/←)", ours, bare, 20.0)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--keys", type=int, default=15, help="keys timed through tmux (0: none)")
    parser.add_argument("--draw", metavar="INDEX", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.draw:
        return draw(Path(args.draw))
    from benchmarks.capture import text_of_tokens
    from tests.tiny_models import save_gpt2

    with tempfile.TemporaryDirectory() as folder:
        folder = Path(folder)
        model = save_gpt2(folder / "gpt2-sized", layers=12, hidden=768, heads=12, positions=1024)
        text = text_of_tokens(model, T)
        index = folder / "gpt2_layers.yaml"
        print(
            f"GPT-2-sized random model (12 layers × 12 heads, d_model 768), {T} tokens, "
            f"{time.strftime('%Y-%m-%d')}, {os.cpu_count()} cores, Python {sys.version.split()[0]}"
        )
        ours, theirs = in_process(model, text, folder / "inproc.yaml", args.runs)
        ratio = [o / t for o, t in zip(ours, theirs)]
        print(f"{'what':<74} {'median':>8} {'min':>8} {'max':>8}")
        print(
            f"{'capture all 12 layers (record, check, write) on the loaded model, s':<74} "
            f"{statistics.median(ours):8.2f} {min(ours):8.2f} {max(ours):8.2f}"
        )
        print(
            f"{'the model own forward pass with output_attentions, s':<74} "
            f"{statistics.median(theirs):8.2f} {min(theirs):8.2f} {max(theirs):8.2f}"
        )
        print(
            f"{'  ratio (target ≤ 2×)':<74} "
            f"{statistics.median(ratio):8.2f} {min(ratio):8.2f} {max(ratio):8.2f}"
        )
        whole = processes(model, text, index, args.runs)
        for name, what in (
            ("capture", "attn-tui capture --layer all, whole process"),
            ("baseline", "load the model + its own forward pass, whole process"),
        ):
            seconds = [s for s, _ in whole[name]]
            peak = max(mb for _, mb in whole[name])
            print(
                f"{what + ', s':<74} {statistics.median(seconds):8.2f} {min(seconds):8.2f} "
                f"{max(seconds):8.2f}   peak RSS {peak:,.0f} MB"
            )
        ratio = [c[0] / b[0] for c, b in zip(whole["capture"], whole["baseline"])]
        print(
            f"{'  ratio':<74} {statistics.median(ratio):8.2f} {min(ratio):8.2f} {max(ratio):8.2f}"
        )
        files = sorted(folder.glob("gpt2_layers_l*.npz"))
        print(f"{'written: 12 .npz of MB each':<74} {files[0].stat().st_size / 1e6:8.1f}")
        seconds = model_view_seconds(index, args.runs)
        print(
            f"{'model view: start to the maps in view (120×40) drawn, s (target ≤ 1 s)':<74} "
            f"{statistics.median(seconds):8.2f} {min(seconds):8.2f} {max(seconds):8.2f}"
        )
        if args.keys:
            for found in key_rows(index, args.keys):
                print(
                    f"{found['what'] + ', ms (target ≤ 20)':<74} {found['median']:8.1f} "
                    f"{found['min']:8.1f} {found['max']:8.1f}   {found['note']}"
                )


if __name__ == "__main__":
    main()
