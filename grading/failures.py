"""Why a submission could not answer, in the one line a teacher reads: a :class:`Failure`
(syntax, exception, timeout, memory, exit, processes, missing or protocol), what grading/runner.py
raises with it, and the verdicts for an exception, a failed import and a worker that stopped."""

from __future__ import annotations

import os
import signal
import subprocess
from dataclasses import dataclass

from attn_tui.core.text import visible
from attn_tui.grading.worker_limits import DEFAULT_MEMORY, MAX_FILE, MORE_PROCESSES


@dataclass(frozen=True)
class Failure:
    """Why a submission could not answer: ``kind`` is syntax, exception, timeout, memory, exit,
    processes (a fork bomb), missing or protocol; ``verdict`` the one line a teacher reads."""

    kind: str
    verdict: str
    line: int | None = None
    column: int | None = None
    error_type: str = ""


class SubmissionFailed(Exception):
    def __init__(self, failure: Failure) -> None:
        super().__init__(failure.verdict)
        self.failure = failure


def memory_failure(memory: int, where: str) -> Failure:
    return Failure(
        "memory",
        f"{where}: went over the memory limit ({memory / 2**30:g} GB)",
        error_type="MemoryError",
    )


def exception_verdict(answer: dict, path: str, memory: int = DEFAULT_MEMORY) -> str:
    """One line for an exception the student's function raised: its type, message and line (a
    MemoryError is the memory limit), made visible (its message is the student's text)."""
    where = os.path.basename(path)
    if answer.get("cell") is not None:  # a notebook's: its cell, and the line within it
        where += f", cell {answer['cell']}" + (
            f", line {answer['line']}" if answer.get("line") else ""
        )
    elif answer.get("line"):
        where += f":{answer['line']}"
    if answer.get("type") == "MemoryError":
        return memory_failure(memory, where).verdict
    text = f" ({answer['text'].strip()})" if answer.get("text") else ""
    if answer.get("type") == "BlockingIOError" and "fork" in answer.get("text", ""):
        text += (
            f": over the limit of processes ({MORE_PROCESSES} more than its user had; a fork bomb?)"
        )
    return visible(f"{where}: {answer.get('type')}: {answer.get('message')}{text}")


def why_it_stopped(
    problem: Exception,
    process: subprocess.Popen | None,
    timeout: float,
    sandboxed: bool = False,
) -> Failure:
    """What a worker that stopped answering did (timed out, was killed, exited, garbled its
    answer), from the problem its pipe raised and the process's exit (``sandboxed``: bwrap's,
    which exits 128 + N when the worker was killed by signal N)."""
    if isinstance(problem, TimeoutError):
        return Failure("timeout", f"timed out: no answer within {timeout:g} s (an endless loop?)")
    try:
        code = process.wait(timeout=2) if process is not None else None
    except subprocess.TimeoutExpired:  # alive, but what it sent was not an answer
        return Failure(
            "protocol", "its answer was garbled (did it write to the worker's own pipe?)"
        )
    if sandboxed and code is not None and 128 < code < 128 + signal.NSIG:
        code = 128 - code  # (an os._exit(137) reads as SIGKILL too: bwrap tells them apart no more)
    if code is not None and code < 0:
        sig = signal.Signals(-code)
        if sig == signal.SIGXCPU:
            return Failure("timeout", f"timed out: used more than {timeout:g} s of CPU")
        if sig == signal.SIGXFSZ:
            return Failure("exit", f"wrote a file over the limit ({MAX_FILE // 2**20} MB)")
        return Failure("exit", f"killed by {sig.name} before answering")
    if code is not None:
        return Failure("exit", f"exited with status {code} before answering (os._exit?)")
    return Failure("protocol", f"stopped answering ({type(problem).__name__})")


def failed_import(answer: dict, path: str, memory: int) -> Failure:
    """Why the student's file at ``path`` could not be imported, from the worker's answer."""
    name = os.path.basename(path)
    kind = answer.get("type", "")
    line, column = answer.get("line"), answer.get("column")
    where = f"{name}:{line}" + (f":{column}" if column else "") if line else name
    if kind == "SyntaxError":
        return Failure(
            "syntax", f"{where}: syntax error: {answer.get('message')}", line, column, kind
        )
    if kind == "MemoryError":
        return memory_failure(memory, where)
    if kind == "SystemExit":
        return Failure("exit", f"{name}: {answer.get('message')}", None, None, kind)
    if kind == "OSError" and "[Errno 27]" in str(answer.get("message")):  # EFBIG: RLIMIT_FSIZE
        return Failure(
            "output",
            f"{where}: printed or wrote more than the limit ({MAX_FILE // 2**20} MB) "
            "while importing",
            line,
            None,
            kind,
        )
    return Failure(
        "exception",
        f"{where}: {kind} while importing: {answer.get('message')}",
        line,
        None,
        kind,
    )
