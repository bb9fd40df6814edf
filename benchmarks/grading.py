"""Measure ``attn-tui check --impl`` on cat_sat, ``attn-tui grade`` of 30 correct submissions
on the default cases, and ``grade`` of 30 Colab notebooks in a Gradescope-like export (targets:
≤ 1 s, ≤ 30 s and ≤ 30 s on the 2-core machine).

    python benchmarks/grading.py            # 3 runs of each
    python benchmarks/grading.py --runs 1
    python benchmarks/grading.py --torch    # the Colab notebooks in PyTorch too (minutes)

Each run is a whole ``attn-tui`` process, as a teacher runs it; the 30 submissions are the
chapter's own code (tests/grading/students/chapter.py) copied 30 times; the 30 notebooks are
tests/grading/notebooks/colab_numpy.ipynb (as Colab saves it: shell lines, %%time, a Drive mount
and input() that fail, a display call), one in each student's folder. With --torch, also
colab.ipynb, whose worker imports PyTorch (about a second each, more on a loaded host): that cost
is PyTorch's, not the notebook's. The figures are of whatever else the machine is doing: say how
loaded it was when quoting them.
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
NOTEBOOKS = ROOT / "tests" / "grading" / "notebooks"


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
    parser.add_argument("--torch", action="store_true", help="the PyTorch Colab notebook too")
    runs = parser.parse_args().runs
    students = parser.parse_args().students
    with_torch = parser.parse_args().torch
    load = os.getloadavg()[0]
    check = [timed(["check", "cat_sat", "--impl", str(CHAPTER)]) for _ in range(runs)]
    folder = Path(tempfile.mkdtemp(prefix="attn-tui-grade-bench-"))
    try:
        for i in range(students):
            shutil.copy(CHAPTER, folder / f"student_{i:02}.py")
        grade = [timed(["grade", str(folder)]) for _ in range(runs)]
    finally:
        shutil.rmtree(folder)
    notebooks = {
        name: notebooks_graded(NOTEBOOKS / f"{name}.ipynb", students, runs)
        for name in ["colab_numpy"] + (["colab"] if with_torch else [])
    }
    print(f"(load average {load:.1f} on {os.cpu_count()} cores when started: the host was shared)")
    print(
        f"check --impl cat_sat:        median {statistics.median(check):.2f} s of {runs} "
        f"(target ≤ 1 s) {'met' if statistics.median(check) <= 1 else 'MISSED'}"
    )
    print(
        f"grade {students} correct submissions: median {statistics.median(grade):.2f} s of {runs} "
        f"(target ≤ 30 s) {'met' if statistics.median(grade) <= 30 else 'MISSED'}"
    )
    for name, seconds in notebooks.items():
        median = statistics.median(seconds)
        target = "(target ≤ 30 s) " + ("met" if median <= 30 else "MISSED")
        print(
            f"grade {students} Colab notebooks ({name}.ipynb): median {median:.2f} s of {runs} "
            + (target if name == "colab_numpy" else "(PyTorch imported in every worker)")
        )


def notebooks_graded(notebook: Path, students: int, runs: int) -> list[float]:
    """``grade`` of an export with one student's folder each holding the notebook."""
    folder = Path(tempfile.mkdtemp(prefix="attn-tui-grade-notebooks-"))
    try:
        for i in range(students):
            (folder / f"submission_{i:03}").mkdir()
            shutil.copy(notebook, folder / f"submission_{i:03}" / "homework.ipynb")
        return [timed(["grade", str(folder)]) for _ in range(runs)]
    finally:
        shutil.rmtree(folder)


if __name__ == "__main__":
    main()
