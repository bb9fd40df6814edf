"""Running a student's code: the one place attn-tui starts another Python for it.

A :class:`Submission` starts ``grading/worker.py`` once, in its own session (process group),
and asks it for every case of that submission, so that a submission costs one process start.
The worker has limits: the time for the whole submission (``timeout``; the CPU time too, by
RLIMIT_CPU), its memory (RLIMIT_AS), the size of any file it writes (RLIMIT_FSIZE), the number
of processes (RLIMIT_NPROC), a new temporary folder as its working folder and HOME, standard
input closed, and its printed output captured (to a file in that folder, read back bounded).
The kernel holds root to no RLIMIT_NPROC: started as root, the worker becomes the user nobody
before it imports the student's file (keeping only the right to read files), its folder
nobody's. When it is done, its whole process group is killed, a child it forked included, and
its folder removed.

This is not a security sandbox: the code runs as the user (as root: as nobody, able to read
every file), and can read what the user can. Untrusted code belongs in a container
(docs/classroom.md).
"""

from __future__ import annotations

import io
import json
import os
import resource
import select
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from attn_tui.core.text import visible

if TYPE_CHECKING:
    from typing import Self

WORKER = Path(__file__).with_name("worker.py")
DEFAULT_TIMEOUT = 10.0  # seconds, a whole submission
DEFAULT_MEMORY = 2 * 2**30  # bytes of address space
MAX_OUTPUT = 64 * 2**10  # of the student's printed output kept
MAX_FILE = 64 * 2**20  # the largest file the student's code may write
MAX_ANSWER = 256 * 2**20
PIPE_CHUNK = 1 << 16
MORE_PROCESSES = 64  # threads and processes the worker may add to its user's
NOBODY = 65534


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


def _limits(seconds: float, memory: int, processes: int) -> dict[int, tuple[int, int]]:
    cpu = max(1, int(seconds) + 1)
    return {
        resource.RLIMIT_CPU: (cpu, cpu + 1),
        resource.RLIMIT_AS: (memory, memory),
        resource.RLIMIT_FSIZE: (MAX_FILE, MAX_FILE),
        resource.RLIMIT_CORE: (0, 0),
        resource.RLIMIT_NPROC: (processes, processes),
    }


def _set_in_child(limits: dict[int, tuple[int, int]]):
    """Where there is no prlimit (macOS): the limits set in the child between fork and exec."""

    def apply() -> None:
        for which, values in limits.items():
            resource.setrlimit(which, values)

    return apply


def worker_user() -> tuple[int, int] | None:
    """The uid and gid the worker runs the student's code as: nobody's when we are root (whom
    RLIMIT_NPROC does not hold), else None (our own)."""
    if os.geteuid() != 0:
        return None
    try:
        import pwd

        nobody = pwd.getpwnam("nobody")
        return nobody.pw_uid, nobody.pw_gid
    except (ImportError, KeyError):
        return NOBODY, NOBODY


def _process_limit(uid: int) -> int:
    """RLIMIT_NPROC counts every thread of the user: the user's count now and a few more (the
    worker's own threads, and what the student's code may start)."""
    user, count = str(uid), 0
    for status in Path("/proc").glob("[0-9]*/status"):
        try:
            text = status.read_text()
        except OSError:
            continue
        if f"\nUid:\t{user}\t" in text:
            count += int(text.split("\nThreads:\t", 1)[1].split("\n", 1)[0])
    return count + MORE_PROCESSES


