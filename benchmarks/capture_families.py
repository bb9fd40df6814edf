"""Measure ``attn-tui capture`` of a tiny model of each family it knows: the target is 5 s each.

    python benchmarks/capture_families.py             # 3 runs of each
    python benchmarks/capture_families.py --runs 5 --family qwen3 --family smollm3

Each family's tiny random model (tests/tiny_models.py: 2 layers, d_model 32) is built in a
temporary folder; each capture is a whole ``attn-tui capture --layer all`` process on a
12-token text, as a user runs it, so its time includes importing PyTorch and transformers and
loading the model; beside it, interleaved, a process that only imports them and loads the
model (the floor no capture goes below), and the difference: what capture itself adds. On a
busy machine the imports alone take many seconds: the difference is the figure to compare with
the target. The last column is the capture run in this process, PyTorch imported already (from
loading the model to the files written). A last row captures the tiny Llama with
``--generate 8``. Needs the models extra. Prints a table of medians; nothing is asserted.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from attn_tui.capture.families import FAMILIES as CAPTURED

TEXT = "The cat sat on the mat, the dog sat on the log"
TARGET = 5.0  # seconds: the target for a tiny model of each family
FLOOR = r"""
import sys, torch
from transformers import AutoModel, AutoTokenizer
AutoTokenizer.from_pretrained(sys.argv[1])
AutoModel.from_pretrained(sys.argv[1], attn_implementation="eager", dtype=torch.float32)
"""
# the decoders; an encoder-decoder is captured on its encoder, which needs no --target-text
# every family capture knows, in its table's order
FAMILIES = tuple(CAPTURED)


def build(family: str, folder: Path) -> Path:
    os.environ["HF_HUB_OFFLINE"] = "1"
    from tests.tiny_models import save_family, save_gpt2, save_llama

    if family == "gpt2":
        return save_gpt2(folder)
    if family == "llama":
        return save_llama(folder)
    return save_family(family, folder)


def seconds(command: list[str]) -> float:
    started = time.perf_counter()
    subprocess.run(
        command,
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**os.environ, "HF_HUB_OFFLINE": "1"},
        cwd=ROOT,
    )
    return time.perf_counter() - started


def in_process(argv: list[str]) -> float:
    """The capture run by this process's own attn-tui (its imports made by the first run)."""
    import contextlib
    import io

    from attn_tui.tui.cli import main

    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        main(argv)  # warm: PyTorch and transformers imported, the first time
        started = time.perf_counter()
        main(argv)
        return time.perf_counter() - started


def capture_command(folder: Path, out: Path, extra: list[str]) -> list[str]:
    command = [sys.executable, "-m", "attn_tui", "capture", str(folder), "--text", TEXT]
    return command + ["--layer", "all", "-o", str(out), "--force", *extra]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--family", action="append", choices=FAMILIES)
    args = parser.parse_args()
    rows = [(family, []) for family in args.family or FAMILIES]
    if not args.family:
        rows.append(("llama --generate 8", ["--generate", "8"]))
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        print(
            f"{'family':<20} {'capture':>8} {'floor':>8} {'capture − floor':>16} "
            f"{'in process':>11}  (medians; target ≤ {TARGET:g} s)"
        )
        for name, extra in rows:
            family = name.split()[0]
            folder = root / family
            if not folder.exists():
                build(family, folder)
            captures, floors, inside = [], [], []
            for _ in range(args.runs):  # interleaved: the machine's load falls on both alike
                captures.append(seconds(capture_command(folder, root / "x.yaml", extra)))
                floors.append(seconds([sys.executable, "-c", FLOOR, str(folder)]))
                inside.append(in_process(capture_command(folder, root / "y.yaml", extra)[3:]))
            capture, floor = statistics.median(captures), statistics.median(floors)
            added = statistics.median(c - f for c, f in zip(captures, floors))
            mark = "" if statistics.median(inside) <= TARGET else "  over"
            print(
                f"{name:<20} {capture:>7.2f}s {floor:>7.2f}s {added:>15.2f}s "
                f"{statistics.median(inside):>10.2f}s{mark}",
                flush=True,
            )


if __name__ == "__main__":
    main()
