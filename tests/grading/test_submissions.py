"""Submissions found where LMSs put them: Gradescope's export (its submission_metadata.yml names
the rows), Canvas's flat download, Moodle's and GitHub Classroom's folder per student; the file
that defines the function chosen in a folder of several, never guessed between two; an empty
folder a row; junk ignored; everything else passed over counted and named."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from attn_tui.grading.check import UsageError
from attn_tui.grading.submissions import discover, gradescope_names
from attn_tui.tui.cli import main

STUDENTS = Path(__file__).with_name("students")
NOTEBOOKS = Path(__file__).with_name("notebooks")
CHAPTER = (STUDENTS / "chapter.py").read_text(encoding="utf-8")

# as Gradescope writes it (Ruby symbols as keys; a group's submitters listed together)
METADATA = """\
submission_101:
  :submitters:
  - :name: Ada Lovelace
    :sid: '1001'
    :email: ada@example.edu
  :created_at: 2026-11-30 23:41:07.000000000 -08:00
  :score: 0.0
  :status: processed
submission_102:
  :submitters:
  - :name: Alan Turing
    :sid: '1002'
    :email: alan@example.edu
  - :name: Grace Hopper
    :sid: '1003'
    :email: grace@example.edu
  :created_at: 2026-12-01 08:02:55.000000000 -08:00
submission_103:
  :submitters:
  - :name: Edsger Dijkstra
    :sid: '1004'
    :email: ewd@example.edu
