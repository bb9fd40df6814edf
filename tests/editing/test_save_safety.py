"""Saving never harms what it did not write, and always has a way to keep the edits.

A user's data file beside the scenario is never replaced; every layout can be saved somewhere;
a read-only file is not replaced, and a file keeps its owner and group.
"""

from __future__ import annotations

import json
import os
import stat

import numpy as np
import pytest

from attn_tui.core import load, loads
from attn_tui.core.editing.save import NeedsRewrite, SaveError, render
from attn_tui.core.editing.session import Session
from tests.conftest import ROOT, SCENARIOS

RNG = np.random.RandomState(1)
MINE = RNG.randn(3, 2)


@pytest.fixture
def lesson(tmp_path):
    """lesson.yaml reading Q from mine.npy, and an unrelated lesson.Q.npy beside it."""
    np.save(tmp_path / "mine.npy", MINE)
    np.save(tmp_path / "lesson.Q.npy", np.full((2, 2), 42.0))  # someone else's, same name pattern
    (tmp_path / "lesson.yaml").write_text(
        "Q: {npy: mine.npy}\nK: [[1, 0], [0, 1], [1, 1]]\nV: [[1, 0], [0, 1], [1, 1]]\n"
    )
    return tmp_path


# ---- item 5: only files attn-tui wrote for this scenario are ever replaced ---------------------


def test_an_unrelated_file_with_the_data_files_name_is_never_replaced(lesson):
    before = (lesson / "lesson.Q.npy").read_bytes()
    session = Session(load(lesson / "lesson.yaml"))
    session.set_cell("Q", 0, 0, 9.0)
    session.save()
    assert (lesson / "lesson.Q.npy").read_bytes() == before
    assert np.array_equal(np.load(lesson / "mine.npy"), MINE)
    text = (lesson / "lesson.yaml").read_text()
    assert text.startswith('Q: {npy: "lesson.Q-2.npy"}')
    assert load(lesson / "lesson.yaml").Q[0, 0] == 9.0


def test_the_file_attn_tui_wrote_is_replaced_on_the_next_save_and_no_other(lesson):
    session = Session(load(lesson / "lesson.yaml"))
    session.set_cell("Q", 0, 0, 9.0)
    session.save()
    session.set_cell("Q", 1, 1, 8.0)
    session.save()
    assert sorted(p.name for p in lesson.glob("*.npy")) == [
        "lesson.Q-2.npy",
        "lesson.Q.npy",
        "mine.npy",
    ]
    reloaded = load(lesson / "lesson.yaml")
    assert (reloaded.Q[0, 0], reloaded.Q[1, 1]) == (9.0, 8.0)


def test_a_data_file_the_user_named_like_ours_is_theirs(tmp_path):
    """Referenced by the scenario under attn-tui's own name pattern, but not written by it."""
    np.save(tmp_path / "s.Q.npy", MINE)
    (tmp_path / "s.yaml").write_text(
        "Q: {npy: s.Q.npy}\nK: [[1, 0], [0, 1], [1, 1]]\nV: [[1, 0], [0, 1], [1, 1]]\n"
    )
    session = Session(load(tmp_path / "s.yaml"))
    session.set_cell("Q", 2, 1, -1.0)
    session.save()
    assert np.array_equal(np.load(tmp_path / "s.Q.npy"), MINE)
    assert load(tmp_path / "s.yaml").files["Q"].path == str(tmp_path / "s.Q-2.npy")


def test_a_file_of_ours_changed_by_someone_else_is_theirs_again(lesson):
    session = Session(load(lesson / "lesson.yaml"))
    session.set_cell("Q", 0, 0, 9.0)
    session.save()
    np.save(lesson / "lesson.Q-2.npy", np.zeros((3, 2)))  # rewritten by another program
    session = Session(load(lesson / "lesson.yaml"))
    session.set_cell("Q", 0, 0, 5.0)
    session.save()
    assert np.array_equal(np.load(lesson / "lesson.Q-2.npy"), np.zeros((3, 2)))
    assert load(lesson / "lesson.yaml").files["Q"].path == str(lesson / "lesson.Q-3.npy")


# ---- item 6: every scenario can be saved; a fresh file when in place is impossible ---------------

