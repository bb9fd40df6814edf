"""Each attack on grading as a student file, graded beside two honest classmates (the chapter's
correct code and an unscaled one): both keep their verdicts, the attack does not pass, no process
of the run is alive afterwards, nothing it wrote outside its folder remains, and grade and
check --impl end with their table or line and exit 1. In the sandbox, and without it (bwrap made
unavailable), where what is promised there holds."""

from __future__ import annotations

import json
import os
import shutil
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from attn_tui.grading import cases as battery
from attn_tui.grading import runner, sandbox
from attn_tui.tui.cli import main
from tests.grading.leftovers import descendants, named_leftovers, written_outside

HOSTILE = Path(__file__).with_name("hostile")
STUDENTS = Path(__file__).with_name("students")
NEEDS_SANDBOX = "bubblewrap (bwrap) cannot run here: " + str(sandbox.problem())

# attack → what its verdict says (None: any failing verdict), whether only the sandbox holds it
ATTACKS = {
    "forges_parameters": ("its reply could not be read (parameters: ", False),
    "forges_dtypes": ("its reply could not be read (dtypes: ", False),
    "forges_header_list": ("its reply could not be read (a header that is not an object)", False),
    "forges_header_deep": ("its reply could not be read (a header of 400,000 bytes)", False),
    "forges_header_huge": ("claims 10,000,000,000,000 values in 8 bytes", False),
    "forges_header_complex": ("its reply could not be read (returned complex values)", False),
    "returns_complex": ("TypeError: returned complex values", False),
    "fork_bomb": ("over the limit of processes", False),
    # (the shocker escape: refused by the worker's seccomp filter wherever it keeps a capability)
    "opens_by_handle": ("opened -1, errno 1", False),
    "imports_reference": ("attn-tui is hidden from students' code: it holds the reference", True),
    "reads_reference": ("RuntimeError: found 0 []", True),
    # (root in a user namespace of its own, it still cannot unmount what hides attn-tui)
    "unhides": ("unmounted 0 of", True),
    "kills_classmates": (None, True),
    "writes_outside": (None, True),
}


@pytest.fixture(params=[pytest.param("sandbox", marks=pytest.mark.sandbox), "no sandbox"])
def mode(request, monkeypatch):
    if request.param == "sandbox":
        if sandbox.problem() is not None:
            pytest.skip(NEEDS_SANDBOX)
    else:
        monkeypatch.setattr(sandbox, "problem", lambda: "made unavailable by a test")
        monkeypatch.setattr(runner, "_said_without_sandbox", False)
    return request.param


def holds(attack: str, mode: str) -> bool:
    """Whether what the attack tries is stopped in this mode: without a sandbox, the processes
    and files of a worker of its own uid are ended only when grading runs as root."""
    _, sandbox_only = ATTACKS[attack]
    if mode == "sandbox" or not sandbox_only:
        return True
    return attack in ("kills_classmates", "writes_outside") and os.geteuid() == 0


def class_folder(tmp_path: Path, attack: str) -> Path:
    folder = tmp_path / "class"
    folder.mkdir()
    shutil.copy(HOSTILE / f"{attack}.py", folder / f"a_{attack}.py")  # (graded first)
    shutil.copy(STUDENTS / "chapter.py", folder / "b_chapter.py")
    shutil.copy(STUDENTS / "unscaled.py", folder / "c_unscaled.py")
    return folder


def assert_nothing_left(before: set[int]) -> None:
    deadline = time.monotonic() + 3  # (a killed process's exit is the kernel's, a moment later)
    while time.monotonic() < deadline and (named_leftovers() or descendants() - before):
        time.sleep(0.05)
    assert named_leftovers() == []
    assert descendants() - before == set()
    assert written_outside() == []


