"""One float64 attention reference for every exactness test: tests/reference.py (issue 46).
It imports nothing of attn_tui, so a mistake in core's arithmetic cannot hide in its own check;
and no test file keeps a softmax or an attention of its own beside it, where two copies could
drift apart. (A student's code in tests/grading/, a closed form worked out by hand, the chapter's
exps and FlashAttention's tile walk are not copies of it.)"""

from __future__ import annotations

import ast
import re

from tests.conftest import ROOT

# a softmax written out: exp of the scores less their largest
SHIFTED_EXP = re.compile(r"exp\([^\n]*-[^\n]*\.max\(")
# a student's code, on purpose (test_compare's student() has a student's softmax, axis and all)
NOT_REFERENCES = (
    "tests/grading/students/",
    "tests/grading/hostile/",
    "tests/teaching/test_compare.py",
    "tests/grading/test_in_process.py",  # (a student's notebook cell, run in a real kernel)
    "tests/grading/test_notebooks.py",  # (a student's helper module, utils.py)
)


def test_the_reference_imports_nothing_of_attn_tui():
    tree = ast.parse((ROOT / "tests" / "reference.py").read_text(encoding="utf-8"))
    imported = [
        alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.Import)
        for alias in node.names
    ]
    imported += [node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)]
    assert imported and not [
        name for name in imported if name.split(".")[0] in ("attn_tui", "core", "tests")
    ]


def copies_of_the_reference(text: str) -> list[str]:
    """The lines of a test module's text that compute a softmax or an attention of their own."""
    tree = ast.parse(text)
    found = [
        f"def {node.name}"
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef)
        and node.name in ("softmax", "_softmax", "attention_reference")
    ]
    return found + [line.strip() for line in text.splitlines() if SHIFTED_EXP.search(line)]


def test_no_test_keeps_a_softmax_of_its_own():
    tests = [
        path
        for path in (ROOT / "tests").rglob("*.py")
        if path.name not in ("reference.py", "test_one_reference.py")
        and not path.relative_to(ROOT).as_posix().startswith(NOT_REFERENCES)
    ]
    assert len(tests) > 100
    copies = {
        path.relative_to(ROOT).as_posix(): found
        for path in tests
        if (found := copies_of_the_reference(path.read_text(encoding="utf-8")))
    }
    assert not copies, copies


def test_a_copy_is_found():
    assert copies_of_the_reference(
        "import numpy as np\nw = np.exp(s - s.max(axis=1, keepdims=True))\n"
    )
    assert copies_of_the_reference("def softmax(x):\n    return x\n")
    assert not copies_of_the_reference("from tests.reference import softmax\nw = softmax(s)\n")