SHARED_SCALAR = """\
# comments cannot survive a rewrite
causal: &t true
Q: [[1, 0], [0, 1]]
K: [[1, 0], [0, 1]]
V: [[1, 2], [3, 4]]
variants: [{name: a, causal: *t}, {name: b, scale: false}]
"""
TAGGED = "Q: [[!!int 1, 0], [0, 1]]\nK: [[1, 0], [0, 1]]\nV: [[1, 2], [3, 4]]\n"


@pytest.mark.parametrize(
    "text, edit",
    [
        (SHARED_SCALAR, lambda session: session.toggle_causal()),
        (TAGGED, lambda session: session.set_cell("Q", 0, 0, 0.5)),
    ],
    ids=["scalar-anchor-shared-with-a-variant", "tagged-number"],
)
def test_save_asks_then_writes_a_fresh_file_and_save_as_just_writes_it(write, tmp_path, text, edit):
    path = write(text)
    session = Session(load(path))
    edit(session)
    expected = session.scenario
    with pytest.raises(NeedsRewrite) as asked:
        session.save()
    assert "cannot take" in str(asked.value) and path.read_text() == text  # nothing written yet
    assert session.modified
    copy = tmp_path / "copy.yaml"
    assert session.save(str(copy)) == str(copy)  # Save As: a new file, no question
    assert load(copy).same_numbers(expected)
    session = Session(load(path))
    edit(session)
    session.save(rewrite=True)  # Save, after the user said yes
    assert load(path).same_numbers(expected) and not session.modified


def test_render_reproduces_every_builtin_and_example_with_every_field(tmp_path):
    sources = [*SCENARIOS.glob("*.yaml"), *(ROOT / "docs" / "examples").glob("*.yaml")]
    for source in sources:
        scenario = load(source)
        edited = scenario.with_cell(scenario.editable[0], 0, 0, 0.1 + 1e-17)
        for case in (scenario, edited):
            target = tmp_path / source.name
            saving = render(case, str(target))
            for path, values in saving.arrays.items():
                np.save(path, values)
            again = loads(saving.text, str(target))
            assert again.same_numbers(case), source.name
            for field in ("title", "description", "tokens", "focus", "precision", "predict"):
                assert getattr(again, field) == getattr(case, field), (source.name, field)


def test_render_keeps_expect_predict_and_hostile_text(tmp_path):
    text = (
        'title: "a\\e]0;x\\a [/INST]"\ndescription: "two\\nlines\\u202e"\n'
        'tokens: ["\\x85x", "on", "1", "~"]\n'
        "Q: &q [[1, 0], [0, 1], [1, 1], [2, 0]]\nK: *q\nV: *q\nmask_value: -1e9\nfocus: 2\n"
        "precision: 4\npredict: [weights]\nexpect_tolerance: 0.01\n"
        "expect: {output: [[1, 0], [~, .nan], [-.inf, 2], [0, 0]]}\n"
        'variants: [{name: "v\\u2066", mask_value: -.inf, causal: false}]\n'
    )
    scenario = loads(text, str(tmp_path / "s.yaml"))
    again = loads(render(scenario, str(tmp_path / "s.yaml")).text, str(tmp_path / "s.yaml"))
    assert again.same_numbers(scenario)
    assert (again.title, again.description, again.tokens) == (
        scenario.title,
        scenario.description,
        scenario.tokens,
    )
    assert again.predict == ("weights",) and again.focus == 1 and again.precision == 4
    assert again.variants == scenario.variants


def test_render_refers_to_data_files_and_writes_edited_ones_beside_the_target(tmp_path):
    np.savez(tmp_path / "head.npz", Q=MINE, K=MINE, V=MINE)
    (tmp_path / "s.yaml").write_text("npz: head.npz\nK: [[1, 0], [0, 1], [1, 1]]\n")
    scenario = load(tmp_path / "s.yaml").with_cell("Q", 0, 0, 3.0)
    (tmp_path / "out").mkdir()
    saving = render(scenario, str(tmp_path / "out" / "s.yaml"))
    assert list(saving.arrays) == [str(tmp_path / "out" / "s.Q.npy")]
    np.save(tmp_path / "out" / "s.Q.npy", saving.arrays[str(tmp_path / "out" / "s.Q.npy")])
    again = loads(saving.text, str(tmp_path / "out" / "s.yaml"))
    assert again.same_numbers(scenario) and 'npz: "../head.npz"' in saving.text


# ---- item 9: protections, owner and group ------------------------------------------------------


