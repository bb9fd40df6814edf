"""The gradebooks, parsed back as a gradebook would read them: CSV with the csv module, JUnit with
an XML parser, Gradescope's results.json with its fields and its scores summed. Records made by
hand (the numbers below are counted from them), then one real grade writing all three."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path
from xml.etree import ElementTree

import pytest

from attn_tui.grading import gradebook
from attn_tui.grading.record import Check, Diagnosis, Graded, Note, Outcome
from attn_tui.tui.cli import main

STUDENTS = Path(__file__).with_name("students")
CASES = ["cat_sat", "T = 1", "large logits"]

RIGHT = Graded(
    student="Ada Lovelace",
    file="/export/submission_101/attention.py",
    cases=3,
    ok=True,
    status="ok",
    passed=3,
    words="right",
    outcomes=tuple(Outcome(case, True, f"✓ {case}") for case in CASES),
    function="attention",
    convention="NumPy arrays (T, d), causal=… as a keyword",
    returns="(out, weights)",
    seconds=1.2,
)
UNSCALED = Graded(
    student='=HYPERLINK("http://x")',  # a name a spreadsheet would run
    file="/export/b.ipynb",
    cases=3,
    status="differs",
    passed=1,
    words="forgot to divide by √d_k",
    verdict="✗ cat_sat: weights (cat, the): yours 0.269, attention 0.330 — not divided",
    diagnosis=Diagnosis("unscaled", "not divided by √d_k", "divide by √d_k", "cat_sat", "weights"),
    outcomes=(
        Outcome(
            "cat_sat",
            False,
            "✗ cat_sat: weights — not divided",
            False,
            "unscaled",
            "the scores were not divided by √d_k",
            "divide the scores by np.sqrt(d_k)",
        ),
        Outcome("T = 1", True, "✓ T = 1"),
        Outcome("large logits", False, "✗ large logits: <b>nan</b>", False),
    ),
    softmax=Check(False, ("softmax: ✗ overflows",)),
    kind="ipynb",
    notes=(Note(3, 1, "ModuleNotFoundError", "No module named 'google'"),),
    seconds=2.6,
)
NOT_RUN = Graded(
    student="Alan",
    file="/export/c.py",
    cases=2,
    status="differs",
    passed=2,
    ok=True,
    words="right",
    outcomes=(
        Outcome("cat_sat", True, "✓ cat_sat"),
        Outcome("T = 1", True, "✓ T = 1"),
        Outcome("large logits", False, "– large logits: not run: no mask argument", True),
    ),
    not_run=("large logits",),
)
BROKEN = Graded(
    student="Grace",
    file="/export/d.py",
    cases=3,
    status="syntax",
    words="a syntax error",
    verdict="d.py:4:36: syntax error: expected ':'",
)
EMPTY = Graded(
    student="Edsger",
    file="",
    cases=3,
    status="empty",
    words="nothing handed in",
    verdict="nothing handed in",
)


def test_csv_a_row_per_student_with_the_score():
    rows = list(csv.DictReader(io.StringIO(gradebook.as_csv([RIGHT, UNSCALED, BROKEN, EMPTY]))))
    assert [row["student"] for row in rows] == [
        "Ada Lovelace",
        '\'=HYPERLINK("http://x")',  # (text, not a formula)
        "Grace",
        "Edsger",
    ]
    assert [(row["passed"], row["of"], row["score"]) for row in rows] == [
        ("3", "3", "3"),
        ("1", "3", "1"),
        ("0", "3", "0"),
        ("0", "3", "0"),
    ]
    assert [row["first_mistake"] for row in rows] == [
        "",
        "forgot to divide by √d_k",
        "a syntax error",
        "nothing handed in",
    ]
    assert rows[0]["file"] == "/export/submission_101/attention.py"
    scaled = list(csv.DictReader(io.StringIO(gradebook.as_csv([UNSCALED], points=10))))
    assert float(scaled[0]["score"]) == pytest.approx(10 / 3)


def test_junit_a_testsuite_per_student_a_testcase_per_case():
    root = ElementTree.fromstring(
        gradebook.as_junit([RIGHT, UNSCALED, NOT_RUN, BROKEN], CASES).encode("utf-8")
    )
    suites = root.findall("testsuite")
    assert [suite.get("name") for suite in suites] == [
        "Ada Lovelace",
        '=HYPERLINK("http://x")',
        "Alan",
        "Grace",
    ]
    counts = [
        tuple(int(suite.get(key)) for key in ("tests", "failures", "errors", "skipped"))
        for suite in suites
    ]
    # Ada: 3 right; the notebook: 2 cases wrong and its own softmax; Alan: one not run;
    # Grace's syntax error: every case an error
    assert counts == [(3, 0, 0, 0), (4, 3, 0, 0), (3, 0, 0, 1), (3, 0, 3, 0)]
    assert int(root.get("tests")) == 13 and int(root.get("failures")) == 3
    wrong = suites[1].find("testcase[@name='cat_sat']/failure")
    assert wrong.get("message") == "✗ cat_sat: weights — not divided"
    assert "Fix: divide the scores by np.sqrt(d_k)" in wrong.text
    assert suites[1].find("system-out").text == (
        "note: cell 3, line 1: ModuleNotFoundError: No module named 'google'"
    )
    assert (
        suites[3].find("testcase/error").get("message") == "d.py:4:36: syntax error: expected ':'"
    )


def test_junit_holds_a_students_control_characters_as_visible_text():
    evil = Graded(student="x\x1b[31m\x00y", file="f.py", cases=1, verdict="bad\x07", status="exit")
    root = ElementTree.fromstring(gradebook.as_junit([evil], ["cat_sat"]).encode("utf-8"))
    assert root.find("testsuite").get("name") == "x␛[31m␀y"


def test_junit_holds_what_xml_forbids_even_as_a_reference():
    # U+FFFE and U+FFFF (and a lone surrogate) in a student's exception message or folder name
    # made the whole class's file one an XML parser rejects
    evil = Graded(
        student="n\ufffe",
        file="f.py",
        cases=1,
        status="differs",
        outcomes=(Outcome("cat_sat", False, "✗ cat_sat: ValueError: a\uffff b\ud800"),),
    )
    root = ElementTree.fromstring(gradebook.as_junit([evil], ["cat_sat"]).encode("utf-8"))
    assert root.find("testsuite").get("name") == "n<U+FFFE>"
    failure = root.find("testsuite/testcase/failure")
    assert failure.get("message") == "✗ cat_sat: ValueError: a<U+FFFF> b<U+D800>"


def test_gradescope_results_json_its_fields_and_its_scores_sum():
    results = json.loads(gradebook.as_gradescope(UNSCALED, CASES))
    assert set(results) >= {"score", "execution_time", "output", "tests"}
    assert results["execution_time"] == 3  # (2.6 s, in whole seconds up)
    tests = results["tests"]
    assert [test["name"] for test in tests] == CASES + ["own softmax"]
    for test in tests:
        assert set(test) >= {"name", "score", "max_score", "status", "output", "visibility"}
        assert test["output_format"] == "md" and test["status"] in ("passed", "failed")
    assert [(test["score"], test["max_score"], test["status"]) for test in tests] == [
        (0, 1, "failed"),
        (1, 1, "passed"),
        (0, 1, "failed"),
        (0, 0, "failed"),  # (told, not scored)
    ]
    assert results["score"] == sum(test["score"] for test in tests) == 1
    assert "**Fix:** divide the scores by np.sqrt(d\\_k)" in tests[0]["output"]
    assert "**Likely bug:** the scores were not divided by √d\\_k" in tests[0]["output"]
    assert "&lt;" not in tests[2]["output"] and "\\<b\\>" in tests[2]["output"]  # (no HTML)
    assert "No module named 'google'" in results["output"]


def test_gradescope_points_scale_and_a_case_not_run_is_worth_nothing():
    results = json.loads(gradebook.as_gradescope(NOT_RUN, CASES, points=10))
    scores = [(test["score"], test["max_score"]) for test in results["tests"]]
    assert scores == [(5, 5), (5, 5), (0, 0)]
    assert results["score"] == 10
    assert results["tests"][2]["output"].startswith("not run: ")
    broken = json.loads(gradebook.as_gradescope(BROKEN, CASES, points=30))
    assert [test["max_score"] for test in broken["tests"]] == [10, 10, 10]
    assert broken["score"] == 0 and all(t["status"] == "failed" for t in broken["tests"])
    assert "syntax error" in broken["tests"][0]["output"]


def test_grade_writes_the_three_gradebooks(tmp_path, capsys):
    student = tmp_path / "alan" / "attention.py"
    student.parent.mkdir()
    student.write_text((STUDENTS / "unscaled.py").read_text(encoding="utf-8"), encoding="utf-8")
    status = main(
        [
            "grade",
            str(student),
            "--csv",
            str(tmp_path / "grades.csv"),
            "--junit",
            str(tmp_path / "junit.xml"),
            "--gradescope",
            str(tmp_path / "results.json"),
            "--points",
            "50",
            "--json",
        ]
    )
    assert status == 1
    shown = json.loads(capsys.readouterr().out)["submissions"][0]
    (row,) = csv.DictReader(io.StringIO((tmp_path / "grades.csv").read_text(encoding="utf-8")))
    assert (row["student"], row["first_mistake"]) == ("attention.py", "forgot to divide by √d_k")
    assert (int(row["passed"]), int(row["of"])) == (shown["passed"], shown["cases"])
    assert float(row["score"]) == pytest.approx(50 * shown["passed"] / shown["cases"])
    suite = ElementTree.parse(tmp_path / "junit.xml").getroot().find("testsuite")
    own = shown["softmax"]  # (its own softmax is a testcase of its own)
    assert int(suite.get("tests")) == len(shown["results"]) + (own is not None)
    failures = suite.findall("testcase/failure")
    wrong = [r for r in shown["results"] if not r["ok"] and r["case"] not in shown["not_run"]]
    assert len(suite.findall("testcase/skipped")) == len(shown["not_run"])
    assert len(failures) == len(wrong) + (own is not None and not own["ok"])
    results = json.loads((tmp_path / "results.json").read_text(encoding="utf-8"))
    counted = [t for t in results["tests"] if t["max_score"] > 0]
    assert sum(t["max_score"] for t in counted) == pytest.approx(50)
    assert results["score"] == pytest.approx(sum(t["score"] for t in results["tests"]))
    assert results["score"] == pytest.approx(float(row["score"]), abs=1e-6)
    assert shown["convention"] and shown["function"] == "attention" and shown["kind"] == "py"


def test_gradescope_takes_one_submission(tmp_path, capsys):
    (tmp_path / "a.py").write_text("x = 1\n")
    (tmp_path / "b.py").write_text("x = 1\n")
    with pytest.raises(SystemExit):
        main(["grade", str(tmp_path / "a.py"), str(tmp_path / "b.py"), "--gradescope", "r.json"])
    assert "--gradescope writes one submission's results.json; found 2" in capsys.readouterr().err


def test_markdown_holds_a_students_text_as_text_never_markup():
    # an exception message opening an HTML comment would hide every row after it on GitHub; a
    # name with a link or an image would reach out of the course's notes
    hidden = Graded(
        student="[click](http://x.example) <img src=x>",
        file="/export/a`b.py",
        cases=3,
        status="differs",
        words="an exception",
        verdict="✗ cat_sat: a.py:2: ValueError: <!-- (raise ValueError('<!--'))",
    )
    out = gradebook.markdown([hidden, RIGHT], [("/export/`<!--`.txt", "not a .py or .ipynb file")])
    assert not re.search(r"(?<!\\)[<>\[\]`]", out)  # (every one of theirs escaped)
    row = next(line for line in out.splitlines() if line.startswith("| \\[click"))
    assert row == (
        "| \\[click\\](http://x.example) \\<img src=x\\> | 0/3 "
        "| ✗ cat_sat: a.py:2: ValueError: \\<!-- (raise ValueError('\\<!--')) | — |"
    )
    assert "| Ada Lovelace | 3/3 | right | — |" in out  # (the row after it is still a row)
    assert "- /export/\\`\\<!--\\`.txt: not a .py or .ipynb file" in out


def test_a_gradebook_is_written_through_a_link_and_into_a_pipe(tmp_path):
    import os
    import stat

    from attn_tui.grading.grade import write_file

    # a link the teacher made to the course's shared gradebook: the file changes, the link stays
    shared = tmp_path / "shared" / "grades.csv"
    shared.parent.mkdir()
    shared.write_text("old\n", encoding="utf-8")
    link = tmp_path / "grades.csv"
    link.symlink_to(shared)
    write_file(str(link), "student,score\n")
    assert link.is_symlink() and shared.read_text(encoding="utf-8") == "student,score\n"
    # a pipe (as /dev/stdout is one) is written into, never replaced by a file
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    reader = os.open(pipe, os.O_RDONLY | os.O_NONBLOCK)
    try:
        write_file(str(pipe), "student,score\n")
        assert stat.S_ISFIFO(os.lstat(pipe).st_mode)
        assert os.read(reader, 100) == b"student,score\n"
    finally:
        os.close(reader)
