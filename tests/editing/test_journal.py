"""core/editing/journal.py: a session's recovery copy, written after each change while something
is unsaved, gone once nothing is, held back until the frame when deferred, and offered back to
the next session on the same file, which replays what fits and says what it skipped."""

from __future__ import annotations

import os

import pytest

from attn_tui.core import load
from attn_tui.core.editing import recovery
from attn_tui.core.editing.session import Session
from attn_tui.core.model.edits import SetCell, SetOption

TWO_TOKENS = """\
tokens: [a, b]
causal: false
Q: [[1, 0], [0, 1]]
K: [[1, 0], [0, 1]]
V: [[1, 2], [3, 4]]
"""


@pytest.fixture
def path(write):
    return write(TWO_TOKENS)


def kept_edits(session: Session) -> tuple:
    found = recovery.read(session.journal.path, session.disk_text)
    return () if found is None else found.edits


def test_each_change_keeps_the_net_edits_and_none_left_removes_the_copy(path):
    session = Session(load(path))
    copy = session.journal.path
    assert not os.path.exists(copy)
    session.set_cell("V", 0, 0, 5.0)
    session.set_cell("V", 0, 0, 6.0)
    assert kept_edits(session) == (SetCell("V", 0, 0, 6.0, 1.0),)  # from the file's value
    session.toggle_causal()
    cells, options = set(), set()
    for edit in kept_edits(session):
        if isinstance(edit, SetOption):
            options.add((edit.name, edit.value))  # (the copy keeps an option's new value alone)
        else:
            cells.add(edit)
    assert (cells, options) == ({SetCell("V", 0, 0, 6.0, 1.0)}, {("causal", True)})
    session.undo()
    session.undo()
    session.undo()
    assert not os.path.exists(copy)


def test_a_copy_is_private_to_its_owner(path):
    session = Session(load(path))
    session.set_cell("Q", 1, 1, 2.0)
    assert os.stat(session.journal.path).st_mode & 0o777 == 0o600


def test_a_deferred_copy_waits_for_the_flush(path):
    session = Session(load(path))
    session.journal.deferred = True
    session.set_cell("Q", 1, 1, 2.0)
    assert not os.path.exists(session.journal.path)
    session.journal.flush()
    assert kept_edits(session) == (SetCell("Q", 1, 1, 2.0, 1.0),)
    session.journal.flush()  # nothing new: nothing written again
    assert kept_edits(session) == (SetCell("Q", 1, 1, 2.0, 1.0),)


def test_a_save_discards_the_copy(path):
    session = Session(load(path))
    session.set_cell("Q", 1, 1, 2.0)
    session.save()
    assert not os.path.exists(session.journal.path)


def test_the_next_session_is_offered_the_edits_and_replays_them_undoably(path):
    first = Session(load(path))
    first.set_cell("K", 0, 1, 0.5)
    first.toggle_causal()
    del first  # (as if the app had died)
    second = Session(load(path))
    found = second.journal.pending()
    assert found is not None and not found.file_changed
    assert second.journal.restore(found) == []
    assert second.cell("K", 0, 1) == 0.5
    assert second.scenario.options.causal is True
    assert second.modified
    second.undo()
    second.undo()
    assert second.cell("K", 0, 1) == 0.0
    assert not second.modified


def test_an_edit_that_no_longer_fits_the_file_is_skipped_and_said(path, write):
    first = Session(load(path))
    first.set_cell("V", 1, 1, 9.0)  # row 2 of V
    first.set_cell("Q", 0, 0, 3.0)
    # the file loses its second token: V has one row now
    write(
        "tokens: [a]\ncausal: false\nQ: [[1, 0]]\nK: [[1, 0]]\nV: [[1, 2]]\n",
        name=os.path.basename(path),
    )
    second = Session(load(path))
    found = second.journal.pending()
    assert found.file_changed
    skipped = second.journal.restore(found)
    assert len(skipped) == 1 and skipped[0].startswith("V row 2, column 2 = 9: ")
    assert second.cell("Q", 0, 0) == 3.0  # what fits is replayed


def test_without_keep_there_is_no_copy_and_nothing_offered(path):
    session = Session(load(path), keep_recovery=False)
    assert session.journal.path is None
    session.set_cell("Q", 1, 1, 2.0)
    assert session.journal.pending() is None
    folder = recovery.folder()  # (each test's own: tests/conftest.py)
    assert not os.path.isdir(folder) or os.listdir(folder) == []
