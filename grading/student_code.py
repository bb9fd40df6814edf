"""The student's code as the worker holds it: their file (a .py file, or a Jupyter notebook's code
cells) run into one module namespace, and the function (or method) a grader asks for found in it,
with what it was found as and what happened on the way (``notes``).

The worker (grading/worker.py) imports this module from its own folder, never through attn-tui:
like the worker, it imports nothing of attn-tui and only the standard library, so that a sandbox
may hide attn-tui entirely. The parent reads notebooks with it too (``code_cells``), to find which
file of a student's folder defines the function without running anything.

How the code is run, as the student ran it:
- A .py file is compiled whole (a syntax error is the file's verdict), then run one top-level
  statement at a time: a statement that raises (a plot without matplotlib, a test the student
  left failing) is a note and the rest still runs, so a correct function is never lost to it.
- A notebook's code cells run in order in one namespace, as "Run all" would (the last
  definition counts), each cell a statement at a time as above. IPython's own syntax (shell
  lines ``!…``, magics ``%…``/``%%…``, help ``x?``) is never run and never a syntax error: a
  small line transformer turns it into ``pass`` keeping every line where it was, so an error's
  line is the student's line in their cell. A cell that is not Python at all is a note too.
- What stays a verdict: running out of memory, writing past the file limit, ``sys.exit()``.
"""

from __future__ import annotations
import __future__  # (the features a student's own __future__ import turns on, for their file)

import ast
import errno
import importlib.util
import inspect
import linecache
import os
import sys
import types

if __package__:  # attn_tui.grading.student_code, in the parent
    from .notebook_code import MAX_NOTEBOOK, as_python, code_cells, read_bounded
else:  # beside the worker, which imports nothing of attn-tui
    from notebook_code import MAX_NOTEBOOK, as_python, code_cells, read_bounded

MAX_SOURCE = 4 * 2**20  # bytes of a .py file
MAX_NOTES = 50
MAX_WRITTEN = 2**20  # bytes a %%writefile cell may write
WRITE_CELL_MAGICS = frozenset({"writefile", "file"})
QKV = ("q", "k", "v")
MASK_LIKE = ("mask", "causal")


# ---- the student's module ------------------------------------------------------------------------


def _display(*objects, **options) -> None:
    """IPython's display(), which a notebook may call without importing it: shows nothing."""


