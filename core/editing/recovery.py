"""Recovery copies: unsaved edits kept on disk, so that a crash or a closed terminal loses none.

While a scenario has unsaved edits, the list of edits is written (atomically) after every change
to the user's state folder (``$XDG_STATE_HOME/attn-tui``, by default ``~/.local/state/attn-tui``),
named after the scenario's file and path: nothing is left beside the student's own files, and a
read-only folder or a built-in is no different. The next start with that scenario offers to
replay them.
Edits, not text, are kept — one per cell or option that differs from the file as last saved —
and replaying them gives back exactly the numbers, whatever the matrices came from (YAML,
.npy, random).

Copies are private (``core.files.private_files``): 0600 in a 0700 folder of the user's own, never
written or read through a link; a copy that is not a regular file, or is too large, is refused
with a message (:class:`UnreadableCopy`), never read.
A copy is untrusted input: the file may have changed since (fewer tokens, say), and the copy
itself may be damaged or crafted. :func:`read` takes only edits of the forms attn-tui writes;
:func:`fitting` checks each against the scenario as it is now, by the loader's own rules
(shapes, finite numbers, option values). What does not fit is skipped with a one-line reason.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import time
from dataclasses import dataclass

import numpy as np

from attn_tui.core.engine.stages import expected_shape, needing_causal
from attn_tui.core.files import private_files
from attn_tui.core.files.folders import state_folder
from attn_tui.core.limits import V_LIMIT
from attn_tui.core.model.edits import Edit, SetCell, SetExpect, SetOption
from attn_tui.core.model.options import Expected
from attn_tui.core.model.scenario import Scenario
from attn_tui.core.text import visible

VERSION = 1


MAX_COPY_BYTES = 256 * 2**20  # a copy is read whole; larger is damage, not a session's edits


SUFFIX = ".attn-recover"
NAME_BYTES = 80  # of the scenario's file name in the copy's (UTF-8): the digest tells copies apart


class UnreadableCopy(Exception):
    """A recovery copy that is not read at all (not a regular file, too large); the message
    says why. The copy is left as it is: the next change replaces it."""


@dataclass(frozen=True)
class Recovery:
    """Edits found on disk for a scenario, and whether its file changed since they were made.

    ``edits`` are well-formed but not yet checked against the scenario (see :func:`fitting`);
    ``skipped`` says, one line each, which entries of the copy were not edits at all."""

    path: str
    edits: tuple[Edit, ...]
    saved_at: float
    file_changed: bool
    skipped: tuple[str, ...] = ()

    @property
    def count(self) -> int:
        """How many edits the copy holds, well-formed or not."""
        return len(self.edits) + len(self.skipped)


def folder() -> str:
    """The folder recovery copies are kept in."""
    return state_folder()


def recovery_path(scenario_path: str, kept_in: str | None = None) -> str:
    """Where the recovery copy of ``scenario_path`` lives: in ``kept_in`` (a served app's own
    folder), or else the state folder."""
    absolute = os.path.realpath(scenario_path)
    digest = hashlib.sha256(absolute.encode()).hexdigest()[:16]
    # a long file name must not make the copy's name too long for the file system
    name = os.path.basename(absolute).encode("utf-8", "surrogateescape")[:NAME_BYTES]
    name = name.decode("utf-8", "ignore")  # (not half a character)
    return os.path.join(kept_in or folder(), f"{name}.{digest}{SUFFIX}")


def copies_since(moment: float) -> list[str]:
    """The recovery copies written at or after ``moment`` (a time.time() value)."""
    return private_files.modified_since(folder(), SUFFIX, moment)


def write(path: str, source_text: str, edits: list[Edit]) -> None:
    """Keep ``edits`` as the copy at ``path`` (``OSError`` if it cannot be written). It must
    survive the process (a crash, a closed terminal), not the machine: it is written after
    every change, and an fsync would cost a keystroke several milliseconds."""
    document = {
        "attn-tui-recovery": VERSION,
        "saved_at": time.time(),
        "source_sha256": _digest(source_text),
        "edits": [_edit_json(edit) for edit in edits],
    }
    private_files.write(
        os.path.dirname(path), os.path.basename(path), json.dumps(document).encode()
    )


def read(path: str, source_text: str) -> Recovery | None:
    """The recovery copy at ``path``; None if there is none or it is not a copy at all;
    ``UnreadableCopy`` if it is not read (a link, a device, a pipe, too large)."""
    try:
        data = private_files.read(os.path.dirname(path), os.path.basename(path), MAX_COPY_BYTES)
    except private_files.Refused as refused:
        raise UnreadableCopy(f"recovery copy not read: {visible(str(refused))}") from None
    except OSError:
        return None
    if data is None:
        return None
    try:
        document = json.loads(data.decode("utf-8"))
        items = document["edits"]
        saved_at = float(document["saved_at"])
        changed = document["source_sha256"] != _digest(source_text)
        if not isinstance(items, list):
            return None
    except (ValueError, KeyError, TypeError, RecursionError):
        return None  # a damaged copy is of no use; the file itself is untouched
    edits, skipped = [], []
    for item in items:
        try:
            edits.append(_edit_from_json(item))
        except (ValueError, KeyError, TypeError, IndexError):
            skipped.append(f"not an edit attn-tui writes: {_shown(item)}")
    return Recovery(path, tuple(edits), saved_at, changed, tuple(skipped))


def fitting(edit: Edit, scenario: Scenario) -> Edit | str:
    """``edit`` made to fit ``scenario`` as it is now (its old values taken from the scenario,
    so that undo returns to the file), or why it cannot: the loader's rules for the same
    values. Whether it would make a stage overflow is left to applying it."""
    if isinstance(edit, SetCell):
        return _fitting_cell(edit, scenario)
    if isinstance(edit, SetOption):
        return _fitting_option(edit, scenario)
    return _fitting_expect(edit, scenario)


def describe(edit: Edit) -> str:
    """An edit from a copy as a reason names it: ``Q row 3, column 2 = 5``, ``scale = 0``."""
    if isinstance(edit, SetCell):
        head = "" if edit.head is None else f" of head {edit.head}"
        return f"{edit.matrix}{head} row {edit.row + 1}, column {edit.col + 1} = {edit.value:g}"
    if isinstance(edit, SetOption):
        return f"{edit.name} = {_shown(edit.value)}"
    return "expect"


def _fitting_cell(edit: SetCell, scenario: Scenario) -> Edit | str:
    if edit.matrix not in scenario.inputs:
        return (
            f"{_shown(edit.matrix, quote=False)}: the file has no matrix of that name "
            f"({', '.join(scenario.inputs)})"
        )
    array = scenario.inputs[edit.matrix]
    where = f"{describe(edit)}: the file's {edit.matrix}"
    if (edit.head is None) != (array.ndim == 2):
        return f"{where} has {'no heads' if array.ndim == 2 else 'a matrix per head'}"
    if edit.head is not None:
        if not 0 <= edit.head < len(array):
            return f"{where} has {len(array)} heads (numbered from 0), not head {edit.head}"
        array = array[edit.head]
    rows, cols = array.shape
    if not 0 <= edit.row < rows:
        return (
            f"{where} has {rows} rows now"
            if edit.row >= rows
            else f"{where} has no row {edit.row + 1}"
        )
    if not 0 <= edit.col < cols:
        return (
            f"{where} has {cols} columns"
            if edit.col >= cols
            else f"{where} has no column {edit.col + 1}"
        )
    if not math.isfinite(edit.value):
        return f"{describe(edit)}: numbers must be finite"
    if edit.matrix == "V" and abs(edit.value) >= V_LIMIT:
        return f"{describe(edit)}: V must stay below {V_LIMIT:g}, as the loader requires"
    return SetCell(
        edit.matrix, edit.row, edit.col, edit.value, float(array[edit.row, edit.col]), edit.head
    )


def _fitting_option(edit: SetOption, scenario: Scenario) -> Edit | str:
    value = edit.value
    number = isinstance(value, (int, float)) and not isinstance(value, bool)
    if edit.name == "causal":
        fits, rule = isinstance(value, bool), "causal must be true or false"
        needing = needing_causal(scenario) if value is False and scenario.window is None else None
        if needing is not None:
            fits, rule = (
                False,
                f"the file now {needing.turned_on.needs_causal[0]}, which needs the causal mask",
            )
    elif edit.name == "scale":
        fits = isinstance(value, bool) or (number and math.isfinite(value) and value > 0)
        rule = "scale must be true, false or a positive number"
    elif edit.name == "mask_value":
        fits, rule = number and value < 0, "mask_value must be negative (or -inf)"
    else:
        return f"{_shown(edit.name, quote=False)}: not an option (causal, scale, mask_value)"
    if not fits:
        return f"{describe(edit)}: {rule}"
    if edit.name == "causal" and value and len(scenario.row_tokens) != len(scenario.tokens):
        return (
            f"{describe(edit)}: causal needs as many queries as keys "
            f"({len(scenario.row_tokens)} queries, {len(scenario.tokens)} keys), "
            "as the file itself would"
        )
    value = value if isinstance(value, bool) else float(value)
    return SetOption(edit.name, value, getattr(scenario.options, edit.name))


def _fitting_expect(edit: SetExpect, scenario: Scenario) -> Edit | str:

    tolerance = edit.tolerance
    if not (math.isfinite(tolerance) and tolerance > 0):
        return f"expect_tolerance must be positive, not {tolerance:g}"
    for stage, expected in edit.value.items():
        shape = expected_shape(scenario, stage)
        if shape is None:
            from attn_tui.core.engine.stages import expect_keys

            known = list(expect_keys(scenario))
            return f"expect {_shown(stage, quote=False)}: not a stage here ({', '.join(known)})"
        if expected.values.shape != shape or expected.given.shape != shape:
            return (
                f"expect {stage} is {'×'.join(map(str, expected.values.shape))} but that stage is "
                f"{'×'.join(map(str, shape))}"
            )
    return SetExpect(edit.value, dict(scenario.expect), tolerance, scenario.expect_tolerance)


def _shown(value: object, quote: bool = True) -> str:
    """A value from a copy, for a reason: short, and inert (``visible``)."""
    text = repr(value) if quote or not isinstance(value, str) else value
    return visible(text if len(text) <= 60 else text[:59] + "…")


def remove(path: str) -> None:
    """Remove the copy at ``path`` (the entry itself, whatever it is)."""
    private_files.remove(os.path.dirname(path), os.path.basename(path))


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _edit_json(edit: Edit) -> dict:
    if isinstance(edit, SetCell):
        cell = [edit.matrix, edit.row, edit.col] + ([] if edit.head is None else [edit.head])
        return {"cell": cell, "value": edit.value, "old": edit.old}
    if isinstance(edit, SetOption):
        return {"option": edit.name, "value": edit.value, "old": edit.old}
    return {
        "expect": _expect_json(edit.value),
        "old": _expect_json(edit.old),
        "tolerance": edit.tolerance,
        "old_tolerance": edit.old_tolerance,
    }


def _edit_from_json(item: dict) -> Edit:
    """An edit of a form attn-tui writes; ValueError, KeyError or TypeError for anything else.
    Old values are not trusted: :func:`fitting` takes them from the scenario."""
    if not isinstance(item, dict):
        raise TypeError(item)
    if "cell" in item:
        matrix, row, col, *head = item["cell"]
        value = item["value"]
        if not (
            isinstance(matrix, str)
            and type(row) is int
            and type(col) is int
            and type(value) in (int, float)
            and len(head) <= 1
            and all(type(h) is int for h in head)
        ):
            raise TypeError(item)
        old = item.get("old")
        return SetCell(
            matrix,
            row,
            col,
            float(value),
            float(old) if type(old) in (int, float) else math.nan,
            head[0] if head else None,
        )
    if "option" in item:
        if not isinstance(item["option"], str):
            raise TypeError(item)
        return SetOption(item["option"], item["value"], None)
    tolerance = item["tolerance"]
    if type(tolerance) not in (int, float):
        raise TypeError(item)
    return SetExpect(_expect_from_json(item["expect"]), {}, float(tolerance), math.nan)


def _expect_json(expect: dict) -> dict:
    # NaN and infinities as text: a student's values may hold them, and JSON has no literal
    def text(values):
        return [
            text(inner)
            if isinstance(inner, list)
            else inner
            if math.isfinite(inner)
            else repr(inner)
            for inner in values
        ]

    return {
        stage: {"values": text(e.values.tolist()), "given": e.given.tolist()}
        for stage, e in expect.items()
    }


def _expect_from_json(document: dict) -> dict:
    if not isinstance(document, dict):
        raise TypeError(document)
    expect = {}
    for stage, item in document.items():
        values = np.array(_nested(item["values"], _json_float), dtype=np.float64)
        given = np.array(_nested(item["given"], _json_bool), dtype=bool)
        if values.ndim not in (2, 3) or given.shape != values.shape:
            raise ValueError(stage)
        expect[stage] = Expected(values, given)
    return expect


def _nested(value: object, read, depth: int = 0) -> list:
    """Lists (of lists, of a head's lists) of values, each read by ``read``; at most 3 deep."""
    if not isinstance(value, list) or depth > 2:
        raise TypeError(value)
    return [
        _nested(item, read, depth + 1) if isinstance(item, list) else read(item) for item in value
    ]


def _json_float(value: object) -> float:
    """A student's value as the copy writes it: a number, or 'nan', 'inf', '-inf'."""
    if type(value) in (int, float) or value in ("nan", "inf", "-inf"):
        return float(value)  # type: ignore[arg-type]
    raise TypeError(value)


def _json_bool(value: object) -> bool:
    if type(value) is not bool:
        raise TypeError(value)
    return value
