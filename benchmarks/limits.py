"""What a file at, or past, the size limits costs to check: time and peak memory, per process.

    python benchmarks/limits.py

Each case runs ``attn-tui --check FILE`` in a fresh process (the real command, NumPy and all)
and reports its exit status, the start of its message, the wall-clock time and the process's
peak resident memory. Refused files should cost well under 2 s and 200 MB; the files accepted
at the limits show what a legitimate file of that size costs. Numbers are machine-dependent:
this is a measurement, not a test.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from attn_tui.core.limits import MAX_FILE_BYTES, MAX_NUMBERS  # (no NumPy: see measure)


def column(value: str, rows: int) -> str:
    return "[" + ", ".join([f"[{value}]"] * rows) + "]"


def block_rows(value: str, rows: int, width: int) -> str:
    return ("  - [" + ", ".join([value] * width) + "]\n") * rows


def cases(folder: Path) -> dict[str, Path | str]:
    """Name → scenario path (or a device), each written into ``folder``."""

    def write(name: str, text: str) -> Path:
        path = folder / name
        path.write_text(text)
        return path

    found: dict[str, Path | str] = {}
    found["refused: 8 MB, 4,000,001 numbers"] = write(
        "numbers.yaml", "Q:\n" + block_rows("0", 4001, 1000) + "K: [[1]]\nV: [[1]]\n"
    )
    row = "[" + ", ".join(["0"] * 4096) + "]"
    found["refused: 60 KB expect: alias bomb (50 M)"] = write(
        "expect.yaml",
        f"Q: &c {column('1', 4096)}\nK: *c\nV: *c\nexpect:\n  scores: &e [&r {row}"
        + ", *r" * 4095
        + "]\n  scaled: *e\n  weights: *e\n",
    )
    found["refused: 295 KB token alias bomb (1 G chars)"] = write(
        "tokens.yaml",
        f'tokens: [&t "{"a" * 262_144}"' + ", *t" * 4095 + "]\n"
        f"Q: &c {column('1', 4096)}\nK: *c\nV: *c\n",
    )
    big = folder / "big.yaml"
    with open(big, "wb") as file:
        file.truncate(MAX_FILE_BYTES + 1)
    found["refused: past the byte limit (sparse)"] = big
    if os.path.exists("/dev/zero"):
        found["refused: /dev/zero"] = "/dev/zero"
    # accepted at the limits
    found["ok: YAML, 491,527 values written (T 4096, d 39)"] = write(
        "yaml_limit.yaml", "".join(f"{name}:\n" + block_rows("0.125", 4096, 39) for name in "QKV")
    )
    found["ok: YAML, T = 16,384 tokens, d 1"] = write(
        "t16k.yaml", "".join(f"{name}: {column('1', 16_384)}\n" for name in "QKV")
    )
    found["ok: doubtful scale, T = 16,384, d 2 (largest score found exactly)"] = write(
        "doubtful.yaml",
        "Q: &q [" + ", ".join(["[10, 10]"] * 16_384) + "]\nK: *q\n"
        f"V: {column('1', 16_384)}\nscale: 1.0e-299\n",
    )
    d_k = MAX_NUMBERS // (3 * 16_384)
    subprocess.run(
        [
            sys.executable,
            "-c",
            "import numpy as np, sys; rng = np.random.RandomState(0); "
            f"np.savez(sys.argv[1], **{{n: rng.randn(16_384, {d_k}) for n in 'QKV'}})",
            str(folder / "head.npz"),
        ],
        check=True,
    )
    found[f"ok: npz, 16,384 × {d_k} × 3 = {3 * 16_384 * d_k:,} numbers"] = write(
        "npz.yaml", "npz: head.npz\n"
    )
    return found


def measure(path: Path | str) -> tuple[int, str, float, float]:
    """Exit status, first line of output, seconds, peak RSS in MB of ``attn-tui --check``.

    A child's peak starts from its parent's size at the fork, so this process stays small: it
    never imports NumPy, and the .npz is written by a process of its own.
    """
    start = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, "-m", "attn_tui", "--check", str(path)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    output = process.stdout.read()
    _, status, usage = os.wait4(process.pid, 0)  # reaped here, to read this child's own peak
    elapsed = time.perf_counter() - start
    process.stdout.close()
    first = output.strip().splitlines()[0] if output.strip() else ""
    return (
        os.waitstatus_to_exitcode(status),
        first.split(": ", 1)[-1],
        elapsed,
        usage.ru_maxrss / 1024,
    )


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        print(f"{'case':<62} {'exit':>4} {'s':>6} {'MB':>6}  message")
        for name, path in cases(Path(folder)).items():
            status, message, elapsed, peak = measure(path)
            print(f"{name:<62} {status:>4} {elapsed:6.2f} {peak:6.0f}  {message[:70]}")
    nasty_inputs()


def nasty_inputs() -> None:
    """The fuzz tests' hand-made nasty documents (alias bombs, deep nesting, inputs that were
    once slow), each loaded in this process: the tests check their outcome and memory, this
    their time, against 1 s each (the faster of two tries: a shared machine stalls now and then)."""
    from attn_tui.core import loads
    from tests.reading.test_loader_memory_on_nasty_inputs import NASTY, NASTY_ONCE_SLOW

    print(f"\n{'in-process load of a nasty document':<62} {'best s':>8}  (target ≤ 1 s)")
    for name, text in {**NASTY, **NASTY_ONCE_SLOW}.items():
        times = []
        for _ in range(2):
            start = time.perf_counter()
            try:
                loads(text, "nasty.yaml")
            except Exception:  # noqa: BLE001 (the outcome is the test's business)
                pass
            times.append(time.perf_counter() - start)
        verdict = "ok" if min(times) <= 1.0 else "MISSED"
        print(f"{name:<62} {min(times):8.2f}  {verdict}")


if __name__ == "__main__":
    main()