@pytest.mark.parametrize("attack", sorted(ATTACKS))
def test_an_attack_beside_two_honest_classmates(attack, mode, tmp_path, capsys):
    if not holds(attack, mode):
        pytest.skip(
            "without a sandbox this attack is not stopped"
            + ("" if os.geteuid() == 0 else " as an ordinary user")
            + " (the line grading says then names it)"
        )
    folder = class_folder(tmp_path, attack)
    before = descendants()
    status = main(["grade", str(folder), "--json"])
    out, err = capsys.readouterr()
    assert status == 1
    records = {Path(r["file"]).name: r for r in json.loads(out)["submissions"]}
    assert records["b_chapter.py"]["status"] == "ok", records["b_chapter.py"]
    assert records["c_unscaled.py"]["status"] == "differs"
    assert records["c_unscaled.py"]["diagnosis"]["mistake"] == "unscaled"
    attacker = records[f"a_{attack}.py"]
    assert not attacker["ok"]
    expected, _ = ATTACKS[attack]
    if expected is not None:  # (in its verdict, or in the note of the statement that failed)
        said = [attacker["verdict"], *(note["message"] for note in attacker.get("notes", []))]
        assert any(expected in words for words in said), attacker
    assert_nothing_left(before)
    if mode == "no sandbox":
        assert err.count("grading without a sandbox (made unavailable by a test)") == 1

    status = main(["check", "cat_sat", "--impl", str(folder / f"a_{attack}.py"), "--cases"])
    out, _ = capsys.readouterr()
    assert status == 1
    assert "✗" in out
    if expected is not None:
        assert expected in out
    assert_nothing_left(before)


@pytest.mark.parametrize("attack", ["deep_folders"])
def test_a_correct_submission_that_leaves_3000_nested_folders_passes_and_they_go(
    attack, mode, tmp_path, capsys
):
    folder = class_folder(tmp_path, attack)
    made = []
    real = runner.tempfile.mkdtemp

    def remembered(*args, **kwargs):
        made.append(real(*args, **kwargs))
        return made[-1]

    runner_mkdtemp = pytest.MonkeyPatch()
    runner_mkdtemp.setattr(runner.tempfile, "mkdtemp", remembered)
    try:
        status = main(["grade", str(folder), "--json"])
    finally:
        runner_mkdtemp.undo()
    records = {Path(r["file"]).name: r for r in json.loads(capsys.readouterr().out)["submissions"]}
    assert status == 1  # (the unscaled classmate)
    assert records["a_deep_folders.py"]["status"] == "ok"
    assert records["b_chapter.py"]["status"] == "ok"
    assert made == [] if mode == "sandbox" else len(made) == 3  # (in the sandbox: a tmpfs)
    assert not any(os.path.exists(path) for path in made)


def answers_table(cases) -> dict:
    """What a student could compute beforehand for every case whose numbers they know: each
    case's (output, weights), by an independent formula, keyed as looks_up_answers.py looks."""
    from tests.grading.hostile.looks_up_answers import key

    table = {}
    for case in cases:
        given, allowed = case.inputs(), case.allowed()
        scores = given["Q"] @ given["K"].T / np.sqrt(given["Q"].shape[1])
        scores = np.where(allowed, scores, -np.inf)
        top = np.max(scores, axis=1, keepdims=True)
        exp = np.where(allowed, np.exp(scores - np.where(np.isfinite(top), top, 0.0)), 0.0)
        total = exp.sum(axis=1, keepdims=True)
        weights = np.divide(exp, total, out=np.zeros_like(exp), where=total > 0)
        out = weights @ given["V"]
        table[key(given["Q"], given["K"], given["V"], allowed)] = (out.tolist(), weights.tolist())
    return table


def test_a_file_that_looks_up_the_fixed_cases_answers_does_not_pass_grade(tmp_path, capsys):
    template = (HOSTILE / "looks_up_answers.py").read_text()
    table = answers_table(battery.battery())
    source = template.replace("TABLE: dict = {}", f"TABLE: dict = {table!r}")
    folder = class_folder(tmp_path, "looks_up_answers")
    (folder / "a_looks_up_answers.py").write_text(source)
    # the table is right: on the fixed numbers a student's own check shows, it passes them all
    status = main(["check", "cat_sat", "--impl", str(folder / "a_looks_up_answers.py"), "--cases"])
    assert status == 0, capsys.readouterr().out
    capsys.readouterr()

    status = main(["grade", str(folder), "--json"])
    found = json.loads(capsys.readouterr().out)
    assert status == 1
    records = {Path(r["file"]).name: r for r in found["submissions"]}
    assert records["b_chapter.py"]["status"] == "ok", records["b_chapter.py"]
    assert records["c_unscaled.py"]["diagnosis"]["mistake"] == "unscaled"
    attacker = records["a_looks_up_answers.py"]
    assert not attacker["ok"]
    random_cases = [r for r in attacker["results"] if r["case"].startswith("random ")]
    assert random_cases and not any(r["ok"] for r in random_cases)
    assert type(found["seed"]) is int

    # the seed told draws the same numbers again: the same verdicts, case by case
    status = main(["grade", str(folder), "--json", "--seed", str(found["seed"])])
    again = json.loads(capsys.readouterr().out)
    assert again["seed"] == found["seed"]
    assert [r["results"] for r in again["submissions"]] == [
        r["results"] for r in found["submissions"]
    ]


