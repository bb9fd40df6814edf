"""A notebook's code cells, and IPython's own syntax in them made Python line for line: what
grading/student_code.py runs of a notebook, and what the parent reads to find which of a
student's files defines the function (grading/submissions.py), without running anything.

Beside the worker, like student_code.py: the standard library only, nothing of attn-tui. The
transformer is small and bounded (a line at a time, one pass): shell lines (``!…``,
``x = !…``), line magics (``%…``; ``%time STMT`` runs STMT) and help (``x?``, ``??x``) become
``pass`` (``x = []``, ``x = None``), keeping every line where it was, so an error's line is the
student's line in their cell; a ``!`` or ``%`` inside a string or brackets is text. A cell magic
whose body is Python (``%%time``) runs its body; another (``%%bash``) is not Python.
"""

from __future__ import annotations

import ast
import json
import re

MAX_NOTEBOOK = 32 * 2**20  # bytes of a notebook (its outputs, images included, count)
MAX_CELLS = 2000
# cell magics whose body is Python run in the notebook's namespace (timed, captured, profiled);
# any other cell magic's body is another language (%%bash, %%html, %%javascript, …): not run
PYTHON_CELL_MAGICS = frozenset({"time", "timeit", "capture", "prun", "memit", "debug"})
HELP = re.compile(r"\?{1,2}[A-Za-z_][\w.*]*\??|[A-Za-z_][\w.*]*\?{1,2}")
ASSIGNED_FROM = re.compile(
    r"([A-Za-z_][\w.]*(?:\s*,\s*[A-Za-z_][\w.]*)*)\s*=\s*([!%])(.*)", re.DOTALL
)


class NotANotebook(ValueError):
    """A file given as a notebook that is not one (truncated JSON, another format, nbformat 3):
    its message is the one line a teacher reads."""


# ---- reading a notebook ------------------------------------------------------------------------


def code_cells(data: bytes) -> list[tuple[int, str]]:
    """A notebook's code cells as (cell number, source), the number counted from 1 over every cell
    (text cells too: the n-th cell from the top). Raises NotANotebook with one line."""
    if len(data) > MAX_NOTEBOOK:
        raise NotANotebook(f"larger than {MAX_NOTEBOOK // 2**20} MB: not read")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise NotANotebook(f"not a notebook: not UTF-8 text (byte {exc.start})") from None
    try:
        notebook = json.loads(text)
    except RecursionError:
        raise NotANotebook("not a notebook: its JSON nests too deep") from None
    except json.JSONDecodeError as exc:
        ends = exc.pos >= len(text.rstrip()) or exc.msg.startswith("Unterminated string")
        raise NotANotebook(
            "not a notebook: "
            + (
                "its JSON ends early (was it saved or uploaded whole?)"
                if ends
                else f"not JSON at line {exc.lineno}, column {exc.colno} ({exc.msg})"
            )
        ) from None
    if not isinstance(notebook, dict):
        raise NotANotebook("not a notebook: JSON, but not a notebook's object of cells")
    if "worksheets" in notebook or notebook.get("nbformat") in (1, 2, 3):
        raise NotANotebook(
            f"an nbformat {notebook.get('nbformat', 3)} notebook: open it in Jupyter and save "
            "it again (nbformat 4)"
        )
    cells = notebook.get("cells")
    if notebook.get("nbformat") != 4 or not isinstance(cells, list):
        raise NotANotebook("not a notebook: JSON without nbformat 4 and a list of cells")
    if len(cells) > MAX_CELLS:
        raise NotANotebook(f"{len(cells)} cells: a notebook may have at most {MAX_CELLS}")
    found = []
    for number, cell in enumerate(cells, 1):
        if not isinstance(cell, dict):
            raise NotANotebook(f"not a notebook: cell {number} is not a cell")
        if cell.get("cell_type") != "code":
            continue
        source = cell.get("source", "")
        if isinstance(source, list) and all(isinstance(part, str) for part in source):
            source = "".join(source)
        if not isinstance(source, str):
            raise NotANotebook(f"not a notebook: cell {number}'s source is not text")
        found.append((number, source))
    return found