"""


def write(path: Path, text: str = CHAPTER) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def rows(discovery):
    return {
        found.student: (
            str(found.file.relative_to(found.folder or found.file.parent)) if found.file else None,
            found.export,
            found.problem,
        )
        for found in discovery.found
    }


def test_a_gradescope_export_its_names_its_helper_module_and_an_empty_submission(tmp_path):
    export = tmp_path / "assignment_4711_export"
    write(export / "submission_metadata.yml", METADATA)
    write(export / "submission_101" / "attention.py")
    notebook = (NOTEBOOKS / "jupyter_lab.ipynb").read_text(encoding="utf-8")
    write(export / "submission_102" / "homework.ipynb", notebook)
    write(export / "submission_102" / "utils.py", "def softmax(x):\n    return x\n")
    write(export / "submission_102" / ".ipynb_checkpoints" / "homework-checkpoint.ipynb", notebook)
    (export / "submission_103").mkdir()
    write(export / "__MACOSX" / "submission_101" / "._attention.py", "junk")
    found = discover([str(tmp_path)])  # (the export unpacked into a folder of its own)
    assert rows(found) == {
        "Ada Lovelace": ("attention.py", "gradescope", ""),
        "Alan Turing, Grace Hopper": ("homework.ipynb", "gradescope", ""),
        "Edsger Dijkstra": (None, "gradescope", "nothing handed in"),
    }
    group = next(f for f in found.found if f.student.startswith("Alan"))
    assert group.folder == export / "submission_102"  # (utils.py importable beside it)
    assert found.passed_over == []  # (junk is ignored, not counted)


def test_gradescope_metadata_with_ruby_tags_and_a_broken_file(tmp_path):
    path = write(
        tmp_path / "submission_metadata.yml",
        "--- !ruby/hash:ActiveSupport::HashWithIndifferentAccess\n"
        "submission_7:\n  :submitters:\n  - !ruby/hash:ActiveSupport::HashWithIndifferentAccess\n"
        "    :name: Barbara Liskov\n",
    )
    assert gradescope_names(path) == {"submission_7": "Barbara Liskov"}
    write(path, "submission_7: [unclosed\n")
    assert gradescope_names(path) == {}


def test_a_canvas_download_is_flat_and_labelled_by_the_student_part(tmp_path):
    write(tmp_path / "lovelaceada_12345_67890_attention.py")
    write(tmp_path / "turingalan_LATE_12346_67891_attention-1.py")
    write(tmp_path / "hopper_12347_67892_homework.ipynb", "{}")
    # a student's two files (Canvas renames both after them): the one defining attention
    write(tmp_path / "liskov_12348_67893_utils.py", "def softmax(x):\n    return x\n")
    write(tmp_path / "liskov_12348_67894_hw.ipynb", json.dumps(_notebook(CHAPTER)))
    found = discover([str(tmp_path)])
    assert rows(found) == {
        "lovelaceada": ("lovelaceada_12345_67890_attention.py", "canvas", ""),
        "turingalan": ("turingalan_LATE_12346_67891_attention-1.py", "canvas", ""),
        "hopper": ("hopper_12347_67892_homework.ipynb", "canvas", ""),
        "liskov": ("liskov_12348_67894_hw.ipynb", "canvas", ""),
    }
    assert all(f.folder is None for f in found.found)  # (a classmate's file is never importable)


def test_moodle_folders_and_the_file_that_defines_the_function(tmp_path):
    ada = tmp_path / "Ada Lovelace_123456_assignsubmission_file_"
    write(ada / "attention.py")
    write(ada / "softmax_utils.py", "def softmax(x):\n    return x\n")
    write(ada / "report.pdf", "%PDF")
    alan = tmp_path / "Alan Turing_123457_assignsubmission_file_"
    write(alan / "hw.py", "import numpy as np\n\nx = np.ones(3)\n")
    grace = tmp_path / "Grace Hopper_123458_assignsubmission_onlinetext_"
    write(grace / "onlinetext.html", "<p>see attached</p>")
    found = discover([str(tmp_path)])
    assert rows(found) == {
        "Ada Lovelace": ("attention.py", "moodle", ""),
        "Alan Turing": ("hw.py", "moodle", ""),  # (one file: the worker says what is missing)
        "Grace Hopper": (None, "moodle", "nothing handed in as .py or .ipynb: onlinetext.html"),
    }


def test_github_classroom_repositories_nested_code_and_an_ambiguous_one(tmp_path):
    write(tmp_path / "hw3-attention-ada" / "src" / "attention.py")
    write(tmp_path / "hw3-attention-ada" / "README.md", "# hw3")
    write(tmp_path / "hw3-attention-ada" / ".git" / "config", "[core]")
    write(tmp_path / "hw3-attention-alan" / "attention.py")
    write(tmp_path / "hw3-attention-alan" / "attention_v2.ipynb", json.dumps(_notebook(CHAPTER)))
    write(tmp_path / "hw3-attention-grace" / "solution.py", "def attn(q, k, v):\n    return q\n")
    write(tmp_path / "hw3-attention-grace" / "plots.py", "def plot(x):\n    pass\n")
    write(tmp_path / "grades.csv", "name,score\n")
    found = discover([str(tmp_path)])
    by = rows(found)
    assert by["ada"] == ("src/attention.py", "github-classroom", "")
    assert by["grace"] == ("solution.py", "github-classroom", "")  # (the one taking (Q, K, V))
    assert by["alan"][0] is None and by["alan"][2] == (
        "attention.py and attention_v2.ipynb each define attention: not guessed between "
        "(grade the one meant)"
    )
    assert found.passed_over == [(str(tmp_path / "grades.csv"), "not a .py or .ipynb file")]


def _notebook(source: str) -> dict:
    return {
        "nbformat": 4,
        "nbformat_minor": 5,
        "metadata": {},
        "cells": [{"cell_type": "code", "metadata": {}, "source": source, "outputs": []}],
    }


def test_two_students_attention_py_are_two_rows_by_folder(tmp_path):
    a = write(tmp_path / "ada" / "attention.py")
    b = write(tmp_path / "alan" / "attention.py")
    found = discover([str(a), str(b)])
    assert [f.student for f in found.found] == ["ada/attention.py", "alan/attention.py"]


def test_a_link_out_of_a_students_folder_is_not_followed(tmp_path):
    outside = write(tmp_path / "elsewhere" / "secret.py", "SECRET = 1\n")
    export = tmp_path / "export"
    write(export / "ada" / "attention.py")
    (export / "alan").mkdir(parents=True)
    os.symlink(outside, export / "alan" / "attention.py")
    found = discover([str(export)])
    assert rows(found)["alan"] == (None, "folder", "nothing handed in")
    assert found.passed_over == [
        (str(export / "alan" / "attention.py"), "a link out of the student's folder: not followed")
    ]


def test_nothing_to_grade_names_what_was_passed_over(tmp_path):
    write(tmp_path / "notes.txt", "x")
    with pytest.raises(UsageError, match=r"no \.py or \.ipynb files in .*passed over: notes\.txt"):
        discover([str(tmp_path)])


def test_grade_an_export_every_student_a_row_labelled_by_name(tmp_path, capsys):
    export = tmp_path / "export"
    write(export / "submission_metadata.yml", METADATA)
    write(export / "submission_101" / "attention.py")
    helpers, attention = CHAPTER.split("def attention", 1)  # (numpy and softmax; attention)
    source = "import numpy as np\nfrom utils import softmax\n\n\ndef attention" + attention
    write(export / "submission_102" / "homework.ipynb", json.dumps(_notebook(source)))
    write(export / "submission_102" / "utils.py", helpers)
    (export / "submission_103").mkdir()
    write(export / "notes.txt", "the TA's notes")
    status = main(["grade", str(export)])
    out = capsys.readouterr().out
    assert status == 1  # (one handed in nothing)
    lines = out.splitlines()
    assert lines[0].startswith("✓ Ada Lovelace ")
    assert lines[1].startswith("✓ Alan Turing, Grace Hopper ")
    assert lines[2].startswith("✗ Edsger Dijkstra ") and "nothing handed in" in lines[2]
    assert "Class: 2 of 3 pass every case" in out
    assert "Passed over: 1 (not students' code)" in out
    assert f"  {export / 'notes.txt'}: not a submission's folder" in out


def test_links_in_a_flat_folder_a_row_each_never_followed_out(tmp_path):
    outside = write(tmp_path / "elsewhere" / "secret.py", "SECRET = 1\n")
    flat = tmp_path / "flat"
    write(flat / "ada.py")
    os.symlink(outside, flat / "alan.py")
    os.symlink(tmp_path / "elsewhere", flat / "more")
    found = discover([str(flat)])
    assert rows(found) == {
        "ada.py": ("ada.py", "folder", ""),
        "alan.py": (None, "folder", "a link out of the folder: not followed"),
    }
    assert found.passed_over == [(str(flat / "more"), "a link to a folder: not followed")]


def test_a_folder_holding_one_students_folder_is_that_student(tmp_path):
    write(tmp_path / "class" / "ada" / "homework.ipynb", json.dumps(_notebook(CHAPTER)))
    write(tmp_path / "class" / "ada" / "utils.py", "def softmax(x):\n    return x\n")
    found = discover([str(tmp_path / "class")])
    assert rows(found) == {"ada": ("homework.ipynb", "folder", "")}


def test_a_loop_of_links_is_passed_over_never_a_crash(tmp_path):
    write(tmp_path / "ada" / "attention.py")
    os.symlink("b", tmp_path / "ada" / "a")  # (a → b → a)
    os.symlink("a", tmp_path / "ada" / "b")
    write(tmp_path / "flat" / "alan.py")
    os.symlink("self.py", tmp_path / "flat" / "self.py")
    found = discover([str(tmp_path / "ada")], one=True)
    assert rows(found) == {"ada": ("attention.py", "submission", "")}
    assert sorted(found.passed_over) == [
        (str(tmp_path / "ada" / name), "a loop of links: not followed") for name in "ab"
    ]
    found = discover([str(tmp_path / "flat")])
    assert rows(found) == {
        "alan.py": ("alan.py", "folder", ""),
        "self.py": (None, "folder", "a loop of links: not followed"),
    }


def test_two_canvas_students_of_one_name_are_two_rows(tmp_path):
    # Canvas names a file name_userid_fileid_file: two John Smiths differ in their user id
    write(tmp_path / "smithjohn_111_901_attention.py")
    write(tmp_path / "smithjohn_222_902_attention.py", "def attention(q, k, v):\n    return q\n")
    write(tmp_path / "smithjohn_222_903_utils.py", "def softmax(x):\n    return x\n")
    found = discover([str(tmp_path)])
    assert rows(found) == {
        "smithjohn (111)": ("smithjohn_111_901_attention.py", "canvas", ""),
        "smithjohn (222)": ("smithjohn_222_902_attention.py", "canvas", ""),
    }


def test_a_committed_virtual_environment_is_not_the_students_code(tmp_path):
    repo = tmp_path / "hw3-attention-ada"
    write(repo / "attention.py")
    write(repo / "tests" / "test_attention.py", "from attention import attention\n")
    write(repo / "venv" / "pyvenv.cfg", "home = /usr/bin\n")
    library = "def attention(query, key, value):\n    return value\n"
    write(repo / "venv" / "lib" / "python3.11" / "site-packages" / "pkg" / "layers.py", library)
    write(repo / "web" / "node_modules" / "x" / "attention.py", library)
    write(tmp_path / "hw3-attention-alan" / "attention.py")
    found = discover([str(tmp_path)])
    assert rows(found)["ada"] == ("attention.py", "github-classroom", "")
    assert sorted(found.passed_over) == [
        (str(repo / "venv"), "installed packages: not a student's code"),
        (str(repo / "web" / "node_modules"), "installed packages: not a student's code"),
    ]


def test_one_students_thousands_of_files_are_their_row_not_the_class_stopped(tmp_path, monkeypatch):
    from attn_tui.grading import submissions

    monkeypatch.setattr(submissions, "MAX_STUDENT_ENTRIES", 50)
    monkeypatch.setattr(submissions, "MAX_ENTRIES", 80)  # (the class's: one student's is more)
    write(tmp_path / "ada" / "attention.py")
    for i in range(60):
        write(tmp_path / "alan" / "data" / f"{i}.txt", "x")
    write(tmp_path / "alan" / "attention.py")
    found = discover([str(tmp_path)])
    assert rows(found) == {
        "ada": ("attention.py", "folder", ""),
        "alan": (
            None,
            "folder",
            "more than 50 files and folders: not looked through (grade the file meant)",
        ),
    }


def test_gradescope_names_are_text_never_a_yaml_bomb(tmp_path):
    # aliases nesting lists nine deep: str() of it would be gigabytes; a name must be text
    lines = ['a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    lines += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]" for i in range(1, 10)]
    lines += [
        "submission_1:\n  :submitters:\n  - :name: *a9\n    :sid: 1001",
        "submission_2:\n  :submitters:\n  - :name: " + "x" * 500,
    ]
    path = write(tmp_path / "submission_metadata.yml", "\n".join(lines) + "\n")
    assert gradescope_names(path) == {"submission_1": "1001", "submission_2": "x" * 200}


def test_two_moodle_students_of_one_name_are_told_apart_by_their_ids(tmp_path):
    write(tmp_path / "John Smith_123456_assignsubmission_file_" / "attention.py")
    write(tmp_path / "John Smith_654321_assignsubmission_file_" / "attention.py")
    write(tmp_path / "Ann Lee_111111_assignsubmission_file_" / "attention.py")
    assert [found.student for found in discover([str(tmp_path)]).found] == [
        "Ann Lee",
        "John Smith (123456)",
        "John Smith (654321)",
    ]


def test_a_file_of_another_name_beside_a_canvas_download_is_a_row_of_its_own(tmp_path):
    write(tmp_path / "lovelaceada_111_901_attention.py")
    write(tmp_path / "lovelaceada_111_902_utils.py", "def softmax(x):\n    return x\n")
    write(tmp_path / "turingalan_222_903_attention.py")
    write(tmp_path / "solution.py")  # (the teacher's, left in the folder)
    assert rows(discover([str(tmp_path)])) == {
        "lovelaceada": ("lovelaceada_111_901_attention.py", "canvas", ""),
        "turingalan": ("turingalan_222_903_attention.py", "canvas", ""),
        "solution.py": ("solution.py", "folder", ""),
    }


def test_a_canvas_students_helper_module_imports_under_the_name_they_gave_it(tmp_path, capsys):
    # Canvas renamed utils.py (handed in twice: utils-1.py); the student's import still finds it
    helpers, attention = CHAPTER.split("def attention", 1)  # (numpy and softmax; attention)
    source = "import numpy as np\nfrom utils import softmax\n\n\ndef attention" + attention
    write(tmp_path / "lovelaceada_111_901_attention.py", source)
    write(tmp_path / "lovelaceada_111_902_utils-1.py", helpers)
    write(tmp_path / "turingalan_222_903_attention.py", source)  # (no utils of his own)
    main(["grade", str(tmp_path), "--json"])
    by = {s["student"]: s for s in json.loads(capsys.readouterr().out)["submissions"]}
    assert by["lovelaceada"]["ok"], by["lovelaceada"]["verdict"]
    assert not by["turingalan"]["ok"]  # (a classmate's utils is never his)
    assert by["turingalan"]["notes"][0]["message"].startswith("No module named 'utils'")
