"""A fork bomb ends as a one-line verdict, in the sandbox and as root too: a worker started as
root becomes a uid of its own before it imports the student's file (the kernel holds root to no
RLIMIT_NPROC), keeping only the right to read files (Python's own, the student's), so that the
process limit holds, the code writes only in its folder, and it cannot become root again. The
fork loop is bounded (150 children at most, each asleep 20 s) in case the limit does not hold."""

from __future__ import annotations

import os
import re
import time
from pathlib import Path

import numpy as np
import pytest

from attn_tui.grading.failures import SubmissionFailed
from attn_tui.grading.runner import Submission
from attn_tui.grading.worker_limits import FIRST_UID, MORE_PROCESSES, UIDS
from attn_tui.tui.cli import main
from tests.grading.leftovers import descendants

HOSTILE = Path(__file__).with_name("hostile")


def test_a_fork_bomb_is_one_line_and_its_children_go(capsys):
    started = time.monotonic()
    status = main(["check", "cat_sat", "--impl", str(HOSTILE / "fork_bomb.py"), "--timeout", "8"])
    out = capsys.readouterr().out
    assert status == 1
    first = out.splitlines()[0]
    assert "fork_bomb.py:14: BlockingIOError" in first and "over the limit of processes" in first, (
        out
    )
    assert time.monotonic() - started < 15


def test_the_children_are_bounded_and_killed_with_the_worker():
    before = descendants()
    with Submission(HOSTILE / "fork_bomb.py", timeout=8) as submission:
        submission.start()
        with pytest.raises(SubmissionFailed) as failed:
            submission.call(
                {"Q": np.eye(2), "K": np.eye(2), "V": np.eye(2)}, positional=["Q", "K", "V"]
            )
        assert failed.value.failure.kind == "processes"
        forked = int(re.search(r"forked (\d+)", submission.output()).group(1))
        assert 1 <= forked <= MORE_PROCESSES  # held to the limit: 64 more than its user had
    time.sleep(0.3)
    assert descendants() - before == set()


def test_an_exponential_fork_bomb_ends_in_one_line_within_the_time(tmp_path):
    student = tmp_path / "doubling.py"
    student.write_text(
        "import os, time\n"
        "def attention(Q, K, V, causal=True):\n"
        "    for _ in range(7):  # at most 2**7 = 128 processes, whatever the limit does\n"
        "        os.fork()\n"
        "    time.sleep(5)\n"
        "    return Q\n"
    )
    started = time.monotonic()
    status = main(["check", "cat_sat", "--impl", str(student), "--cases", "--timeout", "8"])
    assert status == 1
    assert time.monotonic() - started < 20


@pytest.mark.skipif(os.geteuid() != 0, reason="only a worker started as root changes its user")
def test_as_root_the_student_runs_as_a_uid_of_its_own_and_cannot_write_outside(tmp_path):
    student = tmp_path / "who.py"
    student.write_text(
        "import os, decimal\n"  # (decimal: a standard module under a folder nobody may enter)
        "def attention(Q, K, V):\n"
        "    open('here.txt', 'w').write('in its folder')\n"
        "    try:\n"
        f"        open({str(tmp_path / 'outside.txt')!r}, 'w')\n"
        "    except OSError:\n"
        "        pass\n"
        "    try:\n"
        "        os.setuid(0)\n"
        "    except PermissionError:\n"
        "        pass\n"
        "    raise RuntimeError(f'uid {os.getuid()} {os.geteuid()}')\n"
    )
    with Submission(student) as submission:
        submission.start()
        answer, _ = submission.call(
            {"Q": np.eye(2), "K": np.eye(2), "V": np.eye(2)}, positional=["Q", "K", "V"]
        )
    uid, euid = (int(n) for n in answer["message"].split()[1:])
    assert uid == euid and FIRST_UID <= uid < FIRST_UID + UIDS
    assert not (tmp_path / "outside.txt").exists()


def test_a_worker_that_cannot_leave_root_refuses_to_run_the_code(monkeypatch):
    from attn_tui.grading import worker

    monkeypatch.setattr(worker.os, "geteuid", lambda: 0)
    monkeypatch.setattr(worker, "drop_root", lambda uid, gid: False)
    requests, answers = os.pipe(), os.pipe()
    try:
        assert worker.main(requests[0], answers[1], "65534:65534") == 0
        meta, _ = worker.read_message(answers[0])
    finally:
        for fd in (*requests, *answers):
            os.close(fd)
    assert meta["ok"] is False and "could not become uid 65534" in meta["message"]
