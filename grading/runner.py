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
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from attn_tui.grading.failures import (
    Failure,
    SubmissionFailed,
    exception_verdict,
    failed_import,
    why_it_stopped,
)
from attn_tui.grading.worker_limits import (
    DEFAULT_MEMORY,
    DEFAULT_TIMEOUT,
    process_limit,
    rlimits,
    set_in_child,
    worker_user,
)

if TYPE_CHECKING:
    from typing import Self

WORKER = Path(__file__).with_name("worker.py")
# what the worker imports from its own folder (a sandbox shows it these, no other of attn-tui)
WORKER_FILES = ("worker.py", "student_code.py", "notebook_code.py")
MAX_OUTPUT = 64 * 2**10  # of the student's printed output kept
MAX_ANSWER = 256 * 2**20
PIPE_CHUNK = 1 << 16


class Submission:
    """One student's file, imported in a worker process that answers calls until closed."""

    def __init__(
        self,
        path: str | os.PathLike[str],
        name: str = "attention",
        *,
        backward: str = "",
        folder: str | os.PathLike[str] | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        memory: int = DEFAULT_MEMORY,
    ) -> None:
        self.path = os.path.abspath(path)
        # the student's own folder, the only one the worker imports from beside the file
        # (their helper modules); None: the file alone, as in a flat export of a whole class
        self.folder = os.path.abspath(folder) if folder is not None else None
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
        limits = rlimits(self.timeout, self.memory, process_limit(user[0] if user else os.getuid()))
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
                preexec_fn=None if later else set_in_child(limits),
            )  # noqa: PLW1509 (without prlimit only)
        finally:
            os.close(requests_read)
            os.close(answers_write)
        if later:
            for which, values in limits.items():
                resource.prlimit(self._process.pid, which, values)
        self.info = self._ask(
            {
                "file": self.path,
                "folder": self.folder,
                "name": self.name,
                "backward": self.backward,
            },
            {},
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
            # a fork bomb's children, left behind, would fight over the pipes:
            # it ends here, in one line
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
            self._fail(why_it_stopped(problem, self._process, self.timeout))
        if meta.get("file") and not answer.get("ok"):
            self._fail(failed_import(answer, self.path, self.memory))
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


def _message(meta: dict, arrays: dict) -> bytes:
    buffer = io.BytesIO()
    payload = {
        name: np.ascontiguousarray(value, dtype=np.float64) for name, value in arrays.items()
    }
    payload["__meta__"] = np.frombuffer(json.dumps(meta).encode("utf-8"), dtype=np.uint8)
    np.savez(buffer, **payload)
    data = buffer.getvalue()
    return struct.pack("<Q", len(data)) + data
