"""The project's largest modules, by lines: a report to read, not a gate. A long module has often
grown a second concern, but splitting one to fit a number splits it by size, not by idea; the
one hard limit, 1,000 lines, is tests/cli/test_module_sizes.py's.

    python benchmarks/module_sizes.py            # the 25 largest
    python benchmarks/module_sizes.py --top 60

Counts every ``.py`` file under the project's folders as ``wc -l`` does (newlines), and prints
them longest first, with how many files were counted and how many are over 400 lines.
"""

from __future__ import annotations

import argparse
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FOLDERS = ("core", "tui", "capture", "grading", "benchmarks", "attn_tui", "docs", ".ci", "tests")
LIMIT = 1_000  # no module over it: the one size the tests hold
NOTICE = 400  # past it, a module is worth a look: does it hold one idea?


def line_counts(root: Path = ROOT, folders: tuple[str, ...] = FOLDERS) -> dict[str, int]:
    """Each ``.py`` file's line count under ``root``'s ``folders``, by its path from ``root``."""
    return {
        path.relative_to(root).as_posix(): path.read_bytes().count(b"\n")
        for folder in folders
        for path in (root / folder).rglob("*.py")
    }


def largest(found: dict[str, int], top: int) -> list[tuple[str, int]]:
    """The ``top`` longest files, longest first (ties by path)."""
    return sorted(found.items(), key=lambda item: (-item[1], item[0]))[:top]


def over(found: dict[str, int], limit: int) -> list[tuple[str, int]]:
    """Every file over ``limit`` lines, longest first."""
    return [(path, lines) for path, lines in largest(found, len(found)) if lines > limit]


def report(found: dict[str, int], top: int) -> str:
    """How many files, how many over NOTICE and LIMIT, then the ``top`` longest, a line each."""
    summary = (
        f"{len(found)} files; {len(over(found, NOTICE))} over {NOTICE} lines, "
        f"{len(over(found, LIMIT))} over {LIMIT:,}"
    )
    return "\n".join([summary] + [f"{lines:>6}  {path}" for path, lines in largest(found, top)])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--top", type=int, default=25, help="how many to list (25)")
    arguments = parser.parse_args(argv)
    print(report(line_counts(), max(0, arguments.top)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
