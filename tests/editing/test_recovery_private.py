"""Recovery copies are private and never written or read through a link:
the state folder is 0700 and ours, its files 0600, created under a fresh name and renamed over
the entry itself; reading one is guarded like reading a scenario (regular files only, opened
non-blocking, bounded)."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import time

import pytest

from attn_tui.core import load
from attn_tui.core.editing.recovery import UnreadableCopy, recovery_path
from attn_tui.core.editing.session import Session
from tests.conftest import ROOT, SCENARIOS


@pytest.fixture
def mine(tmp_path):
    path = tmp_path / "cat_sat.yaml"
    path.write_text((SCENARIOS / "cat_sat.yaml").read_text())
    return path


def mode(path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


def test_a_planted_link_at_the_copys_name_is_replaced_never_written_through(mine, tmp_path):
    victim = tmp_path / "victim.txt"
    victim.write_text("the victim's own text\n")
    copy = recovery_path(str(mine))
    os.makedirs(os.path.dirname(copy), exist_ok=True)
    os.symlink(victim, copy)  # the name is predictable: anyone who can write there can plant it
    session = Session(load(mine))
    session.set_cell("Q", 0, 0, 2.0)
    assert victim.read_text() == "the victim's own text\n"
    assert not os.path.islink(copy) and os.path.isfile(copy)
    assert session.journal.error is None
    assert Session(load(mine)).journal.pending().edits  # the copy itself is whole


def test_the_state_folder_is_0700_and_its_files_0600(mine, state_folder):
    folder = state_folder / "attn-tui"
    folder.mkdir(mode=0o755)
    os.chmod(folder, 0o755)  # as attn-tui made it before: other local users could read edits
    session = Session(load(mine))
    session.set_cell("Q", 0, 0, 2.0)
    assert mode(folder) == 0o700
    assert mode(recovery_path(str(mine))) == 0o600
    assert [name for name in os.listdir(folder) if name.endswith(".tmp")] == []


def test_a_state_folder_of_another_user_is_not_used(mine, state_folder):
    if os.geteuid() != 0:
        pytest.skip("handing a folder to another user needs root")
    folder = state_folder / "attn-tui"
    folder.mkdir(mode=0o700)
    os.chown(folder, 4242, 4242)
    session = Session(load(mine))
    session.set_cell("Q", 0, 0, 2.0)
    assert session.scenario.Q[0, 0] == 2.0  # the edit stands; only the copy is not kept
    assert "belongs to another user" in session.journal.error, session.journal.error
    assert os.listdir(folder) == []


def test_a_link_at_the_state_folder_is_not_followed(mine, state_folder, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir(mode=0o755)
    os.symlink(elsewhere, state_folder / "attn-tui")
    session = Session(load(mine))
    session.set_cell("Q", 0, 0, 2.0)
    assert "symbolic link" in session.journal.error, session.journal.error
    assert os.listdir(elsewhere) == [] and mode(elsewhere) == 0o755


def planted(mine, make) -> str:
    copy = recovery_path(str(mine))
    os.makedirs(os.path.dirname(copy), exist_ok=True)
    make(copy)
    return copy


def test_a_huge_copy_is_refused_without_reading_it(mine):
    def huge(copy):
        with open(copy, "wb") as file:
            file.truncate(2**40)  # sparse: a terabyte that takes no disk

    planted(mine, huge)
    with pytest.raises(UnreadableCopy, match="too large"):
        Session(load(mine)).journal.pending()


READ = """
import resource, sys
resource.setrlimit(resource.RLIMIT_AS, (3 * 2**30, 3 * 2**30))  # a read without a bound stops here
from attn_tui.core import load
from attn_tui.core.editing.recovery import UnreadableCopy
from attn_tui.core.editing.session import Session
try:
    Session(load(sys.argv[1])).journal.pending()
except UnreadableCopy as refused:
    print(refused)
