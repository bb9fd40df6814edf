"""What the sandbox holds (grading/sandbox.py), seen from inside by a student file that looks
around and prints what it found: no network, no other process, a private /tmp and /dev/shm,
only its own file (a classmate's beside it is not there), its own folder when it has one, the
worker's two files and nothing else of attn-tui, a module forbidden hidden; as root, a uid of
its own for each worker. Without bwrap, the runner says so once and grades with its limits."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import numpy as np
import pytest

from attn_tui.grading import runner, sandbox
from attn_tui.grading.runner import Submission, remove_tree
from attn_tui.grading.worker_limits import FIRST_UID, UIDS
from attn_tui.tui.cli import main
from tests.grading.leftovers import written_outside

STUDENTS = Path(__file__).with_name("students")


def needs_sandbox(test):
    return pytest.mark.sandbox(
        pytest.mark.skipif(
            sandbox.problem() is not None,
            reason=f"bubblewrap cannot run here: {sandbox.problem()}",
        )(test)
    )


LOOKS = """
import json, os, socket, sys
seen = {}
try:
    socket.create_connection(("1.1.1.1", 53), timeout=2)
    seen["network"] = "reached"
except OSError as error:
    seen["network"] = type(error).__name__
seen["pids"] = sorted(int(n) for n in os.listdir("/proc") if n.isdigit())
seen["here"] = sorted(os.listdir(os.path.dirname(os.path.abspath(__file__))))
seen["grader"] = sorted(os.listdir("/grader"))
seen["uid"] = os.getuid()
for name in ("classmate", "attn_tui", "torch"):
    try:
        __import__(name)
        seen[name] = "imported"
    except ImportError as error:
        seen[name] = type(error).__name__
try:
    open(sys.argv[0] and CLASSMATE).read()
    seen["classmate file"] = "read"
except OSError as error:
    seen["classmate file"] = type(error).__name__
for folder in ("/tmp", "/dev/shm"):
    with open(os.path.join(folder, "attn-leftover-mine"), "w") as file:
        file.write("x")
