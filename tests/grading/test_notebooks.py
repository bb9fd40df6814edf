"""Notebooks as Jupyter, Colab and VS Code save them (tests/grading/notebooks, written by hand with
each one's own metadata), run as "Run all" would: IPython's syntax never run and never a syntax
error, a cell that raises a note with its cell and line, the last definition the one graded; and a
.py file whose top-level code raises after the function keeps the function."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from attn_tui.grading.notebook_code import NotANotebook, as_python, code_cells
from attn_tui.tui.cli import main
from tests.conftest import NEEDS_MODELS

NOTEBOOKS = Path(__file__).with_name("notebooks")
STUDENTS = Path(__file__).with_name("students")


def check(capsys, path, *extra):
    status = main(["check", "cat_sat", "--impl", str(path), *extra])
    out, err = capsys.readouterr()
    return status, out, err


# ---- the line transformer ------------------------------------------------------------------


def test_ipython_lines_become_pass_and_every_line_keeps_its_number():
    source = (
        "%matplotlib inline\n"
        "!pip install -q torch\n"
        "import numpy as np\n"
        "np.mean?\n"
        "??np.sum\n"
        "files = !ls *.npy\n"
        "for f in files:\n"
        "    !echo {f}\n"
        "%time y = np.ones(3)\n"
        "x = 1 % 2\n"
    )
    python, skipped, magic = as_python(source)
    assert magic is None
    assert python.splitlines() == [
        "pass",
        "pass",
        "import numpy as np",
        "pass",
        "pass",
        "files = []",
        "for f in files:",
        "    pass",
        "y = np.ones(3)",
        "x = 1 % 2",
    ]
    assert [line for line, _ in skipped] == [1, 2, 4, 5, 6, 8, 9]
    compile(python, "cell", "exec")  # Python now


def test_text_inside_strings_and_brackets_is_never_taken_for_ipython():
    source = (
        'doc = """\n'
        "!not a shell line\n"
        "%not a magic\n"
        '"""\n'
        "total = (1 +\n"
        "    2)\n"
        "s = '# not a comment' + \"!\"\n"
    )
    python, skipped, _ = as_python(source)
    assert python == source and skipped == []


def test_python_is_left_as_it_is_every_file_of_this_project():
    """Only IPython's syntax is touched: each of the project's own 400-odd Python files (strings,
    f-strings, brackets, continuations, comments of every kind) passes through unchanged."""
    root = Path(__file__).resolve().parents[2]
    files = [
        p for folder in ("core", "grading", "tui", "tests") for p in (root / folder).rglob("*.py")
    ]
    assert len(files) > 300
    for path in files:
        source = path.read_text(encoding="utf-8")
        python, skipped, magic = as_python(source)
        assert (skipped, magic) == ([], None), path
        assert python.splitlines() == source.splitlines(), path


def test_a_cell_magic_runs_its_python_body_and_passes_over_another_language():
    python, skipped, magic = as_python("%%time\ndef f():\n    return 1\n")
    assert magic is None and python.splitlines() == ["", "def f():", "    return 1"]
    assert skipped == [(1, "%%time")]
    python, skipped, magic = as_python("\n%%bash\necho hi\nls -la\n")
    assert (python, magic) == ("", "bash") and skipped == [(2, "%%bash")]


def test_a_notebooks_source_as_lines_or_as_one_string():
    notebook = {
        "nbformat": 4,
        "nbformat_minor": 5,
        "metadata": {},
        "cells": [
            {"cell_type": "markdown", "metadata": {}, "source": ["# title"]},
            {"cell_type": "code", "metadata": {}, "source": ["a = 1\n", "b = 2"], "outputs": []},
            {"cell_type": "raw", "metadata": {}, "source": "raw"},
            {"cell_type": "code", "metadata": {}, "source": "c = 3\n"},
        ],
    }
    cells = code_cells(json.dumps(notebook).encode())
    assert cells == [(2, "a = 1\nb = 2"), (4, "c = 3\n")]  # numbered over every cell


