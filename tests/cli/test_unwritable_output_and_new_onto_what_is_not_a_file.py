"""The command line at its edges: output that cannot be written and
``new`` pointed at things that are not files (item 10)."""

from __future__ import annotations

import os
import stat
import subprocess
import sys

import pytest

from attn_tui.core import load
from attn_tui.core.files.atomic_write import write_atomic
from attn_tui.tui.cli import main
from tests.conftest import ROOT

NEW = ["--tokens", "a b", "--d-k", "1"]


def attn_tui(*args: str, stdout=None, close_stdout: bool = False) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "attn_tui", *args],
        cwd=ROOT,
        stdout=stdout,
        stderr=subprocess.PIPE,
        text=True,
        timeout=60,
        preexec_fn=(lambda: os.close(1)) if close_stdout else None,
    )


# ---- item 11: output failures are said, and exit 2 ---------------------------------------------


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@pytest.mark.parametrize(
    "args",
    [
        ["--json", "cat_sat"],
        ["--print", "cat_sat"],
        ["--markdown", "cat_sat"],
        ["--check", "cat_sat"],
        ["--list"],
    ],
)
def test_a_full_disk_on_standard_output_is_said_and_exits_2(args):
    with open("/dev/full", "w") as full:
        done = attn_tui(*args, stdout=full)
    assert done.returncode == 2, done.stderr
    assert done.stderr == "attn-tui: cannot write the output: No space left on device\n"


@pytest.mark.parametrize(
    "args", [["--markdown", "cat_sat"], ["--check", "cat_sat"], ["--json", "cat_sat"]]
)
def test_a_closed_standard_output_is_said_and_exits_2(args):
    done = attn_tui(*args, close_stdout=True)
    assert done.returncode == 2, done.stderr
    assert done.stderr == "attn-tui: cannot write the output: standard output is closed\n"


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_new_on_a_full_standard_output_still_writes_the_file_and_says_so(tmp_path):
    with open("/dev/full", "w") as full:
        done = attn_tui("new", str(tmp_path / "n.yaml"), *NEW, stdout=full)
    assert (
        done.returncode == 2 and "cannot write the output: No space left on device" in done.stderr
    )
    assert load(tmp_path / "n.yaml").tokens == ("a", "b")


def test_a_broken_pipe_is_still_quiet(tmp_path):
    """`attn-tui --json big | head -c 10` is normal use: exit 0, nothing on stderr."""
    done = subprocess.run(
        f"'{sys.executable}' -m attn_tui --print cat_sat | head -c 10",
        shell=True,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.stdout == "The cat sa" and done.stderr == ""


# ---- item 10: new creates or replaces regular files only --------------------------------------


def test_new_never_replaces_a_pipe_even_with_force(tmp_path, capsys):
    fifo = tmp_path / "f.yaml"
    os.mkfifo(fifo)
    link = tmp_path / "link.yaml"
    link.symlink_to(fifo)
    for target in (fifo, link):
        for force in ([], ["--force"]):
            assert main(["new", str(target), *NEW, *force]) == 2
            assert "is not a regular file" in capsys.readouterr().err
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode) and os.path.islink(link)


def test_new_does_not_create_a_file_through_a_dangling_link(tmp_path, capsys):
    link = tmp_path / "link.yaml"
    link.symlink_to(tmp_path / "elsewhere.yaml")
    for force in ([], ["--force"]):
        assert main(["new", str(link), *NEW, *force]) == 2
        err = capsys.readouterr().err
        assert "symbolic link" in err and "elsewhere.yaml" in err and "does not exist" in err
    assert not (tmp_path / "elsewhere.yaml").exists() and os.path.islink(link)


def test_new_with_force_replaces_a_regular_file_through_a_link_and_keeps_the_link(tmp_path, capsys):
    real = tmp_path / "real.yaml"
    real.write_text("old\n")
    link = tmp_path / "link.yaml"
    link.symlink_to(real)
    assert main(["new", str(link), *NEW]) == 2 and "already exists" in capsys.readouterr().err
    assert main(["new", str(link), *NEW, "--force"]) == 0
    assert os.path.islink(link) and load(real).tokens == ("a", "b")
    capsys.readouterr()


def test_new_into_a_folder_names_a_file_to_give(tmp_path, capsys):
    assert main(["new", str(tmp_path), *NEW, "--force"]) == 2
    assert (
        f"is a folder; give a file name such as {tmp_path / 'scenario.yaml'}"
        in capsys.readouterr().err
    )


def test_writing_atomically_never_replaces_what_is_not_a_regular_file(tmp_path):
    """The last guard, for every writer (new, save, recovery copies): a race that puts a pipe
    or a dangling link where a file was checked still gets no file written in its place."""
    fifo = tmp_path / "f"
    os.mkfifo(fifo)
    with pytest.raises(OSError):
        write_atomic(str(fifo), "x")
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    link = tmp_path / "link"
    link.symlink_to(tmp_path / "missing")
    with pytest.raises(OSError):
        write_atomic(str(link), "x")
    assert not (tmp_path / "missing").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["f", "link"]  # no temporary file left
