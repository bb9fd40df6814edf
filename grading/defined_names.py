"""What a student's file defines at its top level, read with ``ast`` and nothing run (a
notebook's code cells too, IPython's syntax made Python first): how grading/submissions.py tells,
in a folder of several files, which one is the submission."""

from __future__ import annotations

import ast
import os
import stat
from pathlib import Path

from attn_tui.grading.notebook_code import MAX_NOTEBOOK, NotANotebook, as_python, code_cells
from attn_tui.grading.student_code import MAX_SOURCE


def top_level(path: Path) -> list[ast.stmt]:
    """The top-level statements of a .py file or of a notebook's code cells (those that parse),
    including those inside top-level if/try/with blocks; [] when unreadable."""
    most = (MAX_NOTEBOOK if path.suffix.lower() == ".ipynb" else MAX_SOURCE) + 1
    try:
        # (without O_NONBLOCK, opening a FIFO named helpers.py waits for a writer: for ever)
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError:
        return []
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return []
        with os.fdopen(fd, "rb", closefd=False) as file:
            data = file.read(most)
    except OSError:
        return []
    finally:
        os.close(fd)
    sources: list[str] = []
    if path.suffix.lower() == ".ipynb":
        try:
            sources = [as_python(source)[0] for _, source in code_cells(data)]
        except NotANotebook:
            return []
    else:
        sources = [data.decode("utf-8", "replace")]
    statements: list[ast.stmt] = []
    for source in sources:
        try:
            tree = ast.parse(source)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            # (an expression 300,000 terms long is beyond the parser's recursion, not a syntax
            # error: in the teacher's process, where it must end no one's grading)
            continue
        pending = list(tree.body)
        while pending:
            statement = pending.pop(0)
            statements.append(statement)
            for block in ("body", "orelse", "finalbody", "handlers"):
                if not isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    pending += [
                        node
                        for node in getattr(statement, block, [])
                        if isinstance(node, (ast.stmt, ast.excepthandler))
                    ]
    return statements


def defines(path: Path, name: str) -> bool:
    """Whether the file defines ``name`` (its first part, any case) at its top level."""
    wanted = name.partition(".")[0].lower()
    for statement in top_level(path):
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            if statement.name.lower() == wanted:
                return True
        elif isinstance(statement, ast.Assign):
            if any(isinstance(t, ast.Name) and t.id.lower() == wanted for t in statement.targets):
                return True
    return False


def takes_qkv(path: Path) -> bool:
    """Whether exactly one function of the file takes (Q, K, V) first, or one class's
    ``forward`` or ``__call__`` does (after self)."""
    return sum(_takes_qkv(statement) for statement in top_level(path)) == 1


def _takes_qkv(statement: ast.stmt) -> bool:
    arguments = []
    if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
        arguments = statement.args.args
    elif isinstance(statement, ast.ClassDef):
        method = next(
            (
                node
                for name in ("forward", "__call__")
                for node in statement.body
                if isinstance(node, ast.FunctionDef) and node.name == name
            ),
            None,
        )
        arguments = method.args.args[1:] if method is not None else []
    return len(arguments) >= 3 and all(
        argument.arg.lower().startswith(letter)
        for argument, letter in zip(arguments, "qkv", strict=False)
    )
