"""benchmarks/run.py's measurements of whole processes: ``--json``, ``--print``, ``print`` and
``markdown`` writing to /dev/null (seconds, and the child's peak RSS), and the plain NumPy and
json.dumps script that ``--json`` is held against."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from benchmarks.tmux import INSTALLED

ROOT = Path(__file__).resolve().parent.parent


def json_run(scenario: Path) -> tuple[float, float]:
    """Seconds and peak RSS (MB) of ``attn-tui --json`` writing to /dev/null."""
    start = time.perf_counter()
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "import resource, sys\n"
            "from attn_tui.tui.cli import main\n"
            "code = main(['--json', sys.argv[1]])\n"
            "sys.stderr.write(str(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss))\n"
            "sys.exit(code)",
            str(scenario),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env=INSTALLED,
    )
    elapsed = time.perf_counter() - start
    if done.returncode:
        raise RuntimeError(done.stderr)
    return elapsed, int(done.stderr.strip().splitlines()[-1]) / 1024


def json_dumps_baseline(scenario: Path) -> float:
    """Seconds for a plain script to load the arrays, compute every stage with NumPy and
    json.dumps them: the same numbers --json writes, the cheapest way Python writes them."""
    code = f"""
import json, sys, time, numpy as np
data = np.load({str(scenario.with_suffix(".npz"))!r})
Q, K, V = data['Q'], data['K'], data['V']
T = len(Q)
scores = Q @ K.T
scaled = scores / 8.0
blocked = np.triu(np.ones((T, T), bool), 1)
masked = np.where(blocked, -np.inf, scaled)
row_max = masked.max(1)
exp = np.exp(masked - row_max[:, None])
row_sum = exp.sum(1)
weights = exp / row_sum[:, None]
output = weights @ V
doc = dict(Q=Q.tolist(), K=K.tolist(), V=V.tolist(), scores=scores.tolist(), scaled=scaled.tolist(),
           masked=np.where(blocked, None, masked).tolist(), row_max=row_max.tolist(),
           row_sum=row_sum.tolist(), weights=weights.tolist(), output=output.tolist())
sys.stdout.write(json.dumps(doc))
"""
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-c", code], stdout=subprocess.DEVNULL, check=True, env=INSTALLED
    )
    return time.perf_counter() - start


def walk_run(command: str, scenario: Path) -> tuple[float, float]:
    """Seconds and peak RSS (MB) of ``attn-tui print`` or ``markdown`` writing to /dev/null (the
    child's own peak, read by wait4: this process never grows by NumPy)."""
    start = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, "-m", "attn_tui", command, str(scenario)],
        cwd=ROOT,
        env=INSTALLED,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    _, status, usage = os.wait4(process.pid, 0)
    if os.waitstatus_to_exitcode(status):
        raise RuntimeError(process.stderr.read().decode(errors="replace"))
    process.stderr.close()
    return time.perf_counter() - start, usage.ru_maxrss / 1024


def print_time(scenario: Path) -> float:
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "attn_tui", "--print", str(scenario)],
        stdout=subprocess.DEVNULL,
        check=True,
        cwd=ROOT,
        env=INSTALLED,
    )
    return time.perf_counter() - start