class Student:
    """The student's module and the function (or method) it was asked for."""

    def __init__(self, path: str, folder: str | None = None) -> None:
        self.path = os.path.realpath(path)
        self.kind = "ipynb" if self.path.lower().endswith(".ipynb") else "py"
        self.notes: list[dict] = []
        self.chosen: str | None = None  # the one (Q, K, V) function taken for a name not found
        self._more_notes = 0
        self._cells: dict[str, int] = {}  # a cell's code file name → its cell number
        self._flags = 0  # the __future__ features the student's code turned on
        self._unbound: dict[str, dict] = {}  # a name a failed statement bound → its note
        self._ran: set[str] = set()  # the files a notebook's %run ran (their code is theirs too)
        self._folder = folder  # (their own folder: what a notebook's %run may run from)
        self.module = types.ModuleType("student")
        self.module.__file__ = self.path
        sys.modules["student"] = self.module
        if folder:  # (their helper modules, as they imported them)
            folder = os.path.realpath(folder)
            sys.path.insert(0, folder)
            own = os.path.dirname(self.path)
            if own != folder and own.startswith(folder + os.sep):  # (src/attention.py)
                sys.path.insert(0, own)
        if self.kind == "ipynb":
            # Jupyter runs a notebook in its own folder, '' on sys.path: what a %%writefile
            # cell wrote there imports (here: the worker's own working folder)
            sys.path.append(os.getcwd())
            self._run_notebook()
        else:
            self._run_file()
        self.notes.sort(key=lambda note: (note["cell"] or 0, note["line"] or 0))
        for note in self.notes:
            later = note.pop("later", 0)
            if later:
                note["message"] += (
                    f"; then {later} more statement{'s' * (later > 1)} that needed it failed"
                )
        if self._more_notes:
            self.notes.append(
                {
                    "cell": None,
                    "line": None,
                    "type": "notes",
                    "message": f"and {self._more_notes} more notes, not kept",
                }
            )

    # ---- running ---------------------------------------------------------------------------

    def _run_file(self) -> None:
        data = read_bounded(self.path, MAX_SOURCE)
        if len(data) > MAX_SOURCE:
            raise ValueError(f"larger than {MAX_SOURCE // 2**20} MB: not read")
        source = importlib.util.decode_source(data)
        tree = compile(source, self.path, "exec", ast.PyCF_ONLY_AST, dont_inherit=True)
        self._run_statements(tree, self.path)

    def _run_notebook(self) -> None:
        cells = code_cells(read_bounded(self.path, MAX_NOTEBOOK))
        self.module.display = _display
        skipped: list[tuple[int, int, str]] = []
        for number, source in cells:
            python, passed_over, magic = as_python(source)
            runs = {line: text.split()[1] for line, text in passed_over if _runs_a_file(text)}
            skipped += [(number, line, text) for line, text in passed_over if line not in runs]
            if magic is not None:
                self._cell_magic(number, magic, source)
                skipped.pop()
                continue
            filename = f"<{os.path.basename(self.path)} cell {number}>"
            self._cells[filename] = number
            original = source.splitlines(keepends=True)
            linecache.cache[filename] = (len(source), None, original, filename)
            try:
                tree = compile(python, filename, "exec", ast.PyCF_ONLY_AST | self._flags, True)
            except (SyntaxError, ValueError) as exc:  # (ValueError: a NUL byte in the source)
                self._note_exception(exc, "the cell was not run")
                continue
            self._run_statements(tree, filename, runs)
        if skipped:
            shown = "; ".join(
                f"{_short(text)} (cell {number}, line {line})" for number, line, text in skipped[:3]
            )
            more = f"; and {len(skipped) - 3} more" if len(skipped) > 3 else ""
            self._note(
                skipped[0][0],
                skipped[0][1],
                "IPython",
                f"IPython syntax, not run by the grader: {shown}{more}",
            )

    def _run_statements(
        self, tree: ast.Module, filename: str, runs: dict[int, str] | None = None
    ) -> None:
        namespace = vars(self.module)
        for statement in tree.body:
            if runs and isinstance(statement, ast.Pass) and statement.lineno in runs:
                statement = ast.copy_location(
                    self._run_magic(runs[statement.lineno], filename, statement.lineno),
                    statement,
                )
            if isinstance(statement, ast.ImportFrom) and statement.module == "__future__":
                for alias in statement.names:
                    feature = getattr(__future__, alias.name, None)
                    self._flags |= feature.compiler_flag if feature else 0
            try:
                code = compile(
                    ast.Module([statement], type_ignores=[]), filename, "exec", self._flags, True
                )
                exec(code, namespace)  # noqa: S102 (the student's own code, in its worker)
            except SystemExit as exc:
                if self.kind != "ipynb":
                    raise  # (a .py file that exits while imported: its verdict)
                # IPython catches a cell's sys.exit() or exit(): the kernel keeps what the
                # notebook defined, and the cell is one that raised
                self._note_exception(exc, "the notebook goes on, as Jupyter's kernel does")
            except (MemoryError, KeyboardInterrupt):
                raise  # (limits and an exit are the submission's verdict)
            except OSError as exc:
                if exc.errno == errno.EFBIG:  # (past the file-size limit: a verdict too)
                    raise
                self._failed(statement, exc)
            except Exception as exc:  # noqa: BLE001 (whatever their code raises is theirs)
                self._failed(statement, exc)

    def _failed(self, statement: ast.stmt, exc: Exception) -> None:
        """A statement that raised: a note, unless it only used a name an earlier failed
        statement should have bound (``plt`` after ``import matplotlib.pyplot as plt``
        failed): then it is counted on that statement's note, one line, not one per use."""
        name = getattr(exc, "name", None) if isinstance(exc, NameError) else None
        if name in self._unbound:
            self._unbound[name]["later"] += 1
            return
        self._note_exception(exc)
        if self.notes and not self._more_notes:
            for bound in _bound_names(statement):
                self._unbound.setdefault(bound, self.notes[-1])

    def _run_magic(self, name: str, filename: str, line: int) -> ast.stmt:
        """``%run NAME.py``, as IPython runs it: the file (a plain name, in the grader's working
        folder where %%writefile wrote, else the student's own folder) run as ``__main__``, its
        names then the notebook's. Returned as the statement that does it (its errors are the
        cell's, noted as any statement's)."""
        places = [os.path.realpath(os.getcwd())]
        places += [os.path.realpath(self._folder)] if self._folder else []
        plain = name.endswith(".py") and os.path.basename(name) == name and name != ".py"
        found = next(
            (
                os.path.join(place, name)
                for place in places
                if plain
                and os.path.isfile(os.path.join(place, name))
                # (a link to a file elsewhere, a classmate's, is not the student's own)
                and os.path.dirname(os.path.realpath(os.path.join(place, name))) == place
            ),
            None,
        )
        if found is None:
            self._note(
                self._cells[filename],
                line,
                "IPython",
                f"%run {_short(name)}: only a .py file beside the notebook is run; not found",
            )
            return ast.parse("pass").body[0]
        self._ran.add(found)
        self.module.__dict__["__run_file__"] = self._run_file_into
        return ast.parse(f"__run_file__({found!r})").body[0]

    def _run_file_into(self, path: str) -> None:
        data = read_bounded(path, MAX_SOURCE)
        if len(data) > MAX_SOURCE:
            raise ValueError(f"%run {os.path.basename(path)}: larger than {MAX_SOURCE} bytes")
        namespace = {"__name__": "__main__", "__file__": path, "__builtins__": __builtins__}
        exec(
            compile(importlib.util.decode_source(data), path, "exec", dont_inherit=True), namespace
        )  # noqa: S102 (the student's own file, in its worker)
        vars(self.module).update(
            (key, value) for key, value in namespace.items() if not key.startswith("__")
        )

    def _cell_magic(self, number: int, magic: str, source: str) -> None:
        lines = source.splitlines(keepends=True)
        first = next(i for i, line in enumerate(lines) if line.strip())
        if magic not in WRITE_CELL_MAGICS:
            self._note(number, first + 1, "IPython", f"%%{magic}: not Python; the cell was not run")
            return
        words = lines[first].split()[1:]
        append = "-a" in words or "--append" in words
        name = next((word for word in words if not word.startswith("-")), "")
        body = "".join(lines[first + 1 :])
        if not name or os.path.isabs(name) or ".." in name.split("/") or "/" in name.strip("/"):
            self._note(
                number,
                first + 1,
                "IPython",
                f"%%{magic} {_short(name)}: only a plain file name is written; not written",
            )
            return
        if len(body.encode()) > MAX_WRITTEN:
            self._note(number, first + 1, "IPython", f"%%{magic} {_short(name)}: too large")
            return
        try:
            with open(os.path.join(os.getcwd(), name), "a" if append else "w") as file:
                file.write(body)
        except OSError as exc:
            self._note(number, first + 1, "OSError", f"%%{magic} {_short(name)}: {exc}")
            return
        self._note(
            number,
            first + 1,
            "IPython",
            f"%%{magic} {_short(name)}: written to the grader's working folder, "
            "where the notebook's imports find it",
        )

    # ---- notes and the student's own lines ---------------------------------------------------

    def where(self, exc: BaseException) -> dict:
        """Where in the student's own code ``exc`` happened: ``cell`` (a notebook's, else None),
        ``line`` (in that cell, or in the file) and ``text``; the deepest of their frames. The
        worker's error replies take their ``cell``, ``line`` and ``text`` from here: a notebook's
        cells are compiled under names of their own (``<homework.ipynb cell 3>``), which the
        notebook's path does not match."""
        if isinstance(exc, SyntaxError) and (
            exc.filename in self._cells or exc.filename == self.path
        ):
            return {
                "cell": self._cells.get(exc.filename),
                "line": exc.lineno,
                "text": (exc.text or "").strip(),
            }
        found = {"cell": None, "line": None, "text": ""}
        frame = exc.__traceback__
        while frame is not None:
            code = frame.tb_frame.f_code
            if code.co_filename in self._cells or code.co_filename == self.path:
                line = frame.tb_lineno
                found = {
                    "cell": self._cells.get(code.co_filename),
                    "line": line,
                    "text": linecache.getline(code.co_filename, line).strip(),
                }
            frame = frame.tb_next
        return found

    def _note_exception(self, exc: BaseException, after: str = "") -> None:
        place = self.where(exc)
        message = exc.msg if isinstance(exc, SyntaxError) else str(exc)
        message = _short(message, 300) + (f" ({_short(place['text'])})" if place["text"] else "")
        self._note(
            place["cell"],
            place["line"],
            type(exc).__name__,
            message + (f"; {after}" if after else ""),
        )

    def _note(self, cell: int | None, line: int | None, kind: str, message: str) -> None:
        if len(self.notes) >= MAX_NOTES - 1:
            self._more_notes += 1
            return
        self.notes.append(
            {"cell": cell, "line": line, "type": kind, "message": message, "later": 0}
        )

    # ---- finding the function ----------------------------------------------------------------

    def own(self, value) -> bool:
        """Whether ``value`` is a function the student wrote (not one they imported)."""
        code = getattr(value, "__code__", None)
        return code is not None and (
            code.co_filename == self.path
            or code.co_filename in self._cells
            or code.co_filename in self._ran
        )

    def find(self, name: str, fallback: bool = True) -> tuple[object | None, str]:
        """The callable NAME names (``fn``, ``Class`` with ``forward``/``__call__``, or
        ``Class.method``), and what it was found as. When nothing has that name and exactly one
        function of the student's takes (Q, K, V), that one (``chosen`` says which)."""
        first, _, method = name.partition(".")
        found = getattr(self.module, first, None)
        if found is None:  # attention, Attention, ATTENTION: the same name to a student
            same = [key for key in vars(self.module) if key.lower() == first.lower()]
            if len(same) == 1:
                first = same[0]
                found = vars(self.module)[first]
        if found is None and fallback and not method:
            taking = self.taking_qkv()
            if len(taking) == 1:
                self.chosen = first = taking[0]
                found = vars(self.module)[first]
                if not inspect.isclass(found):
                    return found, first
        if found is None:
            return None, ""
        if inspect.isclass(found):
            try:
                instance = found()
            except Exception as exc:
                raise LookupError(
                    f"class {first} could not be made without arguments: "
                    f"{type(exc).__name__}: {exc}"
                ) from exc
            for attribute in [method] if method else ["forward", "__call__"]:
                if attribute == "__call__" and type(instance).__call__ is object.__call__:
                    continue
                bound = getattr(instance, attribute, None)
                if callable(bound):
                    return bound, f"{first}().{attribute}"
            raise LookupError(f"class {first} has no {method or 'forward or __call__'} method")
        if method:
            found = getattr(found, method, None)
        return (found, f"{first}.{method}" if method else first) if callable(found) else (None, "")

    def taking_qkv(self) -> list[str]:
        """The student's own functions whose first three parameters are Q, K and V (by their
        names' first letters: q, query, queries) and that need nothing more than a mask; and
        their own classes whose ``forward`` or ``__call__`` is such a method (a class-wrapped
        attention of another name is as much theirs as a function)."""
        taking = []
        for key, value in vars(self.module).items():
            function, skipped = value, 0
            if inspect.isclass(value):
                function = next(
                    (
                        vars(value)[method]
                        for method in ("forward", "__call__")
                        if inspect.isfunction(vars(value).get(method))
                    ),
                    None,
                )
                skipped = 1  # (self)
            if not (inspect.isfunction(function) and self.own(function)):
                continue
            try:
                parameters = list(inspect.signature(function).parameters.values())[skipped:]
            except (TypeError, ValueError):
                continue
            if len(parameters) < 3 or any(
                not p.name.lower().startswith(letter)
                for p, letter in zip(parameters, QKV, strict=False)
            ):
                continue
            if all(
                p.default is not inspect.Parameter.empty
                or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
                or any(word in p.name.lower() for word in MASK_LIKE)
                for p in parameters[3:]
            ):
                taking.append(key)
        return taking


