"""No module of the project over 1,000 lines, its tests included: past that no reader holds a
module at once. Below it the sizes are a report (benchmarks/module_sizes.py lists the largest),
not a gate: a module is split where its ideas part, not where a count falls. Counted as
``wc -l`` does."""

from tests.conftest import ROOT, load_script

SIZES = load_script(ROOT / "benchmarks" / "module_sizes.py")


def test_no_module_is_over_1000_lines():
    found = SIZES.line_counts(ROOT, SIZES.FOLDERS)
    assert len(found) > 300  # (the folders were found: the tests' 200 among them)
    too_long = "".join(f"\n  {path}: {lines} lines" for path, lines in SIZES.over(found, 1000))
    assert not too_long, f"over 1,000 lines, split by what they hold:{too_long}"


def made_up(tmp_path, sizes: dict[str, int]) -> dict[str, int]:
    # made-up folders: a made-up path under core/ or tests/ would fail test_module_paths
    for name, lines in sizes.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("x = 1\n" * lines)
    return SIZES.line_counts(tmp_path, ("alpha", "beta"))


def test_the_files_over_a_limit_are_each_named_longest_first(tmp_path):
    found = made_up(
        tmp_path, {"alpha/deep/long.py": 1001, "alpha/ok.py": 1000, "beta/longer.py": 1050}
    )
    assert SIZES.over(found, 1000) == [("beta/longer.py", 1050), ("alpha/deep/long.py", 1001)]


def test_the_report_counts_and_lists_the_largest(tmp_path):
    found = made_up(
        tmp_path,
        {"alpha/a.py": 12, "alpha/b.py": 401, "beta/c.py": 1200, "beta/d.py": 400, "beta/e.py": 3},
    )
    assert SIZES.report(found, 3) == (
        "5 files; 2 over 400 lines, 1 over 1,000\n"
        "  1200  beta/c.py\n"
        "   401  alpha/b.py\n"
        "   400  beta/d.py"
    )