@pytest.mark.parametrize(
    "data, said",
    [
        (b'{"cells": [{"cell_type": "code", "sour', "its JSON ends early"),
        (b"def attention(Q, K, V):\n", "not JSON at line 1, column 1"),
        (b"[1, 2]", "not a notebook's object of cells"),
        (json.dumps({"nbformat": 3, "worksheets": []}).encode(), "an nbformat 3 notebook"),
        (
            json.dumps({"nbformat": 4, "cells": [{"cell_type": "code", "source": 5}]}).encode(),
            "cell 1's source is not text",
        ),
        (json.dumps({"nbformat": 4, "cells": [{}] * 2001}).encode(), "at most 2000"),
        (b"\xff\xfe{}", "not UTF-8"),
    ],
)
def test_what_is_not_a_notebook_says_so_in_one_line(data, said):
    with pytest.raises(NotANotebook) as raised:
        code_cells(data)
    assert said in str(raised.value) and "\n" not in str(raised.value)


# ---- the three editors' notebooks, checked ---------------------------------------------------


def test_a_jupyter_lab_notebook_the_last_definition_graded_and_each_failing_cell_a_note(capsys):
    status, out, _ = check(capsys, NOTEBOOKS / "jupyter_lab.ipynb", "--cases")
    assert status == 0, out  # (its first attention, cell 3, forgot √d_k; cell 6 fixed it)
    lines = out.splitlines()
    assert lines[0].startswith("jupyter_lab.ipynb on ") and "your values match" in lines[0]
    notes = [line for line in lines if line.startswith("note: ")]
    assert notes == [
        "note: cell 2, line 1: IPython syntax, not run by the grader: %matplotlib inline "
        "(cell 2, line 1); attention? (cell 4, line 1)",
        "note: cell 2, line 3: ModuleNotFoundError: No module named 'matplotlib' "
        "(import matplotlib.pyplot as plt); then 3 more statements that needed it failed",
        "note: cell 7, line 3: AssertionError: weights should be (3, 4) "
        '(assert w.shape == (3, 4), "weights should be (3, 4)")',
    ]


@pytest.mark.models
def test_a_colab_notebook_with_shell_lines_drive_input_and_torch(capsys):
    pytest.importorskip("torch", reason=NEEDS_MODELS)
    status, out, _ = check(capsys, NOTEBOOKS / "colab.ipynb")
    assert status == 0, out
    assert "PyTorch tensors" in out.splitlines()[0]
    assert (
        "note: cell 3, line 1: ModuleNotFoundError: No module named 'google' "
        "(from google.colab import drive)" in out
    )
    assert "note: cell 5, line 1: RuntimeError: input(): lost sys.stdin" in out
    assert "!pip install -q torch (cell 2, line 1)" in out and "%%time (cell 4, line 1)" in out


def test_a_vscode_notebook_with_writefile_bash_and_a_string_source(capsys):
    status, out, _ = check(capsys, NOTEBOOKS / "vscode.ipynb", "--cases")
    assert status == 0, out  # (its softmax came from utils.py, which a %%writefile cell wrote)
    assert "mask: bool, True = may attend" in out.splitlines()[0]
    assert "note: cell 3, line 1: %%writefile utils.py: written to the grader's working" in out
    assert "note: cell 4, line 1: %%bash: not Python; the cell was not run" in out
    assert "!echo {name} (cell 6, line 2)" in out  # (and its string's "!this line" ran as text)
    assert "AssertionError" not in out


@pytest.mark.parametrize(
    "name, said",
    [
        ("truncated", "truncated.ipynb: ✗ truncated.ipynb: not a notebook: its JSON ends early"),
        ("nbformat3", "nbformat3.ipynb: ✗ nbformat3.ipynb: an nbformat 3 notebook: open it"),
        ("saved_as_python", "saved_as_python.ipynb: ✗ saved_as_python.ipynb: not a notebook: "),
    ],
)
def test_a_file_that_is_not_a_notebook_gets_one_line(capsys, name, said):
    status, out, _ = check(capsys, NOTEBOOKS / f"{name}.ipynb")
    assert status == 1
    assert out.startswith(said) and len(out.splitlines()) == 1, out


