"""Measure ``attn-tui check --impl`` on cat_sat and ``attn-tui grade`` of 30 correct submissions
on the default cases (issue 43's targets: ≤ 1 s and ≤ 30 s on the 2-core machine).

    python benchmarks/grading.py            # 3 runs of each
    python benchmarks/grading.py --runs 1

Each run is a whole ``attn-tui`` process, as a teacher runs it; the 30 submissions are the
chapter's own code (tests/grading/students/chapter.py) copied 30 times. The figures are of
whatever else the machine is doing: say how loaded it was when quoting them.
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


def timed(argv: list[str]) -> float:
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "attn_tui", *argv], cwd=ROOT, stdout=subprocess.DEVNULL, check=False
    )
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--students", type=int, default=30)
    runs = parser.parse_args().runs
    students = parser.parse_args().students
    load = os.getloadavg()[0]
    check = [timed(["check", "cat_sat", "--impl", str(CHAPTER)]) for _ in range(runs)]
    folder = Path(tempfile.mkdtemp(prefix="attn-tui-grade-bench-"))
    try:
        for i in range(students):
            shutil.copy(CHAPTER, folder / f"student_{i:02}.py")
        grade = [timed(["grade", str(folder)]) for _ in range(runs)]
    finally:
        shutil.rmtree(folder)
    print(f"(load average {load:.1f} on {os.cpu_count()} cores when started: the host was shared)")
    print(
        f"check --impl cat_sat:        median {statistics.median(check):.2f} s of {runs} "
        f"(target ≤ 1 s) {'met' if statistics.median(check) <= 1 else 'MISSED'}"
    )
    print(
        f"grade {students} correct submissions: median {statistics.median(grade):.2f} s of {runs} "
        f"(target ≤ 30 s) {'met' if statistics.median(grade) <= 30 else 'MISSED'}"
    )


if __name__ == "__main__":
    main()
