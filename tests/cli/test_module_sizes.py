"""No module of the project over 400 lines (issue 28): past that, a module has usually grown a
second concern, and a reader can no longer hold it at once. Counted as ``wc -l`` does."""

from tests.conftest import ROOT

LIMIT = 400
FOLDERS = ("core", "tui", "capture", "grading", "benchmarks", "attn_tui", "docs", ".ci")


def test_no_module_is_over_400_lines():
    found = {path.relative_to(ROOT).as_posix(): path.read_bytes().count(b"\n")
             for folder in FOLDERS for path in (ROOT / folder).rglob("*.py")}
    assert len(found) > 100  # (the folders were found)
    over = {path: lines for path, lines in found.items() if lines > LIMIT}
    assert not over, f"over {LIMIT} lines: {over}"