print(json.dumps(seen))
"""


def looked(tmp_path: Path, folder: bool, forbid: tuple[str, ...] = ()) -> dict:
    (tmp_path / "classmate.py").write_text("SECRET = 1\n")
    student = tmp_path / "looks.py"
    student.write_text(
        f"CLASSMATE = {str(tmp_path / 'classmate.py')!r}\n"
        + LOOKS
        + "def attention(Q, K, V):\n    return Q\n"
    )
    with Submission(student, folder=tmp_path if folder else None, forbid=forbid) as submission:
        submission.start()
        printed = submission.output()
    return json.loads(printed.strip().splitlines()[-1])


@needs_sandbox
def test_inside_there_is_no_network_no_other_process_and_only_its_own_file(tmp_path):
    seen = looked(tmp_path, folder=False)
    assert seen["network"] == "OSError"  # (Network is unreachable: no interface but lo, down)
    assert seen["pids"] == [1, 2]  # bwrap's init and the worker
    assert seen["here"] == ["looks.py"]  # a flat export: the classmate beside it is not there
    assert seen["classmate"] == "ModuleNotFoundError"
    assert seen["classmate file"] == "FileNotFoundError"
    assert seen["grader"] == sorted(runner.WORKER_FILES)
    assert seen["attn_tui"] == "ModuleNotFoundError"
    assert written_outside() == []  # (its /tmp and /dev/shm were its own)


@needs_sandbox
def test_its_own_folder_is_there_read_only_and_a_forbidden_module_is_hidden(tmp_path):
    seen = looked(tmp_path, folder=True, forbid=("torch",))
    assert seen["here"] == ["classmate.py", "looks.py"]  # (its own folder: a helper module)
    assert seen["classmate"] == "imported"
    assert seen["torch"] == "ModuleNotFoundError"


@needs_sandbox
@pytest.mark.skipif(os.geteuid() != 0, reason="only a worker started as root changes its user")
def test_as_root_each_worker_has_a_uid_of_its_own(tmp_path):
    first, second = looked(tmp_path, folder=False), looked(tmp_path, folder=False)
    assert FIRST_UID <= first["uid"] < FIRST_UID + UIDS
    assert FIRST_UID <= second["uid"] < FIRST_UID + UIDS and second["uid"] != first["uid"]


def test_without_a_sandbox_grading_says_so_once_and_goes_on(monkeypatch, capsys, tmp_path):
    monkeypatch.setattr(sandbox, "shutil", _NoBwrap())  # bwrap not installed
    sandbox.problem.cache_clear()
    monkeypatch.setattr(runner, "_said_without_sandbox", False)
    try:
        files = [str(STUDENTS / "chapter.py"), str(STUDENTS / "unscaled.py")]
        assert main(["grade", *files]) == 1
    finally:
        sandbox.problem.cache_clear()
    out, err = capsys.readouterr()
    assert "✓ chapter.py" in out and "✗ unscaled.py" in out
    (said,) = err.splitlines()  # once, for the two submissions
    assert said.startswith(
        "attn-tui: grading without a sandbox (bubblewrap (bwrap) is not installed): each "
        "submission runs with its time, memory, file-size and process limits only; its code can "
        "import attn-tui's reference, "
    )
    assert "use the network" in said


class _NoBwrap:
    @staticmethod
    def which(name, *args, **kwargs):
        return None if name == sandbox.BWRAP else shutil.which(name, *args, **kwargs)


def test_a_folder_3000_deep_is_removed_and_removing_never_raises(tmp_path):
    top = tmp_path / "deep"
    top.mkdir()
    here = os.open(top, os.O_RDONLY)
    for _ in range(3000):
        os.mkdir("d", dir_fd=here)
        (down := os.open("d", os.O_RDONLY, dir_fd=here)) and os.close(here)
        here = down
    with open(os.open("f", os.O_WRONLY | os.O_CREAT, 0o600, dir_fd=here), "w") as file:
        file.write("x")
    os.close(here)
    remove_tree(str(top))
    assert not top.exists()
    remove_tree(str(top))  # (gone already: nothing raised)
    remove_tree(str(tmp_path / "never"))
    (tmp_path / "link").symlink_to(tmp_path)
    remove_tree(str(tmp_path / "link"))  # a link is removed, never followed
    assert tmp_path.exists() and not (tmp_path / "link").exists()


def test_a_call_on_a_closed_or_unstartable_worker_is_a_verdict(monkeypatch, tmp_path):
    student = tmp_path / "fine.py"
    student.write_text("def attention(Q, K, V):\n    return Q\n")

    def no_pipes():
        raise OSError(24, "Too many open files")

    monkeypatch.setattr(runner.os, "pipe", no_pipes)
    with Submission(student) as submission, pytest.raises(runner.SubmissionFailed) as failed:
        submission.start()
    assert failed.value.failure.verdict.startswith("its worker could not be started (OSError")
    monkeypatch.undo()
    with Submission(student) as submission:
        submission.start()
        answer, found = submission.call(
            {"Q": np.eye(2), "K": np.eye(2), "V": np.eye(2)}, positional=["Q", "K", "V"]
        )
    assert answer["ok"] and found[0].tolist() == [[1, 0], [0, 1]]


def test_attn_tui_installed_in_the_systems_python_is_hidden_too(monkeypatch, tmp_path):
    """The system's Python (/usr/bin/python3, as a Gradescope image runs it; our autograder's
    setup.sh installs attn-tui with its pip) keeps its packages under /usr, which the sandbox
    binds whole: attn-tui there must be hidden as in a virtual environment. Here a folder stands
    for /usr, with a dist-packages on sys.path holding the package, its records and a neighbour."""
    system = tmp_path / "usr"
    packages = system / "local" / "lib" / "python3.11" / "dist-packages"
    for name in ("attn_tui", "attn_tui-0.2.0.dist-info", "numpy"):
        (packages / name).mkdir(parents=True)
    (packages / "attn_tui" / "__init__.py").write_text("")
    monkeypatch.setattr(sandbox, "SYSTEM", str(system))
    monkeypatch.setattr(sandbox.sys, "path", [*sandbox.sys.path, str(packages)])
    sandbox._hidden.cache_clear()
    try:
        hidden = sandbox.hidden_paths()
    finally:
        sandbox._hidden.cache_clear()
    assert str(packages / "attn_tui") in hidden
    assert str(packages / "attn_tui-0.2.0.dist-info") in hidden
    assert str(packages / "numpy") not in hidden
    assert not any(path in (str(system), str(packages)) for path in hidden)
