"""Saving never harms what it did not write.

Issue 10: a read-only file was replaced and a file's owner and group were lost (item 9).
"""

from __future__ import annotations

import os
import stat

import pytest

from attn_tui.core import load, loads
from attn_tui.core.save import SaveError
from attn_tui.core.session import Session
from tests.conftest import SCENARIOS

# ---- item 9: protections, owner and group ------------------------------------------------------

def test_a_read_only_file_is_not_replaced_and_save_as_still_works(write, tmp_path, monkeypatch):
    """As root nothing is read-only; os.access answers as it would for a normal user."""
    path = write((SCENARIOS / "cat_sat.yaml").read_text())
    before = path.read_text()
    os.chmod(path, 0o444)
    real_access = os.access
    monkeypatch.setattr("attn_tui.core.atomic_write.os.access",
                        lambda p, mode, **kw: False if os.path.realpath(p) == str(path) and mode & os.W_OK
                        else real_access(p, mode, **kw))
    session = Session(load(path))
    session.set_cell("Q", 0, 0, 7.0)
    with pytest.raises(SaveError) as refused:
        session.save()
    assert "read-only" in str(refused.value) and "Save As" in str(refused.value)
    assert path.read_text() == before and stat.S_IMODE(os.stat(path).st_mode) == 0o444
    session.save(str(tmp_path / "copy.yaml"))
    assert load(tmp_path / "copy.yaml").Q[0, 0] == 7.0


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="giving a file away needs root")
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

    monkeypatch.setattr("attn_tui.core.atomic_write.os.chown", refuse)
    monkeypatch.setattr("attn_tui.core.atomic_write.os.stat", _owned_by(path, owner + 1))
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