def read_bounded(path: str, limit: int) -> bytes:
    """At most ``limit`` + 1 bytes of the file (one more than allowed: then it was too large)."""
    with open(path, "rb") as file:
        return file.read(limit + 1)


# ---- IPython's syntax, turned into Python line for line ------------------------------------------


def logical_starts(lines: list[str]) -> list[bool]:
    """Whether each line begins a logical line of Python: not inside a string, brackets, or a
    backslash continuation (only there is ``!`` or ``%`` IPython's and not text)."""
    starts, depth, quote, continued = [], 0, None, False
    for line in lines:
        starts.append(depth == 0 and quote is None and not continued)
        stripped = line.lstrip()
        if starts[-1] and stripped[:1] in ("!", "%", "?"):
            continued = line.rstrip("\r\n").endswith("\\")  # (a magic's own continuation)
            continue
        i, n = 0, len(line)
        while i < n:
            if quote is not None:
                if line[i] == "\\":
                    i += 2
                elif line.startswith(quote, i):
                    i, quote = i + len(quote), None
                else:
                    i += 1
                continue
            char = line[i]
            if char == "#":
                break
            if char in "\"'":
                quote = line[i : i + 3] if line[i : i + 3] in ('"""', "'''") else char
                i += len(quote)
                continue
            if char in "([{":
                depth += 1
            elif char in ")]}":
                depth = max(0, depth - 1)
            i += 1
        continued = line.rstrip("\r\n").endswith("\\")
        if quote in ('"', "'") and not continued:
            quote = None  # (an unterminated one-line string: Python's error, not ours to carry)
    return starts


def as_python(source: str) -> tuple[str, list[tuple[int, str]], str | None]:
    """A cell's source with IPython's syntax made Python, line for line (so every line keeps its
    number): the source, the (line, text) of what was skipped, and the cell magic when the cell
    is one (``bash``, ``writefile``, …: then its body is not returned as Python)."""
    lines = source.splitlines()
    first = next((i for i, line in enumerate(lines) if line.strip()), None)
    if first is not None and lines[first].lstrip().startswith("%%"):
        magic = lines[first].strip()[2:].split(None, 1)
        name = magic[0] if magic else ""
        if name not in PYTHON_CELL_MAGICS:
            return "", [(first + 1, lines[first].strip())], name
        body, skipped, _ = as_python("\n".join(lines[first + 1 :]))
        shift = [(line + first + 1, text) for line, text in skipped]
        return "\n" * (first + 1) + body, [(first + 1, lines[first].strip()), *shift], None
    out, skipped = [], []
    starts = logical_starts(lines)
    carrying = False  # a skipped magic's backslash continuation lines
    for number, (line, start) in enumerate(zip(lines, starts, strict=True), 1):
        stripped = line.strip()
        indent = line[: len(line) - len(line.lstrip())]
        if carrying:
            out.append("")
            carrying = line.rstrip().endswith("\\")
            continue
        if not start or not stripped or stripped.startswith("#"):
            out.append(line)
            continue
        assigned = ASSIGNED_FROM.fullmatch(stripped)
        if stripped[0] in "!%":
            words = stripped.lstrip("%").split(None, 1)
            if stripped.startswith("%time ") and len(words) == 2:
                out.append(indent + words[1])  # (%time runs its statement)
            else:
                out.append(indent + "pass")
            skipped.append((number, stripped))
            carrying = stripped.endswith("\\")
        elif assigned is not None and not _is_python(stripped):
            empty = "[]" if assigned.group(2) == "!" else "None"
            out.append(f"{indent}{assigned.group(1)} = {empty}")
            skipped.append((number, stripped))
        elif HELP.fullmatch(stripped):
            out.append(indent + "pass")
            skipped.append((number, stripped))
        else:
            out.append(line)
    return "\n".join(out) + ("\n" if out else ""), skipped, None


def _is_python(statement: str) -> bool:
    try:
        ast.parse(statement)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True