def test_a_cell_with_a_real_syntax_error_is_a_note_and_the_notebook_goes_on(capsys, tmp_path):
    notebook = {
        "nbformat": 4,
        "nbformat_minor": 5,
        "metadata": {},
        "cells": [
            {"cell_type": "code", "metadata": {}, "source": "x = (1,\n"},
            {
                "cell_type": "code",
                "metadata": {},
                "source": (STUDENTS / "chapter.py").read_text(encoding="utf-8"),
            },
            {"cell_type": "code", "metadata": {}, "source": "def broken(:\n    pass\n"},
        ],
    }
    path = tmp_path / "typo.ipynb"
    path.write_text(json.dumps(notebook), encoding="utf-8")
    status, out, _ = check(capsys, path)
    assert status == 0, out
    notes = [line for line in out.splitlines() if line.startswith("note:")]
    assert notes[0].startswith("note: cell 1, line 1: SyntaxError: '(' was never closed")
    assert notes[1].startswith("note: cell 3, line 1: SyntaxError: ")
    assert all(note.endswith("the cell was not run") for note in notes)


def test_an_error_while_a_notebooks_function_runs_names_its_cell_and_line(tmp_path):
    """Student.where: the deepest frame of the student's own, as a cell and a line in it."""
    from attn_tui.grading.runner import Submission

    notebook = {
        "nbformat": 4,
        "nbformat_minor": 5,
        "metadata": {},
        "cells": [
            {"cell_type": "markdown", "metadata": {}, "source": "# hw"},
            {"cell_type": "code", "metadata": {}, "source": "import numpy as np\n"},
            {
                "cell_type": "code",
                "metadata": {},
                "source": "def helper(x):\n    return x @ x  # not square\n",
            },
            {
                "cell_type": "code",
                "metadata": {},
                "source": "helper(np.ones((2, 3)))\ndef attention(Q, K, V):\n    return Q\n",
            },
        ],
    }
    path = tmp_path / "where.ipynb"
    path.write_text(json.dumps(notebook), encoding="utf-8")
    with Submission(path) as submission:
        info = submission.start()
    assert info["found"] and info["kind"] == "ipynb"
    (note,) = info["notes"]
    # the call was cell 4's line 1, but the matmul that raised is cell 3's line 2
    assert (note["cell"], note["line"], note["type"]) == (3, 2, "ValueError")
    assert note["message"].endswith("(return x @ x # not square)")


def test_a_notebooks_function_that_raises_while_graded_is_told_by_cell_and_line(capsys, tmp_path):
    """The worker's error reply takes its place from the loaded notebook: the cells are compiled
    under names of their own, which the notebook's path never matches."""
    notebook = {
        "nbformat": 4,
        "nbformat_minor": 5,
        "metadata": {},
        "cells": [
            {"cell_type": "markdown", "metadata": {}, "source": "# hw"},
            {
                "cell_type": "code",
                "metadata": {},
                "source": "import numpy as np\n\ndef attention(Q, K, V):\n"
                "    raise ValueError('not yet')\n",
            },
        ],
    }
    path = tmp_path / "raises.ipynb"
    path.write_text(json.dumps(notebook), encoding="utf-8")
    status, out, _ = check(capsys, path)
    assert status == 1
    # cell 2 (the markdown cell is cell 1), line 4 of it: the raise
    assert "raises.ipynb, cell 2, line 4: ValueError: not yet" in out


# ---- a .py file's top-level code --------------------------------------------------------------


def test_a_py_files_top_level_raising_after_the_function_keeps_it(capsys, tmp_path):
    chapter = (STUDENTS / "chapter.py").read_text(encoding="utf-8")
    path = tmp_path / "homework.py"
    path.write_text(
        "import matplotlib.pyplot as plt\n"
        + chapter
        + "\nassert attention(1, 2, 3) == 'my own test'\n"
        + "plt.plot([1, 2])\n",
        encoding="utf-8",
    )
    # the AttributeError (1 has no .shape) is raised in attention's own line, under the import
    shape_line = 1 + chapter.splitlines().index("    d_k = Q.shape[-1]") + 1
    status, out, _ = check(capsys, path)
    assert status == 0, out
    notes = [line for line in out.splitlines() if line.startswith("note:")]
    assert notes[0] == (
        "note: line 1: ModuleNotFoundError: No module named 'matplotlib' "
        "(import matplotlib.pyplot as plt); then 1 more statement that needed it failed"
    )
    assert notes[1].startswith(f"note: line {shape_line}: AttributeError: ")
    assert len(notes) == 2


