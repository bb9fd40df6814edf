"""The student's code as the worker holds it: their file run as a module, and the function (or
method) a grader asks for found in it, with what it was found as.

The worker (grading/worker.py) imports this module from its own folder, never through attn-tui:
like the worker, it imports nothing of attn-tui, so that a sandbox may hide attn-tui entirely.
How the code is read (a .py file, a notebook's cells) is this module's business; how it is
called, and the channel its answers go back on, the worker's.
"""

from __future__ import annotations

import importlib.util
import inspect
import os
import sys


class Student:
    """The student's module and the function (or method) it was asked for."""

    def __init__(self, path: str, folder: str | None = None) -> None:
        self.path = os.path.realpath(path)
        spec = importlib.util.spec_from_file_location("student", self.path)
        self.module = importlib.util.module_from_spec(spec)
        sys.modules["student"] = self.module
        if folder:  # (their helper modules, as they imported them)
            sys.path.insert(0, os.path.realpath(folder))
        spec.loader.exec_module(self.module)

    def find(self, name: str) -> tuple[object | None, str]:
        """The callable NAME names (``fn``, ``Class`` with ``forward``/``__call__``, or
        ``Class.method``), and what it was found as."""
        first, _, method = name.partition(".")
        found = getattr(self.module, first, None)
        if found is None:  # attention, Attention, ATTENTION: the same name to a student
            same = [
                value for key, value in vars(self.module).items() if key.lower() == first.lower()
            ]
            found, first = (
                (same[0], next(k for k in vars(self.module) if k.lower() == first.lower()))
                if len(same) == 1
                else (None, first)
            )
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
        return (found, name) if callable(found) else (None, "")


def describe(student: Student, name: str, backward: str) -> dict:
    function, found_as = student.find(name)
    info = {
        "found": function is not None,
        "as": found_as,
        "names": sorted(
            n
            for n in vars(student.module)
            if not n.startswith("_") and callable(getattr(student.module, n))
        )[:20],
        "uses_torch": "torch" in vars(student.module) or "torch" in sys.modules,
        "softmax": callable(getattr(student.module, "softmax", None)),
    }
    if function is not None:
        info["parameters"] = _parameters(function)
    back, back_as = student.find(backward) if backward else (None, "")
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
