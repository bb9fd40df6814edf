"""A served app saves only inside its folder, never over a file it did not write itself."""

from __future__ import annotations

import os

import numpy as np
import pytest

from attn_tui.core import load
from attn_tui.core.editing.save import SaveError
from attn_tui.core.editing.save_root import OutsideSaveRoot, SaveRoot
from attn_tui.core.editing.session import Session
from tests.conftest import SCENARIOS


@pytest.fixture
def folders(tmp_path, monkeypatch):
    """A class folder, a folder beside it standing for the rest of the disk, and a working
    directory elsewhere (relative names must not be taken from it)."""
    root, outside, cwd = tmp_path / "class", tmp_path / "outside", tmp_path / "cwd"
    for folder in (root, outside, cwd):
        folder.mkdir()
    monkeypatch.chdir(cwd)
    return root, outside


def contents(folder) -> list[str]:
    return sorted(os.listdir(folder))


@pytest.mark.parametrize(
    "name, reason",
    [
        ("../x.yaml", "outside the folder"),
        ("sub/../../x.yaml", "outside the folder"),
        ("/etc/passwd", "outside the folder"),
        ("~/x.yaml", None),  # not expanded here: a file literally named so, inside (see below)
        ("", "type a file name"),
        ("   ", "type a file name"),
        ("a\x1b]0;owned\x07.yaml", "control characters"),
        ("two\nlines.yaml", "control characters"),
        ("sub/", "is a folder"),
        (".", "is a folder"),
    ],
)
def test_hostile_names_are_refused_with_the_reason(folders, name, reason):
    root, _ = folders
    (root / "sub").mkdir()
    save_root = SaveRoot(root)
    if reason is None:
        assert save_root.resolve(name) == os.path.join(os.path.realpath(root), "~", "x.yaml")
        return
    with pytest.raises(OutsideSaveRoot, match=reason) as refused:
        save_root.resolve(name)
    message = str(refused.value)
    assert not any(ord(c) < 0x20 or 0x7F <= ord(c) < 0xA0 for c in message), repr(message)
    if "\x1b" in name:
        assert "␛]0;owned␇" in message  # shown, not obeyed
    if "\n" in name:
        assert "two␊lines.yaml" in message


def test_symbolic_links_that_lead_out_are_refused(folders):
    root, outside = folders
    (outside / "theirs.yaml").write_text("precious\n")
    (root / "to_file.yaml").symlink_to(outside / "theirs.yaml")
    (root / "to_nothing.yaml").symlink_to(outside / "new.yaml")
    (root / "to_folder").symlink_to(outside, target_is_directory=True)
    save_root = SaveRoot(root)
    for name in (
        "to_file.yaml",
        "to_nothing.yaml",
        "to_folder/x.yaml",
        str(root / "to_folder/x.yaml"),
    ):
        with pytest.raises(OutsideSaveRoot, match="outside the folder"):
            save_root.resolve(name)


def test_a_link_as_the_folder_itself_is_followed_once(tmp_path):
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "link").symlink_to(real, target_is_directory=True)
    save_root = SaveRoot(tmp_path / "link")
    assert save_root.folder == str(real)
    assert save_root.resolve("a.yaml") == str(real / "a.yaml")


def test_relative_names_come_from_the_folder_and_absolute_ones_inside_it_are_fine(folders):
    root, _ = folders
    save_root = SaveRoot(root)
    real = os.path.realpath(root)
    assert save_root.resolve("mine.yaml") == os.path.join(real, "mine.yaml")
    assert save_root.resolve(os.path.join(real, "mine.yaml")) == os.path.join(real, "mine.yaml")
    assert save_root.resolve("a/../mine.yaml") == os.path.join(real, "mine.yaml")


def test_a_file_this_app_did_not_write_is_never_replaced(folders):
    root, _ = folders
    (root / "lecture.yaml").write_text("the lecturer's\n")
    save_root = SaveRoot(root)
    with pytest.raises(OutsideSaveRoot, match="lecture.yaml already exists and was not saved from"):
        save_root.resolve("lecture.yaml")
    path = save_root.resolve("mine.yaml")
    open(path, "w").close()
    save_root.written(path)
    assert save_root.resolve("mine.yaml") == path  # its own file: saving again is fine
    with pytest.raises(OutsideSaveRoot, match="already exists"):
        SaveRoot(root).resolve("mine.yaml")  # another browser's app