def test_a_py_files_syntax_error_is_still_its_verdict(capsys, tmp_path):
    path = tmp_path / "typo.py"
    path.write_text("def attention(Q, K, V):\n    return Q\nx = (\n", encoding="utf-8")
    status, out, _ = check(capsys, path)
    assert status == 1 and out.startswith("typo.py: ✗ typo.py:3:5: syntax error: ")


def test_a_future_import_holds_for_the_whole_file(capsys, tmp_path):
    path = tmp_path / "future.py"
    path.write_text(
        "from __future__ import annotations\n"
        + (STUDENTS / "chapter.py").read_text(encoding="utf-8")
        + "\ndef typed(x: NotDefinedAnywhere) -> NotDefinedEither:\n    return x\n",
        encoding="utf-8",
    )
    status, out, _ = check(capsys, path)
    assert status == 0 and "note:" not in out, out


# ---- the function under another name ------------------------------------------------------------


def test_the_one_function_taking_q_k_v_is_graded_and_said(capsys, tmp_path):
    path = tmp_path / "renamed.py"
    path.write_text(
        (STUDENTS / "chapter.py")
        .read_text(encoding="utf-8")
        .replace(
            "def attention(Q, K, V, causal=True)", "def scaled_dot_product(q, k, v, causal=True)"
        )
        .replace("d_k = Q.shape", "Q, K, V = q, k, v\n    d_k = Q.shape"),
        encoding="utf-8",
    )
    status, out, _ = check(capsys, path)
    assert status == 0, out
    assert "graded scaled_dot_product, the one function that takes (Q, K, V)" in out


def test_two_functions_taking_q_k_v_are_not_guessed_between(capsys, tmp_path):
    path = tmp_path / "two.py"
    path.write_text(
        "def attn_a(q, k, v):\n    return q\n\n\ndef attn_b(queries, keys, values, mask=None):\n"
        "    return q\n",
        encoding="utf-8",
    )
    status, out, _ = check(capsys, path)
    assert status == 1 and out.startswith("two.py: ✗ no attention")
    assert "note: no attention, and 2 functions take (Q, K, V): attn_a, attn_b" in out