class Submission:
    """One student's file, imported in a worker process that answers calls until closed."""

    def __init__(
        self,
        path: str | os.PathLike[str],
        name: str = "attention",
        *,
        backward: str = "",
        timeout: float = DEFAULT_TIMEOUT,
        memory: int = DEFAULT_MEMORY,
    ) -> None:
        self.path = os.path.abspath(path)
        self.name, self.backward = name, backward
        self.timeout, self.memory = timeout, memory
        self.info: dict = {}
        self.failure: Failure | None = None
        self._process: subprocess.Popen | None = None
        self._folder: str | None = None
        self._waited = 0.0  # seconds spent waiting for the worker's answers

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # ---- starting and stopping -------------------------------------------------------------

    def start(self) -> dict:
        """Start the worker and import the file; its description (``found``, ``parameters``,
        ``uses_torch``, ``softmax``, ``backward``, ``names``). Raises SubmissionFailed."""
        self._folder = tempfile.mkdtemp(prefix="attn-tui-student-")
        requests_read, self._requests = os.pipe()
        os.set_blocking(self._requests, False)  # (written within the time limit: _write)
        self._answers, answers_write = os.pipe()
        self._output = open(os.path.join(self._folder, ".output"), "w+b")  # noqa: SIM115 (closed in close())
        user = worker_user()
        if user is not None:
            os.chown(self._folder, *user)  # (where the code, as nobody, may write: its HOME)
        env = {
            "HOME": self._folder,
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "LANG": "C.UTF-8",
            "PYTHONDONTWRITEBYTECODE": "1",
            "PYTHONNOUSERSITE": "1",
            "TMPDIR": self._folder,
            "OPENBLAS_NUM_THREADS": "1",
            "OMP_NUM_THREADS": "1",
            "MKL_NUM_THREADS": "1",
        }
        self._waited = 0.0
        limits = _limits(
            self.timeout, self.memory, _process_limit(user[0] if user else os.getuid())
        )
        # the limits are set on the worker once it runs (prlimit), before it is sent the file to
        # import: a preexec_fn runs Python between fork and exec, unsafe in a process with threads
        later = hasattr(resource, "prlimit")
        try:
            self._process = subprocess.Popen(
                [sys.executable, "-I", "-u", str(WORKER), str(requests_read), str(answers_write)]
                + ([f"{user[0]}:{user[1]}"] if user is not None else []),
                cwd=self._folder,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=self._output,
                stderr=subprocess.STDOUT,
                pass_fds=(requests_read, answers_write),
                start_new_session=True,
                preexec_fn=None if later else _set_in_child(limits),
            )  # noqa: PLW1509 (without prlimit only)
        finally:
            os.close(requests_read)
            os.close(answers_write)
        if later:
            for which, values in limits.items():
                resource.prlimit(self._process.pid, which, values)
        self.info = self._ask(
            {"file": self.path, "name": self.name, "backward": self.backward}, {}
        )[0]
        if not self.info.get("found"):
            names = ", ".join(self.info.get("names", [])) or "none"
            looked = (
                self.name
                if "." in self.name
                else f"{self.name} (a function, or a class with forward or __call__)"
            )
            self._fail(
                Failure(
                    "missing",
                    f"no {looked} in {os.path.basename(self.path)}; what it defines: {names}",
                )
            )
        return self.info

    def close(self) -> None:
        process, self._process = self._process, None
        if process is not None:
            for fd in (self._requests, self._answers):
                try:
                    os.close(fd)
                except OSError:
                    pass
            try:
                process.wait(timeout=0.5)
            except subprocess.TimeoutExpired:
                pass
            try:
                os.killpg(process.pid, signal.SIGKILL)  # whatever it forked goes with it
            except (ProcessLookupError, PermissionError):
                pass
            process.wait()
        if self._folder is not None:
            self._output.close()
            shutil.rmtree(self._folder, ignore_errors=True)
            self._folder = None

    def output(self) -> str:
        """What the student's code printed (bounded; raw: made visible by whoever shows it)."""
        if self._folder is None or self._output.closed:
            return ""
        self._output.flush()
        self._output.seek(0)
        return self._output.read(MAX_OUTPUT).decode("utf-8", "replace")

    # ---- calling ---------------------------------------------------------------------------

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
        """Call the student's function: ``positional`` arrays, then ``after`` values, and
        ``keywords``; ``how`` converts the arrays (``batch``: leading 1s, ``float32``, ``torch``).
        Returns the answer (``ok``, or the exception's ``type``, ``message``, ``line``) and what it
        returned, as float64 arrays. Raises SubmissionFailed when the worker cannot answer."""
        if self.failure is not None:
            raise SubmissionFailed(self.failure)
        meta = {
            "call": function or self.name,
            "positional": positional,
            "after": after or [],
            "keywords": keywords or {},
            "keyword_arrays": keyword_arrays or [],
            "how": how or {},
            "rename": rename or {},
        }
        answer, found = self._ask(meta, arrays)
        if answer.get("type") == "BlockingIOError" and "fork" in answer.get("text", ""):
            # a fork bomb's children, left behind, would fight over the pipes: it ends here, in one line
            self._fail(
                Failure(
                    "processes",
                    exception_verdict(answer, self.path, self.memory),
                    answer.get("line"),
                    error_type="BlockingIOError",
                )
            )
        return answer, [found[f"r{i}"] for i in range(len(found))]

    def _ask(self, meta: dict, arrays: dict) -> tuple[dict, dict]:
        try:
            self._write(_message(meta, arrays))
            answer, found = self._receive()
        except (BrokenPipeError, EOFError, ValueError, OSError) as problem:
            self._fail(self._why_it_stopped(problem))
        if meta.get("file") and not answer.get("ok"):
            self._fail(self._failed_import(answer))
        return answer, found

    def _receive(self) -> tuple[dict, dict]:
        head = self._read(8)
        (size,) = struct.unpack("<Q", head)
        if size > MAX_ANSWER:
            raise ValueError("an answer too large")
        with np.load(io.BytesIO(self._read(size)), allow_pickle=False) as found:
            arrays = {name: found[name] for name in found.files}
        meta = json.loads(bytes(arrays.pop("__meta__")).decode("utf-8"))
        return meta, arrays

    def _write(self, data: bytes) -> None:
        """Send a request, within the time left: a worker that stops reading (its children
        fighting over the pipe) must not hold us at a full pipe."""
        view = memoryview(data)
        while view:
            remaining = self.timeout - self._waited
            started = time.monotonic()
            ready = remaining > 0 and select.select([], [self._requests], [], remaining)[1]
            self._waited += time.monotonic() - started
            if not ready:
                raise TimeoutError
            try:
                view = view[os.write(self._requests, view[:PIPE_CHUNK]) :]
            except BlockingIOError:
                continue

    def _read(self, size: int) -> bytes:
        chunks, left = [], size
        while left:  # (the time counted is the worker's: waiting for it, not our judging)
            remaining = self.timeout - self._waited
            started = time.monotonic()
            ready = remaining > 0 and select.select([self._answers], [], [], remaining)[0]
            self._waited += time.monotonic() - started
            if not ready:
                raise TimeoutError
            chunk = os.read(self._answers, min(left, 1 << 20))
            if not chunk:
                raise EOFError
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks)

    def _fail(self, failure: Failure):
        self.failure = failure
        self.close_worker()
        raise SubmissionFailed(failure)

    def close_worker(self) -> None:
        if self._process is not None:
            try:
                os.killpg(self._process.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass

    def _why_it_stopped(self, problem: Exception) -> Failure:
        process = self._process
        if isinstance(problem, TimeoutError):
            return Failure(
                "timeout", f"timed out: no answer within {self.timeout:g} s (an endless loop?)"
            )
        try:
            code = process.wait(timeout=2) if process is not None else None
        except subprocess.TimeoutExpired:  # alive, but what it sent was not an answer
            return Failure(
                "protocol", "its answer was garbled (did it write to the worker's own pipe?)"
            )
        if code is not None and code < 0:
            sig = signal.Signals(-code)
            if sig == signal.SIGXCPU:
                return Failure("timeout", f"timed out: used more than {self.timeout:g} s of CPU")
            if sig == signal.SIGXFSZ:
                return Failure("exit", f"wrote a file over the limit ({MAX_FILE // 2**20} MB)")
            return Failure("exit", f"killed by {sig.name} before answering")
        if code is not None:
            return Failure("exit", f"exited with status {code} before answering (os._exit?)")
        return Failure("protocol", f"stopped answering ({type(problem).__name__})")

    def _failed_import(self, answer: dict) -> Failure:
        name = os.path.basename(self.path)
        kind = answer.get("type", "")
        line, column = answer.get("line"), answer.get("column")
        where = f"{name}:{line}" + (f":{column}" if column else "") if line else name
        if kind == "SyntaxError":
            return Failure(
                "syntax", f"{where}: syntax error: {answer.get('message')}", line, column, kind
            )
        if kind == "MemoryError":
            return memory_failure(self.memory, where)
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


def memory_failure(memory: int, where: str) -> Failure:
    return Failure(
        "memory",
        f"{where}: went over the memory limit ({memory / 2**30:g} GB)",
        error_type="MemoryError",
    )


def exception_verdict(answer: dict, path: str, memory: int = DEFAULT_MEMORY) -> str:
    """One line for an exception the student's function raised: its type, message and line (a
    MemoryError is the memory limit), made visible (its message is the student's text)."""
    where = (
        f"{os.path.basename(path)}:{answer['line']}"
        if answer.get("line")
        else os.path.basename(path)
    )
    if answer.get("type") == "MemoryError":
        return memory_failure(memory, where).verdict
    text = f" ({answer['text'].strip()})" if answer.get("text") else ""
    if answer.get("type") == "BlockingIOError" and "fork" in answer.get("text", ""):
        text += (
            f": over the limit of processes ({MORE_PROCESSES} more than its user had; a fork bomb?)"
        )
    return visible(f"{where}: {answer.get('type')}: {answer.get('message')}{text}")


def _message(meta: dict, arrays: dict) -> bytes:
    buffer = io.BytesIO()
    payload = {
        name: np.ascontiguousarray(value, dtype=np.float64) for name, value in arrays.items()
    }
    payload["__meta__"] = np.frombuffer(json.dumps(meta).encode("utf-8"), dtype=np.uint8)
    np.savez(buffer, **payload)
    data = buffer.getvalue()
    return struct.pack("<Q", len(data)) + data
