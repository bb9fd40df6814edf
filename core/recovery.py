"""Recovery copies: unsaved edits kept on disk, so that a crash or a closed terminal loses none.

While a scenario has unsaved edits, the list of edits is written (atomically) after every change
to the user's state folder (``$XDG_STATE_HOME/attn-tui``, by default ``~/.local/state/attn-tui``),
named after the scenario's file and path: nothing is left beside the student's own files, and a
read-only folder or a built-in is no different. The next start with that scenario offers to
replay them.
Edits, not text, are kept — one per cell or option that differs from the file as last saved —
and replaying them gives back exactly the numbers, whatever the matrices came from (YAML,
.npy, random).
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import time
from dataclasses import dataclass

import numpy as np

from attn_tui.core.atomic_write import write_atomic
from attn_tui.core.edits import Edit, SetCell, SetExpect, SetOption
from attn_tui.core.options import Expected

VERSION = 1


@dataclass(frozen=True)
class Recovery:
    """Edits found on disk for a scenario, and whether its file changed since they were made."""

    path: str
    edits: tuple[Edit, ...]
    saved_at: float
    file_changed: bool


def folder() -> str:
    """The folder recovery copies are kept in."""
    state = os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")
    return os.path.join(state, "attn-tui")


def recovery_path(scenario_path: str) -> str:
    """Where the recovery copy of ``scenario_path`` lives."""
    absolute = os.path.realpath(scenario_path)
    digest = hashlib.sha256(absolute.encode()).hexdigest()[:16]
    return os.path.join(folder(), f"{os.path.basename(absolute)}.{digest}.attn-recover")


def copies_since(moment: float) -> list[str]:
    """The recovery copies written at or after ``moment`` (a time.time() value)."""
    try:
        names = os.listdir(folder())
    except OSError:
        return []
    found = []
    for name in names:
        path = os.path.join(folder(), name)
        try:
            if name.endswith(".attn-recover") and os.stat(path).st_mtime >= moment - 1:
                found.append(path)
        except OSError:
            continue
    return found


def write(path: str, source_text: str, edits: list[Edit]) -> None:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    document = {"attn-tui-recovery": VERSION, "saved_at": time.time(),
                "source_sha256": _digest(source_text), "edits": [_edit_json(edit) for edit in edits]}
    write_atomic(path, json.dumps(document))


def read(path: str, source_text: str) -> Recovery | None:
    """The recovery copy at ``path``; None if there is none or it cannot be read back."""
    try:
        with open(path, encoding="utf-8") as file:
            document = json.load(file)
        edits = tuple(_edit_from_json(item) for item in document["edits"])
        return Recovery(path, edits, float(document["saved_at"]),
                        document["source_sha256"] != _digest(source_text))
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError, TypeError):
        return None  # a damaged copy is of no use; the file itself is untouched


def remove(path: str) -> None:
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _edit_json(edit: Edit) -> dict:
    if isinstance(edit, SetCell):
        return {"cell": [edit.matrix, edit.row, edit.col], "value": edit.value, "old": edit.old}
    if isinstance(edit, SetOption):
        return {"option": edit.name, "value": edit.value, "old": edit.old}
    return {"expect": _expect_json(edit.value), "old": _expect_json(edit.old),
            "tolerance": edit.tolerance, "old_tolerance": edit.old_tolerance}


def _edit_from_json(item: dict) -> Edit:
    if "cell" in item:
        matrix, row, col = item["cell"]
        return SetCell(str(matrix), int(row), int(col), float(item["value"]), float(item["old"]))
    if "option" in item:
        return SetOption(str(item["option"]), item["value"], item["old"])
    return SetExpect(_expect_from_json(item["expect"]), _expect_from_json(item["old"]),
                     float(item["tolerance"]), float(item["old_tolerance"]))


def _expect_json(expect: dict) -> dict:
    # NaN and infinities as text: a student's values may hold them, and JSON has no literal
    return {stage: {"values": [[v if math.isfinite(v) else repr(v) for v in row] for row in e.values.tolist()],
                    "given": e.given.tolist()} for stage, e in expect.items()}


def _expect_from_json(document: dict) -> dict:
    return {stage: Expected(np.array([[float(v) for v in row] for row in item["values"]]),
                            np.array(item["given"], dtype=bool)) for stage, item in document.items()}