def test_the_workers_files_alone_read_a_notebook(tmp_path):
    """The worker's own files (runner.WORKER_FILES), copied alone to a folder, read a notebook:
    they import nothing of attn-tui, so a sandbox that shows the worker only them works."""
    import shutil
    import subprocess
    import sys

    from attn_tui.grading import runner

    for name in runner.WORKER_FILES:
        shutil.copy(Path(runner.__file__).with_name(name), tmp_path / name)
    script = (
        "import sys; sys.path.insert(0, sys.argv[1])\n"
        "from student_code import Student, describe\n"
        "info = describe(Student(sys.argv[2]), 'attention', '')\n"
        "assert info['found'] and info['kind'] == 'ipynb', info\n"
        "assert not [m for m in sys.modules if m.startswith('attn_tui')]\n"
    )
    done = subprocess.run(
        [sys.executable, "-I", "-c", script, str(tmp_path), str(NOTEBOOKS / "jupyter_lab.ipynb")],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr


def test_grade_shows_how_each_notebook_was_read(capsys, tmp_path):
    status = main(
        [
            "grade",
            str(NOTEBOOKS / "jupyter_lab.ipynb"),
            str(NOTEBOOKS / "truncated.ipynb"),
            "--json",
        ]
    )
    assert status == 1
    by_file = {Path(s["file"]).name: s for s in json.loads(capsys.readouterr().out)["submissions"]}
    lab = by_file["jupyter_lab.ipynb"]
    assert lab["ok"] and lab["kind"] == "ipynb" and lab["function"] == "attention"
    assert lab["returns"] == "(out, weights)" and "causal=… as a keyword" in lab["convention"]
    assert [(note["cell"], note["line"], note["type"]) for note in lab["notes"]] == [
        (2, 1, "IPython"),
        (2, 3, "ModuleNotFoundError"),
        (7, 3, "AssertionError"),
    ]
    broken = by_file["truncated.ipynb"]
    assert (broken["status"], broken["words"]) == ("unreadable", "not a notebook")
    main(["grade", str(NOTEBOOKS / "jupyter_lab.ipynb")])
    table = capsys.readouterr().out.splitlines()
    assert table[0].startswith("✓ jupyter_lab.ipynb")
    assert table[2] == (
        "    note: cell 2, line 3: ModuleNotFoundError: No module named 'matplotlib' "
        "(import matplotlib.pyplot as plt); then 3 more statements that needed it failed"
    )


HELPERS = """\
import numpy as np


def softmax(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)
"""
USES_SOFTMAX = """\
import numpy as np


def attention(Q, K, V, causal=False):
    s = Q @ K.T / np.sqrt(Q.shape[-1])
    if causal:
        s = np.where(np.triu(np.ones(s.shape, bool), 1), -np.inf, s)
    w = softmax(s)
    return w @ V, w
"""


def _cells(*sources: str) -> str:
    cells = [
        {"cell_type": "code", "metadata": {}, "source": source, "outputs": []} for source in sources
    ]
    return json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": cells})


def test_run_runs_a_file_beside_the_notebook_and_no_other(capsys, tmp_path):
    # %run helpers.py puts softmax in the notebook's namespace, as Jupyter does: a correct
    # student who wrote it so is not failed with "name 'softmax' is not defined"
    (tmp_path / "ada").mkdir()
    (tmp_path / "ada" / "helpers.py").write_text(HELPERS, encoding="utf-8")
    (tmp_path / "ada" / "hw.ipynb").write_text(_cells("%run helpers.py", USES_SOFTMAX))
    (tmp_path / "alan").mkdir()
    written = _cells("%%writefile helpers.py\n" + HELPERS, "%run helpers.py", USES_SOFTMAX)
    (tmp_path / "alan" / "hw.ipynb").write_text(written)
    (tmp_path / "grace").mkdir()
    outside = _cells("%run ../ada/helpers.py", USES_SOFTMAX)
    (tmp_path / "grace" / "hw.ipynb").write_text(outside)
    (tmp_path / "edsger").mkdir()  # (a link to a classmate's file, under a plain name)
    (tmp_path / "edsger" / "helpers.py").symlink_to(tmp_path / "ada" / "helpers.py")
    (tmp_path / "edsger" / "hw.ipynb").write_text(_cells("%run helpers.py", USES_SOFTMAX))
    main(["grade", str(tmp_path), "--json"])
    by = {s["student"]: s for s in json.loads(capsys.readouterr().out)["submissions"]}
    assert by["ada"]["ok"] and by["alan"]["ok"], (by["ada"]["verdict"], by["alan"]["verdict"])
    assert not by["grace"]["ok"] and not by["edsger"]["ok"]
    assert by["grace"]["notes"][0] == {
        "cell": 1,
        "line": 1,
        "type": "IPython",
        "message": "%run ../ada/helpers.py: only a .py file beside the notebook is run; not found",
    }


def test_a_cells_sys_exit_is_a_note_as_in_jupyter(capsys, tmp_path):
    # IPython catches a cell's SystemExit and the kernel keeps the function defined above it
    chapter = (STUDENTS / "chapter.py").read_text(encoding="utf-8")
    notebook = tmp_path / "hw.ipynb"
    notebook.write_text(_cells(chapter, "import sys\nsys.exit(0)", "exit()"), encoding="utf-8")
    main(["grade", str(notebook), "--json"])
    found = json.loads(capsys.readouterr().out)["submissions"][0]
    assert found["passed"] == found["cases"] and found["status"] == "ok", found["verdict"]
    assert [(note["cell"], note["line"], note["type"]) for note in found["notes"]] == [
        (2, 2, "SystemExit"),
        (3, 1, "SystemExit"),
    ]
