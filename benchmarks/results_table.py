"""benchmarks/run.py's table: a row per measurement (its median, min and max against its
target, as ``--json`` writes it and benchmarks/performance_page.py reads it), and the table
printed."""

from __future__ import annotations

import json
import os
import platform
import statistics
import time
from pathlib import Path


def row(what: str, values: list[float], target: float | None, unit: str, note: str = "") -> dict:
    median = statistics.median(values)
    return {
        "what": what,
        "median": median,
        "min": min(values),
        "max": max(values),
        "unit": unit,
        "target": target,
        "ok": None if target is None else median <= target,
        "n": len(values),
        "note": note,
    }


def key_row(what: str, ours: list[float], bare: list[float], allowance_ms: float) -> list[dict]:
    """attn-tui's key, as floor + what it adds; the target is floor + ``allowance_ms``."""
    floor = statistics.median(bare) * 1000
    added = [o * 1000 - floor for o in ours]
    return [
        row(
            f"{what}: added to the floor",
            added,
            allowance_ms,
            "ms",
            f"floor {floor:.1f} ms, attn-tui {statistics.median(ours) * 1000:.1f} ms",
        )
    ]


def report(rows: list[dict], json_file: str | None) -> None:
    print(
        f"attn-tui benchmarks, {time.strftime('%Y-%m-%d')}, {platform.node() or 'machine'}: "
        f"{os.cpu_count()} cores, Python {platform.python_version()}, "
        f"{platform.system()} {platform.machine()}"
    )
    print(f"{'what':<62}{'median':>9}{'min':>9}{'max':>9}{'target':>11}")
    for item in rows:
        target = "" if item["target"] is None else f"≤ {item['target']:g} {item['unit']}"
        verdict = "" if item["ok"] is None else ("ok" if item["ok"] else "MISSED")
        print(
            f"{item['what']:<62}{item['median']:9.2f}{item['min']:9.2f}{item['max']:9.2f}"
            f"{target:>11}  {verdict}"
        )
        if item["note"]:
            print(f"    ({item['note']})")
    if json_file:
        Path(json_file).write_text(json.dumps(rows, indent=1))
