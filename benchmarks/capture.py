"""Measure ``attn-tui capture`` on a 2,048-token text: time, memory and the size of what it writes.

    python benchmarks/capture.py            # 3 runs of each tiny model
    python benchmarks/capture.py --runs 5

Tiny random GPT-2 and Llama models (tests/tiny_models.py) with a context of 2,048 tokens are
built in a temporary folder; each capture is a whole ``attn-tui capture`` process, as a user
runs it, so the time includes importing PyTorch and transformers. Needs the models extra.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

T = 2048


def text_of_tokens(folder: Path, tokens: int) -> str:
    """A text that the model's tokenizer splits into exactly ``tokens`` tokens."""
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(folder)
    text = "The cat sat on the mat. The dog sat on the log. " * (tokens // 4)

    def count(candidate: str) -> int:
        return len(tokenizer(candidate)["input_ids"])

    low, high = 0, len(text)  # the longest prefix of at most `tokens` tokens
    while low < high:
        middle = (low + high + 1) // 2
        low, high = (middle, high) if count(text[:middle]) <= tokens else (low, middle - 1)
    assert count(text[:low]) == tokens, count(text[:low])
    return text[:low]


def capture_once(folder: Path, text: str, out: Path) -> tuple[float, float]:
    """Seconds and peak resident memory (MB) of one whole ``attn-tui capture`` process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    start = time.perf_counter()
    subprocess.run(
        [
            sys.executable,
            "-m",
            "attn_tui",
            "capture",
            str(folder),
            "--text",
            text,
            "--layer",
            "1",
            "-o",
            str(out),
            "--force",
        ],
        check=True,
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        env={**os.environ, "HF_HUB_OFFLINE": "1"},
    )
    seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return seconds, max(peak, before) / 1024


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    from tests.tiny_models import save_gpt2, save_llama

    with tempfile.TemporaryDirectory() as folder:
        folder = Path(folder)
        models = {
            "GPT-2 (3 layers, 4 heads, d_k 8)": save_gpt2(folder / "gpt2", positions=T),
            "Llama (2 layers, 4 heads / 2 kv, d_k 16)": save_llama(folder / "llama", positions=T),
        }
        print(
            f"attn-tui capture, {T} tokens, layer 1, {time.strftime('%Y-%m-%d')}, "
            f"{os.cpu_count()} cores, Python {sys.version.split()[0]}"
        )
        print(
            f"{'model':<42} {'median s':>9} {'min s':>7} {'max s':>7} {'peak MB':>8} "
            f"{'npz MB':>7} {'yaml kB':>8} {'np.load s':>9}"
        )
        for name, model in models.items():
            text = text_of_tokens(model, T)
            out = folder / f"{model.name}.yaml"
            runs = [capture_once(model, text, out) for _ in range(args.runs)]
            seconds = [run[0] for run in runs]
            import numpy as np

            start = time.perf_counter()
            with np.load(out.with_suffix(".npz")) as archive:
                arrays = {key: archive[key] for key in archive.files}
            loading = time.perf_counter() - start
            assert arrays["Q"].shape[1] == T
            print(
                f"{name:<42} {statistics.median(seconds):>9.2f} {min(seconds):>7.2f} "
                f"{max(seconds):>7.2f} {max(run[1] for run in runs):>8.0f} "
                f"{out.with_suffix('.npz').stat().st_size / 1e6:>7.2f} "
                f"{out.stat().st_size / 1e3:>8.0f} {loading:>9.3f}"
            )


if __name__ == "__main__":
    main()
