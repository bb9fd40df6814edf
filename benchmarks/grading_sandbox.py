"""What the grading sandbox (bubblewrap, grading/sandbox.py) costs: ``attn-tui grade`` of 30
correct submissions and ``check --impl`` on cat_sat, each in the sandbox and without it (as on a
machine where bwrap cannot run), interleaved in one run so that the cost is read as a ratio on a
shared, noisy host. The target is benchmarks/grading.py's: 30 submissions in ≤ 30 s.

    python benchmarks/grading_sandbox.py            # 3 runs of each
    python benchmarks/grading_sandbox.py --runs 1 --forbid torch
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CHAPTER = ROOT / "tests" / "grading" / "students" / "chapter.py"
# attn-tui as a teacher runs it, the sandbox made unavailable as on a machine without it
WITHOUT_SANDBOX = (
    "import sys; from attn_tui.grading import sandbox; "
    "sandbox.problem = lambda: 'measured without it'; "
    "from attn_tui.tui.cli import main; sys.exit(main(sys.argv[1:]))"
)


def timed(argv: list[str], sandboxed: bool) -> float:
    command = ["-m", "attn_tui"] if sandboxed else ["-c", WITHOUT_SANDBOX]
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, *command, *argv],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        check=False,
    )
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--students", type=int, default=30)
    parser.add_argument("--forbid", action="append", default=[], metavar="MODULE")
    given = parser.parse_args()
    from attn_tui.grading import sandbox

    problem = sandbox.problem()
    if problem is not None:
        sys.exit(f"no sandbox to measure here: {problem}")
    extra = [option for module in given.forbid for option in ("--forbid", module)]
    load = os.getloadavg()[0]
    check: dict[bool, list[float]] = {True: [], False: []}
    grade: dict[bool, list[float]] = {True: [], False: []}
    folder = Path(tempfile.mkdtemp(prefix="attn-tui-grade-bench-"))
    try:
        for i in range(given.students):
            shutil.copy(CHAPTER, folder / f"student_{i:02}.py")
        for _ in range(given.runs):
            for sandboxed in (True, False):
                impl = ["check", "cat_sat", "--impl", str(CHAPTER), *extra]
                check[sandboxed].append(timed(impl, sandboxed))
                grade[sandboxed].append(timed(["grade", str(folder), *extra], sandboxed))
    finally:
        shutil.rmtree(folder)
    print(f"(load average {load:.1f} on {os.cpu_count()} cores when started: the host was shared)")
    for sandboxed in (True, False):
        named = "in the sandbox" if sandboxed else "without it    "
        median = statistics.median(grade[sandboxed])
        print(
            f"{named}: check --impl cat_sat median {statistics.median(check[sandboxed]):.2f} s; "
            f"grade {given.students} submissions{' ' + ' '.join(extra) if extra else ''} "
            f"median {median:.2f} s of {given.runs} "
            f"(target ≤ 30 s) {'met' if median <= 30 else 'MISSED'}"
        )
    ratio = statistics.median(grade[True]) / statistics.median(grade[False])
    print(f"the sandbox's cost on grade: × {ratio:.2f}")


if __name__ == "__main__":
    main()
