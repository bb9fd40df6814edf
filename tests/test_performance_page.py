"""docs/performance.md's table is made from benchmarks/run.py --json by
benchmarks/performance_page.py: the generator marks a met target ✓ and a missed one ✗, replaces only
its table, and the page holds what it makes from the checked-in run."""

from __future__ import annotations

import pytest

from tests.conftest import ROOT, load_script


def page(name: str) -> str:
    return (ROOT / name).read_text(encoding="utf-8")


def performance_page():
    return load_script(ROOT / "benchmarks" / "performance_page.py")


ROWS = [  # as benchmarks/run.py --json writes them (benchmarks/results_table.py row()), by hand
    {
        "what": "edit a Q cell (+), T = 16: added to the floor",
        "median": 10.5,
        "min": 2.8,
        "max": 30.0,
        "unit": "ms",
        "target": 20,
        "ok": True,
        "n": 3,
        "note": "floor 8.8 ms, attn-tui 19.3 ms",
    },
    {
        "what": "--print, T = 1024",
        "median": 2.65,
        "min": 2.38,
        "max": 3.05,
        "unit": "s",
        "target": 2.0,
        "ok": False,
        "n": 3,
        "note": "",
    },
    {
        "what": "start ÷ bare | app",
        "median": 1.5,
        "min": 1.5,
        "max": 1.5,
        "unit": "×",
        "target": 1.5,
        "ok": True,
        "n": 1,
        "note": "",
    },
    {
        "what": "RSS, opened",
        "median": 105.0,
        "min": 105.0,
        "max": 105.0,
        "unit": "MB",
        "target": None,
        "ok": None,
        "n": 1,
        "note": "",
    },
]


def test_the_performance_generator_marks_met_and_missed_targets():
    made = performance_page().render(ROWS, "2026-12-03, test")
    lines = made.split("\n")
    # 10.5 ≤ 20 met; 2.65 > 2.0 missed; 1.5 ≤ 1.5 met (at the target is within it); no target:
    # no mark
    assert lines[0] == "`benchmarks/run.py`, 2026-12-03, test: 2 of 3 targets met."
    assert lines[2:4] == [
        "| row | figure (median; min–max) | target | met |",
        "| --- | --- | --- | :-: |",
    ]
    assert lines[4] == (
        "| edit a Q cell (+), T = 16 | floor + 10.50 ms (2.80–30.00; floor 8.8 ms, "
        "attn-tui 19.3 ms) | ≤ floor + 20 ms | ✓ |"
    )
    assert lines[5] == "| --print, T = 1024 | 2.65 s (2.38–3.05) | ≤ 2 s | ✗ |"
    assert lines[6] == "| start ÷ bare \\| app | 1.50× | ≤ 1.5× | ✓ |"
    assert lines[7] == "| RSS, opened | 105.00 MB |  |  |"


def test_the_performance_generator_replaces_only_its_table():
    module = performance_page()
    before = f"# Page\n\nkept\n\n{module.BEGIN}\nold table\n{module.END}\n\nkept too\n"
    after = module.update(before, ROWS[:1])
    assert after.startswith("# Page\n\nkept\n\n") and after.endswith(f"{module.END}\n\nkept too\n")
    assert "old table" not in after and "✓" in after
    with pytest.raises(ValueError):
        module.update("# no markers\n", ROWS)


def test_the_performance_page_is_made_from_the_checked_in_run():
    import json

    module = performance_page()
    text = page("docs/performance.md")
    latest = sorted((ROOT / "benchmarks" / "runs").glob("*.json"))[-1]  # (named by their dates)
    rows = json.loads(latest.read_text(encoding="utf-8"))
    assert all(row["ok"] == module.met(row) for row in rows)  # run.py's verdict is the page's
    shown = text.split(module.BEGIN + "\n", 1)[1].split("\n" + module.END, 1)[0]
    assert shown == module.render(rows, f"{latest.stem}, vm: 2 cores, Python 3.11.7, Linux x86_64")