def test_a_file_too_deep_for_the_parser_ends_no_ones_grading(tmp_path, capsys):
    """In a student's folder of several files grade reads each with ast, in its own process, to
    find the one that defines attention: an expression of 300,000 terms is beyond the parser's
    recursion (RecursionError, not a SyntaxError), a notebook's JSON 10⁶ deep too. It once ended
    grade for the whole class (exit 3, no table)."""
    folder = tmp_path / "class"
    for student, source in (("alice", "chapter.py"), ("bob", "unscaled.py")):
        (folder / student).mkdir(parents=True)
        shutil.copy(STUDENTS / source, folder / student / "attention.py")
    (folder / "carol").mkdir()
    (folder / "carol" / "attention.py").write_text("x = " + "1+" * 300_000 + "1\n")
    shutil.copy(STUDENTS / "chapter.py", folder / "carol" / "helpers.py")
    (folder / "dave").mkdir()
    (folder / "dave" / "homework.ipynb").write_text("[" * 10**6 + "]" * 10**6)
    (folder / "dave" / "helpers.py").write_text("import numpy as np\n")
    status = main(["grade", str(folder), "--json"])
    records = {r["student"]: r for r in json.loads(capsys.readouterr().out)["submissions"]}
    assert status == 1
    assert records["alice"]["status"] == "ok", records["alice"]
    assert records["bob"]["diagnosis"]["mistake"] == "unscaled"
    assert set(records) == {"alice", "bob", "carol", "dave"}
    assert not records["dave"]["ok"]


def test_a_fifo_among_a_students_files_does_not_hold_grade(tmp_path, capsys):
    """A student's folder holds attention.py and a FIFO named helpers.py: grade reads each file
    with ast to find the submission, and opening the FIFO waited for a writer, for ever."""
    folder = tmp_path / "class"
    for student, source in (("alice", "chapter.py"), ("eve", "chapter.py"), ("bob", "unscaled.py")):
        (folder / student).mkdir(parents=True)
        shutil.copy(STUDENTS / source, folder / student / "attention.py")
    fifos = [folder / "eve" / "helpers.py", folder / "eve" / "notes.ipynb"]
    for fifo in fifos:
        os.mkfifo(fifo)
    done: list[int] = []
    grading = threading.Thread(target=lambda: done.append(main(["grade", str(folder), "--json"])))
    grading.start()
    grading.join(timeout=60)
    held = grading.is_alive()
    ends = time.monotonic() + 30
    while grading.is_alive() and time.monotonic() < ends:
        for fifo in fifos:  # (a reader still waiting is let go: a writer comes and leaves)
            try:
                os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
            except OSError:
                pass
        grading.join(timeout=0.1)
    assert not held, "grade waited on a FIFO"
    records = {r["student"]: r for r in json.loads(capsys.readouterr().out)["submissions"]}
    assert done == [1]
    assert records["alice"]["status"] == "ok"
    assert records["eve"]["status"] == "ok"
    assert records["bob"]["diagnosis"]["mistake"] == "unscaled"


def test_a_gradescope_metadata_file_too_deep_for_yaml_ends_no_ones_grading(tmp_path, capsys):
    """submission_metadata.yml is read with PyYAML, which nests by recursion: 50,000 brackets
    raised RecursionError, and grade ended (exit 3, no table). Gradescope's autograder grades the
    student's own upload, which may hold a file of that name."""
    folder = tmp_path / "export"
    for number, source in ((1, "chapter.py"), (2, "unscaled.py")):
        (folder / f"submission_{number}").mkdir(parents=True)
        shutil.copy(STUDENTS / source, folder / f"submission_{number}" / "attention.py")
    (folder / "submission_metadata.yml").write_text("[" * 50_000 + "]" * 50_000)
    status = main(["grade", str(folder), "--json"])
    records = {r["student"]: r for r in json.loads(capsys.readouterr().out)["submissions"]}
    assert status == 1
    assert records["submission_1"]["status"] == "ok"
    assert records["submission_2"]["diagnosis"]["mistake"] == "unscaled"