def test_a_read_only_file_is_not_replaced_and_save_as_still_works(write, tmp_path, monkeypatch):
    """As root nothing is read-only; os.access answers as it would for a normal user."""
    path = write((SCENARIOS / "cat_sat.yaml").read_text())
    before = path.read_text()
    os.chmod(path, 0o444)
    real_access = os.access
    monkeypatch.setattr(
        "attn_tui.core.files.atomic_write.os.access",
        lambda p, mode, **kw: (
            False
            if os.path.realpath(p) == str(path) and mode & os.W_OK
            else real_access(p, mode, **kw)
        ),
    )
    session = Session(load(path))
    session.set_cell("Q", 0, 0, 7.0)
    with pytest.raises(SaveError) as refused:
        session.save()
    assert "read-only" in str(refused.value) and "Save As" in str(refused.value)
    assert path.read_text() == before and stat.S_IMODE(os.stat(path).st_mode) == 0o444
    session.save(str(tmp_path / "copy.yaml"))
    assert load(tmp_path / "copy.yaml").Q[0, 0] == 7.0


@pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() != 0, reason="giving a file away needs root"
)
def test_owner_group_and_mode_are_kept(write):
    path = write((SCENARIOS / "cat_sat.yaml").read_text())
    os.chown(path, 65534, 65534)  # nobody:nogroup
    os.chmod(path, 0o640)
    session = Session(load(path))
    session.set_cell("Q", 0, 0, 7.0)
    session.save()
    info = os.stat(path)
    assert (info.st_uid, info.st_gid, stat.S_IMODE(info.st_mode)) == (65534, 65534, 0o640)
    assert load(path).Q[0, 0] == 7.0


def test_a_file_whose_owner_cannot_be_kept_is_not_replaced(write, monkeypatch):
    """A normal user may write a group-writable file of someone else's but not give the new one
    away: replacing it would change its owner, so it is refused (Save As still works)."""
    path = write((SCENARIOS / "cat_sat.yaml").read_text())
    before = path.read_text()
    owner = os.stat(path).st_uid

    def refuse(target, uid, gid, **kwargs):
        raise PermissionError(1, "Operation not permitted", target)

    monkeypatch.setattr("attn_tui.core.files.atomic_write.os.chown", refuse)
    monkeypatch.setattr("attn_tui.core.files.atomic_write.os.stat", _owned_by(path, owner + 1))
    session = Session(load(path))
    session.set_cell("Q", 0, 0, 7.0)
    with pytest.raises(SaveError) as refused:
        session.save()
    assert "owner" in str(refused.value) and "Save As" in str(refused.value)
    assert path.read_text() == before
    assert [p.name for p in path.parent.iterdir()] == [path.name]  # no temporary file left


def _owned_by(path, uid):
    real_stat = os.stat

    class Faked:
        def __init__(self, info):
            self._info = info

        def __getattr__(self, name):
            return uid if name == "st_uid" else getattr(self._info, name)

    def fake(target, *args, **kwargs):
        info = real_stat(target, *args, **kwargs)
        return Faked(info) if os.path.realpath(target) == os.path.realpath(path) else info

    return fake


def test_the_record_of_written_files_is_small_json(lesson, state_folder):
    session = Session(load(lesson / "lesson.yaml"))
    session.set_cell("Q", 0, 0, 9.0)
    session.save()
    records = json.loads((state_folder / "attn-tui" / "written-data-files.json").read_text())
    assert list(records) == [str(lesson / "lesson.Q-2.npy")]
    assert records[str(lesson / "lesson.Q-2.npy")]["for"] == str(lesson / "lesson.yaml")


async def test_the_app_asks_before_rewriting_and_keeps_the_edits_if_not(write):
    from attn_tui.tui.screens.choice import ChoiceScreen
    from tests.tui_helpers import debugger, running

    path = write(SHARED_SCALAR)
    async with running(path) as (app, pilot):
        await pilot.press("c", "ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, ChoiceScreen)
        await pilot.press("escape")  # Cancel: nothing written, the edit stays
        await pilot.pause()
        assert path.read_text() == SHARED_SCALAR and debugger(app).session.modified
        await pilot.press("ctrl+s")
        await pilot.pause()
        await pilot.press("r")  # Rewrite
        await pilot.pause()
        assert not debugger(app).session.modified
    saved = load(path)
    assert saved.options.causal is False and saved.variants[0].causal is True