"""


@pytest.mark.parametrize(
    "make, why",
    [
        (os.mkfifo, "is not a regular file"),
        (lambda copy: os.symlink("/dev/zero", copy), "is a symbolic link"),
        (lambda copy: os.symlink("/dev/stdin", copy), "is a symbolic link"),
    ],
)
def test_a_fifo_or_a_device_is_refused_at_once(mine, make, why):
    copy = planted(mine, make)
    # in a process of its own, bounded in time and memory: a read that blocked on the FIFO, or
    # read /dev/zero for ever, would otherwise hang the test run or eat the machine's memory
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", READ, str(mine)],
        capture_output=True,
        text=True,
        timeout=10,
        cwd=ROOT,
        stdin=subprocess.PIPE,
        env=os.environ | {"PYTHONPATH": str(ROOT), "OPENBLAS_NUM_THREADS": "1"},
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"recovery copy not read: {copy} {why}" + (
        "; attn-tui never writes one there\n"
        if "link" in why
        else " (a device, a pipe or a socket)\n"
    )
    assert time.perf_counter() - started < 10


async def test_the_app_starts_normally_and_says_why_the_copy_was_not_read(mine):
    from tests.tui_helpers import debugger, running

    planted(mine, os.mkfifo)
    async with running(mine) as (app, pilot):
        await pilot.pause()
        assert debugger(app) is app.screen  # no dialog, the debugger itself
        said = [n.message for n in app._notifications]
        assert any("not a regular file" in message for message in said), said
        await pilot.press("c")  # and an edit replaces the FIFO with a real copy
        await pilot.pause()
    assert stat.S_ISREG(os.lstat(recovery_path(str(mine))).st_mode)


# ---- the record of data files saved lives in the same folder, under the same rules ------------


@pytest.fixture
def lesson(tmp_path):
    import numpy as np

    np.save(tmp_path / "mine.npy", np.ones((3, 2)))
    (tmp_path / "lesson.yaml").write_text(
        "Q: {npy: mine.npy}\nK: [[1, 0], [0, 1], [1, 1]]\nV: [[1, 0], [0, 1], [1, 1]]\n"
    )
    return tmp_path / "lesson.yaml"


def test_the_record_of_data_files_is_never_written_through_a_link(lesson, state_folder, tmp_path):
    victim = tmp_path / "victim.txt"
    victim.write_text("the victim's own text\n")
    folder = state_folder / "attn-tui"
    folder.mkdir()
    os.symlink(victim, folder / "written-data-files.json")
    session = Session(load(lesson))
    session.set_cell("Q", 0, 0, 9.0)
    session.save()
    assert victim.read_text() == "the victim's own text\n"
    assert mode(folder / "written-data-files.json") == 0o600 and mode(folder) == 0o700


def test_a_fifo_at_the_records_name_does_not_hold_a_save(lesson, state_folder):
    folder = state_folder / "attn-tui"
    folder.mkdir()
    os.mkfifo(folder / "written-data-files.json")
    # in a thread with a bound: a save that blocked on the FIFO would otherwise hang the run
    import threading

    session = Session(load(lesson))
    session.set_cell("Q", 0, 0, 9.0)
    saving = threading.Thread(target=session.save, daemon=True)
    saving.start()
    saving.join(10)
    if saving.is_alive():  # free the thread before failing: open the FIFO's other end
        with open(folder / "written-data-files.json", "w"):
            pass
    assert not saving.is_alive(), "the save blocked on a FIFO in the state folder"
    assert load(lesson).Q[0, 0] == 9.0


def test_a_long_file_name_still_gets_a_copy(tmp_path):
    long = tmp_path / ("😀" * 60 + ".yaml")  # 244 bytes: a legal name, but not with a suffix added
    long.write_text((SCENARIOS / "cat_sat.yaml").read_text())
    session = Session(load(long))
    session.set_cell("Q", 0, 0, 2.0)
    assert session.journal.error is None, session.journal.error
    assert len(os.path.basename(recovery_path(str(long))).encode()) <= 255
    assert Session(load(long)).journal.pending().edits
