"""Measure ``attn_tui.check(attention)`` in a real Jupyter kernel (the target: ≤ 1 s on the
2-core machine), as a student meets it: a fresh kernel per run, the cell ``from attn_tui import
check`` (the import, paid once a kernel, NumPy already imported), then ``check(attention)`` on
cat_sat, rendered as the notebook renders it (``_repr_html_``), then with ``cases=True``.

    python benchmarks/self_check.py            # 3 kernels
    python benchmarks/self_check.py --runs 1

Each figure is the kernel's own clock around the statement (what the student waits for, less
the notebook's round trip), and, for the first check, the client's clock around the whole cell
too. The figures are of whatever else the machine is doing: say how loaded it was.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from pathlib import Path

from jupyter_client.manager import start_new_kernel

ROOT = Path(__file__).resolve().parent.parent
CHAPTER = (ROOT / "tests" / "grading" / "students" / "chapter.py").read_text()

TIMED = """
import json, time
started = time.perf_counter()
{statement}
print(json.dumps(time.perf_counter() - started))
"""


def run(client, code: str) -> str:
    """Run ``code`` in the kernel; what it printed."""
    client.execute(code)
    printed = []
    while True:
        message = client.get_iopub_msg(timeout=120)
        kind, content = message["msg_type"], message["content"]
        if kind == "stream":
            printed.append(content["text"])
        elif kind == "error":
            raise RuntimeError("\n".join(content["traceback"]))
        elif kind == "status" and content["execution_state"] == "idle":
            return "".join(printed)


def seconds(client, statement: str) -> float:
    return json.loads(run(client, TIMED.format(statement=statement)).strip().splitlines()[-1])


def one_kernel() -> dict[str, float]:
    manager, client = start_new_kernel(kernel_name="python3", cwd=str(ROOT))
    try:
        # (a student's notebook has imported NumPy before it checks anything: not counted)
        run(client, "import numpy as np")
        found = {"import": seconds(client, "from attn_tui import check")}
        run(client, CHAPTER)
        started = time.perf_counter()
        found["first check"] = seconds(client, "check(attention)._repr_html_()")
        found["first check, the cell"] = time.perf_counter() - started
        found["again"] = seconds(client, "check(attention)._repr_html_()")
        found["cases=True"] = seconds(client, "check(attention, cases=True)._repr_html_()")
        return found
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    runs = parser.parse_args().runs
    load = os.getloadavg()[0]
    found = [one_kernel() for _ in range(runs)]
    print(f"attn_tui.check in a Jupyter kernel, {runs} fresh kernels (load {load:.1f})")
    for name in found[0]:
        values = [run[name] for run in found]
        print(
            f"  {name:<24} median {statistics.median(values):.3f} s "
            f"(min {min(values):.3f}, max {max(values):.3f})"
        )
    print("target: check(attention) ≤ 1 s (the first check, the cell; the import is apart)")


if __name__ == "__main__":
    main()
