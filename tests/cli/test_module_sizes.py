"""No module of the project over 400 lines (issue 28), its tests included (issue 46): past that,
a module has usually grown a second concern, and a reader can no longer hold it at once. Counted
as ``wc -l`` does."""

from tests.conftest import ROOT

LIMIT = 400
FOLDERS = ("core", "tui", "capture", "grading", "benchmarks", "attn_tui", "docs", ".ci", "tests")


def line_counts(root, folders) -> dict[str, int]:
    """Each ``.py`` file's line count under ``root``'s ``folders``, by its path from ``root``."""
    return {
        path.relative_to(root).as_posix(): path.read_bytes().count(b"\n")
        for folder in folders
        for path in (root / folder).rglob("*.py")
    }


def over_the_limit(found: dict[str, int]) -> str:
    """What the test says when modules are over: each one, longest first, with its lines."""
    over = sorted(((lines, path) for path, lines in found.items() if lines > LIMIT), reverse=True)
    return "".join(f"\n  {path}: {lines} lines" for lines, path in over)


def test_no_module_is_over_400_lines():
    found = line_counts(ROOT, FOLDERS)
    assert len(found) > 300  # (the folders were found: the tests' 200 among them)
    over = over_the_limit(found)
    assert not over, f"over {LIMIT} lines, split by what they hold:{over}"


def test_the_message_names_each_module_over_and_no_other(tmp_path):
    # made-up folders: a made-up path under core/ or tests/ would fail test_module_paths
    for name, lines in (
        ("alpha/deep/long.py", LIMIT + 1),
        ("alpha/ok.py", LIMIT),
        ("beta/longer.py", LIMIT + 50),
    ):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("x = 1\n" * lines)
    message = over_the_limit(line_counts(tmp_path, ("alpha", "beta")))
    assert (
        message
        == f"\n  beta/longer.py: {LIMIT + 50} lines\n  alpha/deep/long.py: {LIMIT + 1} lines"
    )
