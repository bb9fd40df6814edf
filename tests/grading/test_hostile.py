"""Students' code is hostile or broken by default: each case has its one-line verdict, and
one bad submission never stops the others (grade)."""

from __future__ import annotations

import json
import os
import re
import time
from pathlib import Path

import numpy as np
import pytest

from attn_tui.grading.runner import Submission
from attn_tui.tui.cli import main
from tests.grading.leftovers import descendants

HOSTILE = Path(__file__).with_name("hostile")
STUDENTS = Path(__file__).with_name("students")


def verdict(capsys, name, *extra):
    status = main(["check", "cat_sat", "--impl", str(HOSTILE / f"{name}.py"), *extra])
    out, _ = capsys.readouterr()
    return status, out


@pytest.mark.parametrize(
    "name, expected",
    [
        ("syntax_error", "syntax_error.py: ✗ syntax_error.py:4:36: syntax error: expected ':'"),
        ("exits", "exits.py: ✗ exits.py: the file called sys.exit(0) while it was imported"),
        ("hard_exit", "hard_exit.py: ✗ exited with status 3 before answering (os._exit?)"),
        ("kills_itself", "kills_itself.py: ✗ killed by SIGKILL before answering"),
        (
            "no_function",
            (
                "no_function.py: ✗ no attention (a function, or a class with forward or "
                "__call__) in no_function.py; what it defines: atention"
            ),
        ),
        ("raises", "raises.py on "),
    ],
)
def test_one_line_verdicts(capsys, name, expected):
    status, out = verdict(capsys, name)
    assert status == 1
    assert out.splitlines()[0].startswith(expected), out


def test_an_exception_names_the_students_line(capsys):
    _, out = verdict(capsys, "raises")
    assert "raises.py:5: ValueError: matmul" in out and "(scores = Q @ K  # K, not K.T)" in out


def test_a_hang_times_out(capsys):
    started = time.monotonic()
    status, out = verdict(capsys, "hang", "--timeout", "1.5")
    assert status == 1 and "timed out: no answer within 1.5 s" in out
    assert time.monotonic() - started < 10


def test_a_memory_bomb_is_over_the_limit(capsys):
    status, out = verdict(capsys, "memory_bomb", "--memory", "0.5")
    assert status == 1 and "memory_bomb.py:4: went over the memory limit (0.5 GB)" in out


def test_escape_sequences_are_made_visible(capsys):
    _, out = verdict(capsys, "escapes", "--verbose")
    assert "\x1b" not in out and "\x07" not in out
    assert "␛[2J" in out and "[/INST] hello" in out  # printed, shown only with --verbose, escaped
    assert "ValueError: ␛[31mred[/INST]" in out
    _, quiet = verdict(capsys, "escapes")
    assert "hello" not in quiet


def test_writing_to_home_stays_in_the_temporary_folder(capsys):
    before = os.path.exists(os.path.expanduser("~/.bashrc_from_student"))
    status, out = verdict(capsys, "writes_home")
    assert status == 1 and "output: ✗" in out  # it ran (and returned zeros)
    assert os.path.exists(os.path.expanduser("~/.bashrc_from_student")) == before
    assert not Path("scratch.txt").exists()


def test_a_forked_child_goes_with_the_worker():
    before = descendants()
    with Submission(HOSTILE / "forks.py") as submission:
        submission.start()
        Q = np.eye(2)
        answer, _ = submission.call({"Q": Q, "K": Q, "V": Q}, positional=["Q", "K", "V"])
        assert answer["type"] == "RuntimeError"
        time.sleep(0.2)
        assert re.search(r"child (\d+)", submission.output())  # (it did fork)
    assert descendants() - before == set()


def test_stdin_is_closed_and_cwd_and_home_are_a_new_folder(tmp_path):
    student = tmp_path / "looks.py"
    student.write_text(
        "import os, sys\n"
        "def attention(Q, K, V):\n"
        "    import numpy as np\n"
        "    assert sys.stdin is None or sys.stdin.read() == ''\n"
        "    assert os.environ['HOME'] == os.environ['TMPDIR'] == os.getcwd()\n"
        "    assert 'attn-tui-student' in os.getcwd()\n"
        "    raise RuntimeError('looked')\n"
    )
    with Submission(student) as submission:
        submission.start()
        answer, _ = submission.call(
            {"Q": np.eye(2), "K": np.eye(2), "V": np.eye(2)}, positional=["Q", "K", "V"]
        )
    assert answer["type"] == "RuntimeError" and answer["message"] == "looked"


def test_one_bad_submission_never_stops_the_others(capsys):
    files = [
        str(HOSTILE / "hang.py"),
        str(HOSTILE / "syntax_error.py"),
        str(STUDENTS / "chapter.py"),
        str(STUDENTS / "unscaled.py"),
        str(HOSTILE / "hard_exit.py"),
    ]
    status = main(
        ["grade", *files, "--json", "--timeout", "8"]
    )  # (the others need their time on a loaded host)
    found = json.loads(capsys.readouterr().out)
    assert status == 1
    by_file = {Path(s["file"]).name: s for s in found["submissions"]}
    assert [
        by_file[name]["status"]
        for name in ("hang.py", "syntax_error.py", "chapter.py", "unscaled.py", "hard_exit.py")
    ] == ["timeout", "syntax", "ok", "differs", "exit"]
    chapter = by_file[
        "chapter.py"
    ]  # (attention(Q, K, V, causal) cannot be given the fully masked row's mask)
    assert chapter["passed"] == chapter["cases"] == len(found["cases"]) - 1
    assert chapter["not_run"] == ["a fully masked row (the mask hides every key of t2)"]
    assert by_file["unscaled.py"]["diagnosis"]["mistake"] == "unscaled"
    assert found["summary"]["forgot to divide by √d_k"] == 1 and found["summary"]["right"] == 1