def test_a_served_session_saves_a_copy_in_the_folder_and_only_there(folders, state_folder):
    root, outside = folders
    session = Session(load(SCENARIOS / "cat_sat.yaml"), read_only=True, save_root=SaveRoot(root))
    session.set_cell("Q", 0, 0, 7.0)
    assert not session.journal.path and not os.path.exists(state_folder / "attn-tui")
    for name in ("../x.yaml", str(outside / "x.yaml"), "\x1b[2J.yaml"):
        with pytest.raises(OutsideSaveRoot):
            session.save(name)
    with pytest.raises(SaveError, match="built-in"):
        session.save()  # the served scenario itself is never overwritten
    assert contents(root) == [] and contents(outside) == []
    written = session.save("mine.yaml")
    assert written == os.path.join(os.path.realpath(root), "mine.yaml")
    assert load(written).Q[0, 0] == 7.0
    session.set_cell("Q", 0, 1, 8.0)
    assert session.save() == written  # then ctrl+s updates the student's own copy
    assert load(written).Q[0].tolist()[:2] == [7.0, 8.0]
    assert contents(root) == ["mine.yaml"] and contents(outside) == []
    assert (SCENARIOS / "cat_sat.yaml").read_text() == load(SCENARIOS / "cat_sat.yaml").source.text


def test_a_served_file_inside_the_folder_is_not_replaced_by_save_as(folders):
    root, _ = folders
    served = root / "lecture.yaml"
    served.write_text((SCENARIOS / "cat_sat.yaml").read_text())
    before = served.read_text()
    session = Session(load(served), read_only=True, save_root=SaveRoot(root))
    session.set_cell("K", 1, 1, 3.0)
    with pytest.raises(OutsideSaveRoot, match="already exists"):
        session.save("lecture.yaml", force=True)  # not even when told to overwrite
    assert served.read_text() == before


def test_a_data_file_name_taken_by_a_link_out_is_passed_over(folders):
    """An edited .npy matrix goes to <name>.Q.npy beside the copy; a link planted there (to a
    file outside the folder) is never written through: the data goes to a fresh name inside."""
    root, outside = folders
    np.save(root / "q.npy", np.eye(2))
    (root / "s.yaml").write_text(
        "tokens: [a, b]\nQ: {npy: q.npy}\nK: [[1, 0], [0, 1]]\nV: [[1, 2], [3, 4]]\n"
    )
    (root / "copy.Q.npy").symlink_to(outside / "stolen.npy")
    session = Session(load(root / "s.yaml"), read_only=True, save_root=SaveRoot(root))
    session.set_cell("Q", 0, 0, 5.0)
    written = session.save("copy.yaml")
    assert contents(outside) == [] and os.readlink(root / "copy.Q.npy") == str(
        outside / "stolen.npy"
    )
    assert load(written).Q[0, 0] == 5.0
    assert set(contents(root)) - {"copy.Q.npy", "q.npy", "s.yaml", "copy.yaml"} == {"copy.Q-2.npy"}
    assert np.load(root / "q.npy")[0, 0] == 1.0  # the lecturer's data file is untouched


def test_every_file_a_save_writes_is_checked_before_any_is_written(folders, monkeypatch):
    """Were a data file's path ever to lead outside the folder, nothing at all is written."""
    from attn_tui.core.editing import save as saving

    root, outside = folders
    np.save(root / "q.npy", np.eye(2))
    (root / "s.yaml").write_text(
        "tokens: [a, b]\nQ: {npy: q.npy}\nK: [[1, 0], [0, 1]]\nV: [[1, 2], [3, 4]]\n"
    )
    session = Session(load(root / "s.yaml"), read_only=True, save_root=SaveRoot(root))
    session.set_cell("Q", 0, 0, 5.0)
    monkeypatch.setattr(saving, "data_file", lambda target, name: str(outside / f"{name}.npy"))
    with pytest.raises(OutsideSaveRoot, match="Q.npy"):
        session.save("copy.yaml")
    assert contents(root) == ["q.npy", "s.yaml"] and contents(outside) == []


def test_the_folder_must_exist(tmp_path):
    with pytest.raises(ValueError, match="not a folder"):
        SaveRoot(tmp_path / "missing")
