"""A student's function checked in the process that holds it: a notebook's own kernel, where the
function is an object the student just defined (``attn_tui.check(attention)``), not a file.

:class:`InProcess` stands in for grading.runner's ``Submission``: the same ``info`` and the same
``call`` contract, so that grading/calling.py's ``run_case`` tries the same conventions and
judges the same way. Its conversions are the worker's (grading/worker.py's ``to_input``,
``to_array`` and the parts of an answer), written again here because the worker imports nothing
of attn-tui and attn-tui imports nothing of the worker; tests/grading/test_in_process.py runs
the same students both ways and asserts the same readings.

No process, no limits: it is the student's own code in their own kernel (an endless loop is
theirs to interrupt). What it prints while being checked is kept (bounded) for the report,
not printed once a case.
"""

from __future__ import annotations

import contextlib
import inspect
import io
import os
import sys
import traceback

import numpy as np

MAX_PRINTED = 64 * 2**10  # characters of the function's own printing kept for the report


class CheckError(TypeError):
    """What was passed to ``check`` is not a function to check (said in one sentence)."""


class InProcess:
    """The student's function, called in this process as a worker would call it."""

    def __init__(self, given: object) -> None:
        self.function, self.name, owner = resolve(given)
        code_file = _code_file(self.function)
        self._file = os.path.realpath(code_file) if code_file else ""
        self.path = _place(code_file)  # where a verdict says an exception was: "Cell In[3]"
        self.memory = _memory()
        self._globals = _globals_of(self.function)
        self._printed = _Bounded()
        self.info = {
            "found": True,
            "as": self.name,
            "names": [],
            "uses_torch": _uses_torch(self._globals, owner),
            "softmax": callable(self._globals.get("softmax")),
            "parameters": _parameters(self.function),
            "backward": None,
            "chosen": None,
        }

    def output(self) -> str:
        """What the function printed while it was checked (bounded)."""
        return self._printed.getvalue()

    def call(
        self,
        arrays: dict[str, np.ndarray],
        *,
        positional: list[str],
        after: list | None = None,
        keywords: dict | None = None,
        keyword_arrays: list[str] | None = None,
        how: dict | None = None,
        function: str | None = None,
        rename: dict | None = None,
    ) -> tuple[dict, list[np.ndarray]]:
        """As ``Submission.call``: the answer (``ok``, ``count``, ``dtypes``, ``kind``; or the
        exception's ``type``, ``message``, ``line``, ``text``) and what it returned, as float64
        arrays. ``function`` other than the checked one is looked up where it was defined (the
        notebook's ``softmax``)."""
        how = how or {}
        target = self.function if function in (None, self.name) else self._globals.get(function)
        if not callable(target):
            return _error("NameError", f"no function {function!r} beside {self.name}"), []
        if how.get("torch") and "torch" not in sys.modules:
            # (a kernel that never imported torch holds no code that takes tensors; importing it
            # here would cost seconds for nothing)
            return _error("ModuleNotFoundError", "torch is not imported in this kernel"), []
        # a fresh float64 copy a call, as the worker receives: code that changes its arguments
        # in place changes nothing of the next call
        given = {name: np.array(value, dtype=np.float64) for name, value in arrays.items()}
        rename = rename or {}
        try:
            args = [to_input(given[key], how, key) for key in positional]
            args += list(after or [])
            kwargs = {
                rename.get(key, key): to_input(given[key], how, key) for key in keyword_arrays or []
            }
            kwargs.update(keywords or {})
            with np.errstate(all="ignore"), contextlib.redirect_stdout(self._printed):
                result = target(*args, **kwargs)
            return answer_of(result)
        except (Exception, SystemExit) as exc:  # (theirs to read; KeyboardInterrupt stops it)
            return self._error_of(exc), []

    def _error_of(self, exc: BaseException) -> dict:
        """The exception as the student reads it: its type, message and their own line."""
        line, text = None, ""
        for frame in traceback.extract_tb(exc.__traceback__):
            if self._file and os.path.realpath(frame.filename) == self._file:
                line, text = frame.lineno, frame.line or ""
        message = (
            f"called sys.exit({exc.code!r})" if isinstance(exc, SystemExit) else str(exc)[:500]
        )
        return {
            "ok": False,
            "type": type(exc).__name__,
            "message": message,
            "line": line,
            "text": text,
        }


def resolve(given: object) -> tuple[object, str, object | None]:
    """The callable to check, what it is called in the report, and the object that owns it (an
    instance made of a class, or given): a function, a lambda, a bound method, a class (made
    without arguments; its ``forward`` or ``__call__``), or an object with ``forward`` (a
    ``torch.nn.Module``) or ``__call__``."""
    if inspect.isclass(given):
        try:
            instance = given()
        except Exception as exc:  # noqa: BLE001 (theirs: said in one line)
            raise CheckError(
                f"class {given.__name__} could not be made without arguments "
                f"({type(exc).__name__}: {exc}): pass an instance, check({given.__name__}(…))"
            ) from exc
        function, name, _ = _method_of(instance, f"{given.__name__}()")
        return function, name, instance
    if inspect.isroutine(given) or isinstance(given, _partial_types()):
        return given, _name_of(given), getattr(given, "__self__", None)
    if callable(given) or callable(getattr(given, "forward", None)):
        return _method_of(given, f"{type(given).__name__}()")
    raise CheckError(
        f"check takes your attention function (or a class, or an object with forward or "
        f"__call__), not a {type(given).__name__}"
    )