def test_grade_as_text_and_markdown(capsys):
    files = [str(STUDENTS / "chapter.py"), str(STUDENTS / "mask_zero.py")]
    main(["grade", *files])
    out = capsys.readouterr().out
    assert (
        "✓ chapter.py" in out and "✗ mask_zero.py" in out and "Class: 1 of 2 pass every case" in out
    )
    main(["grade", *files, "--markdown"])
    out = capsys.readouterr().out
    assert "| mask_zero.py | 6/17 |" in out and "| masked with 0, not −∞ | 1 |" in out


def test_bytes_written_into_the_workers_pipe_are_a_garbled_answer(capsys):
    status, out = verdict(capsys, "garbles")
    assert status == 1 and out.startswith("garbles.py: ✗ its reply could not be read")


def test_a_fifo_an_empty_file_and_a_name_with_escapes(capsys, tmp_path):
    fifo = tmp_path / "fifo.py"
    os.mkfifo(fifo)
    assert main(["check", "cat_sat", "--impl", str(fifo)]) == 2
    assert "not a regular file" in capsys.readouterr().err
    empty = tmp_path / "empty.py"
    empty.write_text("")
    assert main(["check", "cat_sat", "--impl", str(empty)]) == 1
    assert "what it defines: none" in capsys.readouterr().out
    evil = tmp_path / "evil\x1b[31m[INST].py"
    evil.write_bytes((STUDENTS / "chapter.py").read_bytes())
    assert main(["grade", str(evil)]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "evil␛[31m[INST].py" in out


def test_a_backward_raising_escapes_is_made_visible(capsys):
    status, out = verdict(capsys, "backward_escapes")
    assert status == 1
    assert "\x1b" not in out and "ValueError: ␛[2J back [/INST]" in out


def test_a_fifo_a_device_and_a_flood_of_output_are_each_a_line_and_the_others_are_graded(
    tmp_path, capsys
):
    """Found by an attack: grade left a FIFO and a link to /dev/zero out of its table (two students
    silently not graded), stopped the whole run when one was named, and called output past the
    file limit "an exception" (OSError: File too large)."""
    (tmp_path / "a_ok.py").write_text(
        (STUDENTS / "chapter.py").read_text(encoding="utf-8"), encoding="utf-8"
    )
    os.mkfifo(tmp_path / "b_fifo.py")
    (tmp_path / "c_zero.py").symlink_to("/dev/zero")
    (tmp_path / "d_flood.py").write_text(
        "for _ in range(2_000_000):\n    print('A' * 100)\n"
        + (STUDENTS / "chapter.py").read_text(encoding="utf-8"),
        encoding="utf-8",
    )
    assert main(["grade", str(tmp_path), "--json"]) == 1
    records = {Path(r["file"]).name: r for r in json.loads(capsys.readouterr().out)["submissions"]}
    assert sorted(records) == ["a_ok.py", "b_fifo.py", "c_zero.py", "d_flood.py"]
    assert records["a_ok.py"]["ok"]
    for name in ("b_fifo.py", "c_zero.py"):
        assert records[name]["words"] == "not a regular file" and not records[name]["ok"]
    assert records["d_flood.py"]["words"] == "printed too much"
    assert (
        "d_flood.py:2: printed or wrote more than the limit (64 MB)"
        in records["d_flood.py"]["verdict"]
    )
    assert (
        main(["grade", str(tmp_path / "b_fifo.py"), str(tmp_path / "a_ok.py")]) == 1
    )  # named: graded too
    out = capsys.readouterr().out
    assert "✓ a_ok.py" in out and "not a regular file" in out


def test_a_failure_of_attn_tui_itself_on_one_student_is_that_students_row(capsys, monkeypatch):
    """Whatever goes wrong while one submission is judged (here a judge that raises for one
    student), the others keep their verdicts and the table and its JSON are still printed."""
    from attn_tui.grading import grade

    real = grade.run_cases

    def breaks_on_unscaled(submission, cases):
        if submission.path.endswith("unscaled.py"):
            raise RecursionError("maximum recursion depth exceeded")
        return real(submission, cases)

    monkeypatch.setattr(grade, "run_cases", breaks_on_unscaled)
    files = [str(STUDENTS / "chapter.py"), str(STUDENTS / "unscaled.py")]
    status = main(["grade", *files, "--json"])
    found = json.loads(capsys.readouterr().out)
    assert status == 1
    by_file = {Path(s["file"]).name: s for s in found["submissions"]}
    assert by_file["chapter.py"]["status"] == "ok"
    assert by_file["unscaled.py"]["status"] == "error"
    assert "RecursionError" in by_file["unscaled.py"]["verdict"]


def test_files_named_alone_cannot_import_a_classmate_beside_them(capsys, tmp_path):
    """`grade *.py` in a class's folder: each file is seen alone, so copying a classmate's
    function by importing their file fails."""
    (tmp_path / "honest.py").write_text((STUDENTS / "chapter.py").read_text(), encoding="utf-8")
    (tmp_path / "copier.py").write_text(
        "from honest import attention  # a classmate's file in the same folder\n",
        encoding="utf-8",
    )
    status = main(["grade", str(tmp_path / "honest.py"), str(tmp_path / "copier.py"), "--json"])
    found = json.loads(capsys.readouterr().out)
    assert status == 1
    by_file = {Path(s["file"]).name: s for s in found["submissions"]}
    assert by_file["honest.py"]["ok"]
    copier = by_file["copier.py"]
    assert not copier["ok"] and copier["status"] == "missing"
    assert [note["type"] for note in copier["notes"]] == ["ModuleNotFoundError"]
    assert "honest" in copier["notes"][0]["message"]
