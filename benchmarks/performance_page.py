"""docs/performance.md's table of a run, made from ``benchmarks/run.py --json FILE``.

    python benchmarks/run.py --json results.json
    python benchmarks/performance_page.py results.json --run "2026-12-02, vm: 2 cores, …"
    python benchmarks/performance_page.py results.json --run "…" --update docs/performance.md

The first form prints the table as Markdown; ``--update PAGE`` puts it in PAGE between the
markers ``<!-- run.py table: begin -->`` and ``<!-- run.py table: end -->``, leaving the rest of
the page (the method, the reasons, earlier runs) as written. Each row is one of run.py's: what
was measured, the figure (its median, with the min and max of its repetitions and run.py's note),
the target, and ✓ when the median is within it, ✗ when not. A key's row ("…: added to the
floor") reads as floor + what attn-tui adds, against floor + its allowance.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

BEGIN, END = "<!-- run.py table: begin -->", "<!-- run.py table: end -->"
FLOOR = ": added to the floor"


def _number(value: float, unit: str) -> str:
    return f"{value:.2f}×" if unit == "×" else f"{value:.2f} {unit}"


def met(row: dict) -> bool | None:
    """Whether the row's median is within its target (None: a row without one)."""
    if row.get("target") is None:
        return None
    return row["median"] <= row["target"]


def cells(row: dict) -> tuple[str, str, str, str]:
    """The row's four cells: what, figure, target, ✓ / ✗."""
    what, unit = row["what"], row["unit"]
    floor = what.endswith(FLOOR)
    if floor:
        what = what[: -len(FLOOR)]
    prefix = "floor + " if floor else ""
    figure = prefix + _number(row["median"], unit)
    spread = [] if row["min"] == row["max"] else [f"{row['min']:.2f}–{row['max']:.2f}"]
    extra = "; ".join(spread + ([row["note"]] if row.get("note") else []))
    if extra:
        figure += f" ({extra})"
    target = (
        ""
        if row.get("target") is None
        else f"≤ {prefix}{row['target']:g}{'×' if unit == '×' else ' ' + unit}"
    )
    verdict = {True: "✓", False: "✗", None: ""}[met(row)]
    return what, figure, target, verdict


def table(rows: list[dict]) -> str:
    """The rows as one Markdown table."""
    lines = ["| row | figure (median; min–max) | target | met |", "| --- | --- | --- | :-: |"]
    for row in rows:
        lines.append("| " + " | ".join(cell.replace("|", "\\|") for cell in cells(row)) + " |")
    return "\n".join(lines)


def render(rows: list[dict], run: str = "") -> str:
    """The table with a line saying which run it is and how many targets it met."""
    judged = [met(row) for row in rows if met(row) is not None]
    said = (
        f"`benchmarks/run.py`{', ' + run if run else ''}: {judged.count(True)} of "
        f"{len(judged)} targets met."
    )
    return f"{said}\n\n{table(rows)}"


def update(page: str, rows: list[dict], run: str = "") -> str:
    """``page`` with the text between its markers replaced by the run's table."""
    if BEGIN not in page or END not in page:
        raise ValueError(f"the page has no {BEGIN} … {END} to replace")
    before, rest = page.split(BEGIN, 1)
    after = rest.split(END, 1)[1]
    return f"{before}{BEGIN}\n{render(rows, run)}\n{END}{after}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("results", help="the JSON file of benchmarks/run.py --json")
    parser.add_argument(
        "--run", default="", help="which run: its date and machine, as run.py prints them"
    )
    parser.add_argument("--update", metavar="PAGE", help="replace the table between PAGE's markers")
    args = parser.parse_args(argv)
    rows = json.loads(Path(args.results).read_text(encoding="utf-8"))
    if args.update:
        page = Path(args.update)
        page.write_text(update(page.read_text(encoding="utf-8"), rows, args.run), encoding="utf-8")
    else:
        sys.stdout.write(render(rows, args.run) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
