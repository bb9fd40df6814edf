"""core/editing/session_file.py: a session's file: whether the settings differ from it, whether
the file on disk is still the one loaded, saving to it or to another, and the note under a
description that may no longer hold."""

from __future__ import annotations

import dataclasses

import pytest

from attn_tui.core import load, loads
from attn_tui.core.editing.session import DiskChanged, SaveError, Session
from attn_tui.core.editing.session_file import same_settings
from attn_tui.core.loading.catalog import find
from attn_tui.core.model.options import Variant

ONE_DIMENSION = """\
tokens: [a, b]
causal: false
Q: [[1], [2]]
K: [[1], [0]]
V: [[1], [3]]
"""


def test_same_settings_compares_options_variants_and_the_students_values():
    scenario = loads(ONE_DIMENSION)
    assert same_settings(scenario, loads(ONE_DIMENSION))
    assert not same_settings(scenario, scenario.with_options(causal=True))
    assert not same_settings(
        scenario, dataclasses.replace(scenario, variants=(Variant("u", scale=False),))
    )
    assert not same_settings(scenario, loads(ONE_DIMENSION + "expect: {output: [[1], [2]]}\n"))


def test_dividing_by_root_one_is_not_the_same_setting_as_dividing_by_one():
    """With d_k = 1, ÷√1 and ÷1 give the same numbers, and True == 1.0 in Python; but a file
    saying scale: 1 is not one saying nothing."""
    scenario = loads(ONE_DIMENSION)
    assert scenario.options.scale is True
    assert not same_settings(scenario, scenario.with_options(scale=1.0))


def test_a_file_changed_on_disk_refuses_the_save_unless_forced(write):
    path = write(ONE_DIMENSION)
    session = Session(load(path), keep_recovery=False)
    session.set_cell("V", 1, 0, 4.0)
    path.write_text(ONE_DIMENSION.replace("[3]", "[5]"))  # someone else's edit
    with pytest.raises(DiskChanged, match="was changed on disk since it was loaded"):
        session.save()
    assert load(path).inputs["V"].tolist() == [[1], [5]]  # theirs, untouched
    session.save(force=True)
    assert load(path).inputs["V"].tolist() == [[1], [4]]


def test_a_deleted_file_is_said_so(write):
    path = write(ONE_DIMENSION)
    session = Session(load(path), keep_recovery=False)
    path.unlink()
    with pytest.raises(DiskChanged, match="was deleted or cannot be read"):
        session.check_disk()


def test_save_as_refuses_an_existing_file_unless_forced_and_then_saves_there(write, tmp_path):
    path = write(ONE_DIMENSION)
    other = tmp_path / "other.yaml"
    other.write_text("not mine\n")
    session = Session(load(path), keep_recovery=False)
    session.set_cell("Q", 0, 0, 7.0)
    with pytest.raises(DiskChanged, match="already exists"):
        session.save(str(other))
    assert other.read_text() == "not mine\n"
    assert session.save(str(other), force=True) == str(other)
    assert load(other).inputs["Q"].tolist() == [[7], [2]]
    assert load(path).inputs["Q"].tolist() == [[1], [2]]  # the first file as it was
    assert not session.modified


def test_a_builtin_opened_by_name_or_a_scenario_without_a_file_is_not_overwritten():
    builtin = Session(load(find("cat_sat")), read_only=True, keep_recovery=False)
    no_file = Session(dataclasses.replace(loads(ONE_DIMENSION), path=None), keep_recovery=False)
    for session in (builtin, no_file):
        assert session.read_only
        with pytest.raises(SaveError, match="a built-in scenario is not overwritten"):
            session.save()


def test_the_description_note_says_what_no_longer_holds(write):
    session = Session(load(write(ONE_DIMENSION)), keep_recovery=False)
    assert session.description_note == ""
    session.set_cell("K", 1, 0, 1.0)
    assert (
        session.description_note
        == "\n(as written in the file; the numbers have been changed since)"
    )