def _runs_a_file(text: str) -> bool:
    """Whether a line IPython's syntax left out is ``%run FILE`` (no options)."""
    words = text.split()
    return len(words) == 2 and words[0] == "%run" and not words[1].startswith("-")


def _bound_names(statement: ast.stmt) -> list[str]:
    """The names a top-level statement binds (imports, assignments, definitions)."""
    if isinstance(statement, (ast.Import, ast.ImportFrom)):
        return [(alias.asname or alias.name).split(".")[0] for alias in statement.names]
    if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [statement.name]
    targets = (
        statement.targets
        if isinstance(statement, ast.Assign)
        else [statement.target]
        if isinstance(statement, (ast.AnnAssign, ast.AugAssign, ast.For, ast.AsyncFor))
        else []
    )
    return [
        node.id for target in targets for node in ast.walk(target) if isinstance(node, ast.Name)
    ]


def _short(text: str, limit: int = 80) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def describe(student: Student, name: str, backward: str) -> dict:
    function, found_as = student.find(name)
    namespace = vars(student.module)
    info = {
        "found": function is not None,
        "as": found_as,
        "names": sorted(
            n
            for n, value in namespace.items()
            if not n.startswith("_") and callable(value) and value is not _display
        )[:20],
        "uses_torch": "torch" in namespace or "torch" in sys.modules,
        "softmax": callable(namespace.get("softmax")),
        "kind": student.kind,
        "chosen": student.chosen,
    }
    taking = student.taking_qkv() if function is None and "." not in name else []
    if len(taking) > 1:
        names = ", ".join(taking[:5])
        said = f"no {name}, and {len(taking)} functions take (Q, K, V): {names}"
        student._note(None, None, "name", said + "; the teacher names one with --name")
    info["notes"] = [
        {key: note[key] for key in ("cell", "line", "type", "message")} for note in student.notes
    ]
    if function is not None:
        info["parameters"] = _parameters(function)
    back, back_as = student.find(backward, fallback=False) if backward else (None, "")
    info["backward"] = back_as if back is not None else None
    if back is not None:
        info["backward_parameters"] = _parameters(back)
    return info


def _parameters(function) -> list[list]:
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):
        return []
    return [
        [p.name, p.kind.name, p.default is not inspect.Parameter.empty]
        for p in signature.parameters.values()
    ]