def _method_of(instance: object, shown: str) -> tuple[object, str, object]:
    forward = getattr(instance, "forward", None)
    if callable(forward):
        return forward, f"{shown}.forward", instance
    if type(instance).__call__ is not object.__call__ and callable(instance):
        return instance, shown, instance
    raise CheckError(f"{shown} has no forward or __call__ method to check")


def _partial_types() -> tuple[type, ...]:
    import functools

    return (functools.partial,)


def _name_of(function: object) -> str:
    name = getattr(function, "__qualname__", None) or getattr(function, "__name__", None)
    if name is None and hasattr(function, "func"):  # functools.partial
        return f"partial({_name_of(function.func)})"
    if name is None or name.endswith("<lambda>"):
        return "the lambda"
    return name.rpartition("<locals>.")[2]  # "Layer.attend", not "make.<locals>.Layer.attend"


def _unwrapped(function: object) -> object:
    """The plain function behind a bound method, a partial or a decorator's wrapper."""
    for _ in range(16):  # (a chain of wrappers is bounded: a loop of them is not ours to follow)
        inner = getattr(function, "__func__", None) or getattr(function, "func", None)
        inner = inner or getattr(function, "__wrapped__", None)
        if inner is None or inner is function:
            break
        function = inner
    return function


def _code_file(function: object) -> str:
    code = getattr(_unwrapped(function), "__code__", None)
    return code.co_filename if code is not None else ""


def _globals_of(function: object) -> dict:
    found = getattr(_unwrapped(function), "__globals__", None)
    return found if isinstance(found, dict) else {}


def _place(code_file: str) -> str:
    """Where the code was written, as a verdict names it: a notebook cell as IPython names it
    ("Cell In[3]": the line is then the cell's), a file by its name."""
    shell = sys.modules.get("IPython")
    if shell is not None and code_file:
        try:
            cell = shell.get_ipython().compile.format_code_name(code_file)
        except Exception:  # noqa: BLE001 (no shell, or another IPython: the file's own name)
            cell = None
        if cell:
            return " ".join(cell)
    return os.path.basename(code_file) or "your function"


def _uses_torch(globals_: dict, owner: object | None) -> bool:
    """Whether the code is PyTorch's (tensors tried first): torch or one of its modules among
    the names its function sees, or it is a method of a torch.nn.Module."""
    torch = sys.modules.get("torch")
    if torch is None:
        return False
    if owner is not None and isinstance(owner, torch.nn.Module):
        return True
    return any(
        inspect.ismodule(value) and value.__name__.split(".")[0] == "torch"
        for value in list(globals_.values())
    )


def _parameters(function: object) -> list[list]:
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):
        return []
    return [
        [p.name, p.kind.name, p.default is not inspect.Parameter.empty]
        for p in signature.parameters.values()
    ]


def _memory() -> int:
    """This machine's memory: a MemoryError in the kernel is the machine's limit, not ours."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return 0


def _error(kind: str, message: str) -> dict:
    return {"ok": False, "type": kind, "message": message, "line": None, "text": ""}


# ---- the worker's conversions (grading/worker.py), for arrays that never leave the process ----


def to_input(array: np.ndarray, how: dict, name: str = ""):
    """An argument as the convention gives it: batched (leading 1s), bool, float32, a tensor."""
    array = array.reshape((1,) * how.get("batch", 0) + array.shape)
    if name in how.get("bool", ()):
        array = array.astype(bool)
    if how.get("float32") and array.dtype != bool:
        array = array.astype(np.float32)
    if how.get("torch"):
        return sys.modules["torch"].from_numpy(np.ascontiguousarray(array))
    return array


def to_array(value) -> np.ndarray:
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(value, torch.Tensor):
        value = value.detach().cpu()
        if value.dtype in (torch.bfloat16, torch.float16):
            value = value.float()
        value = value.numpy()
    array = np.asarray(value)
    if array.dtype == object or not (np.issubdtype(array.dtype, np.number) or array.dtype == bool):
        raise TypeError(f"returned a {type(value).__name__}, not an array of numbers")
    if np.iscomplexobj(array):
        raise TypeError("returned complex values, not real numbers")
    return array


def answer_of(result) -> tuple[dict, list[np.ndarray]]:
    """What the function returned as the worker answers it: its parts (a tuple or list of
    arrays; a list of rows of numbers is one matrix), at most 4, each as float64."""
    parts = (
        list(result)
        if isinstance(result, tuple) or isinstance(result, list) and not _a_matrix(result)
        else [result]
    )
    arrays, dtypes = [], []
    for part in parts[:4]:
        array = to_array(part)
        dtypes.append(str(array.dtype).replace("torch.", ""))
        arrays.append(array.astype(np.float64))
    kind = type(result).__name__
    return {"ok": True, "count": len(arrays), "dtypes": dtypes, "kind": kind}, arrays


def _a_matrix(value: list) -> bool:
    first = value[0] if value else None
    return isinstance(first, (list, tuple)) and all(isinstance(x, (int, float)) for x in first)


class _Bounded(io.StringIO):
    """Keeps the first ``MAX_PRINTED`` characters written to it, and drops the rest."""

    def write(self, text: str) -> int:
        room = MAX_PRINTED - self.tell()
        if room > 0:
            super().write(text[:room])
        return len(text)
