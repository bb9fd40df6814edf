"""core/loading/catalog.py: the built-in scenarios found by name, in a course's order, and the
shipped files told apart from a user's."""

from __future__ import annotations

from attn_tui.core.loading.catalog import builtins, find, is_builtin
from tests.conftest import SCENARIOS


def test_every_shipped_file_is_a_builtin_once_the_course_order_first():
    names = [builtin.name for builtin in builtins()]
    on_disk = sorted(path.stem for path in SCENARIOS.glob("*.yaml"))
    assert sorted(names) == on_disk
    # a course meets the causal mask first, then the bidirectional cat, the exaggerated query …
    assert names[:3] == ["cat_sat", "cat_sat_bidirectional", "exaggerated_query"]


def test_a_builtin_is_found_with_or_without_yaml():
    assert find("cat_sat") == find("cat_sat.yaml")
    assert find("cat_sat").read_bytes() == (SCENARIOS / "cat_sat.yaml").read_bytes()
    assert find("no_such_scenario") is None


def test_a_name_cannot_reach_outside_the_folder():
    for name in (
        "",
        ".yaml",
        "../pyproject",
        "sub/cat_sat",
        "..\\cat_sat",
        ".hidden",
        "/etc/passwd",
    ):
        assert find(name) is None, name


def test_the_shipped_files_are_told_apart_from_a_copy(tmp_path):
    assert is_builtin(SCENARIOS / "cat_sat.yaml")
    copy = tmp_path / "cat_sat.yaml"
    copy.write_bytes((SCENARIOS / "cat_sat.yaml").read_bytes())
    assert not is_builtin(copy)
