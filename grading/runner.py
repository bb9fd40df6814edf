"""Running a student's code: the one place attn-tui starts another Python for it.

A :class:`Submission` starts ``grading/worker.py`` once and asks it for every case of that
submission, so that a submission costs one process start. The worker runs in a sandbox
(grading/sandbox.py: its own PID namespace, no network, a read-only view of only what Python
needs, attn-tui hidden, one private writable folder) and under limits it sets on itself before
it imports the student's file (grading/worker_limits.py): the time for the whole submission
(``timeout``; the CPU time too, by RLIMIT_CPU), its memory (RLIMIT_AS), the size of any file it
writes (RLIMIT_FSIZE) and the number of processes (RLIMIT_NPROC). Standard input is closed and
its printed output captured (to a file of ours, read back bounded). Started as root, whom the
kernel holds to no RLIMIT_NPROC, the worker becomes a uid of its own before it imports the file.

Where no sandbox can run, the worker runs with the limits alone, in a new temporary folder as
its working folder and HOME, its process group killed when it is done (and, as root, every
process of its uid, and what that uid left in /tmp, /dev/shm and /var/tmp); the runner says so
once, on standard error.

Whatever the worker sends back is read as hostile (grading/reply.py): a reply that cannot be
read, and anything else that goes wrong with one submission, is that submission's verdict.
"""

from __future__ import annotations

import io
import json
import os
import select
import shutil
import signal
import stat
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from attn_tui.grading import sandbox
from attn_tui.grading.failures import (
    Failure,
    SubmissionFailed,
    exception_verdict,
    failed_import,
    why_it_stopped,
)
from attn_tui.grading.reply import UnreadableReply, read_reply
from attn_tui.grading.worker_limits import (
    DEFAULT_MEMORY,
    DEFAULT_TIMEOUT,
    as_argument,
    process_limit,
    rlimits,
    worker_user,
)

if TYPE_CHECKING:
    from typing import Self

HERE = Path(__file__).parent
# the files the worker runs, bound (read-only) into its sandbox: nothing else of attn-tui is
WORKER_FILES = ("worker.py", "student_code.py", "notebook_code.py")
MAX_OUTPUT = 64 * 2**10  # of the student's printed output kept
MAX_ANSWER = 256 * 2**20
PIPE_CHUNK = 1 << 16
_said_without_sandbox = False  # (the notice is given once a process)


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
        forbid: tuple[str, ...] = (),
    ) -> None:
        self.path = os.path.abspath(path)
        # the student's own folder, the only one the worker imports from beside the file
        # (their helper modules); None: the file alone, as in a flat export of a whole class
        self.folder = os.path.abspath(folder) if folder is not None else None
        self.name, self.backward = name, backward
        self.timeout, self.memory = timeout, memory
        self.forbid = tuple(forbid)  # modules hidden from the code besides attn-tui (torch)
        self.info: dict = {}
        self.failure: Failure | None = None
        self.sandboxed = False
        self._process: subprocess.Popen | None = None
        self._folder: str | None = None  # the worker's folder, when it has no sandbox
        self._user: tuple[int, int] | None = None
        self._output = None
        self._requests = self._answers = self._info = -1
        self._waited = 0.0  # seconds spent waiting for the worker's answers

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # ---- starting and stopping -------------------------------------------------------------

    def start(self) -> dict:
        """Start the worker and import the file; its description (``found``, ``parameters``,
        ``uses_torch``, ``softmax``, ``backward``, ``names``). Raises SubmissionFailed."""
        try:
            meta = self._start_worker()
        except Exception as problem:  # noqa: BLE001 (no process, no pipe: this one's verdict)
            self.close_worker()
            self._fail(Failure("protocol", f"its worker could not be started ({_named(problem)})"))
        self.info = self._ask(meta, {}, start=True)[0]
        if self.info.get("notes"):  # (a failed import is a note when the file goes on past it)
            self.info["notes"] = [self._reached_for(note) for note in self.info["notes"]]
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

    def _start_worker(self) -> dict:
        """Start the worker (in its sandbox, if one can run); the start request's meta."""
        reason = sandbox.problem()
        self.sandboxed = reason is None
        if not self.sandboxed:
            _say_without_sandbox(reason)
        self._output = tempfile.TemporaryFile()  # noqa: SIM115 (closed in close())
        self._user = user = worker_user()
        env = {
            "PATH": "/usr/bin:/bin" if self.sandboxed else os.environ.get("PATH", "/usr/bin:/bin"),
            "LANG": "C.UTF-8",
            "USER": "student",
            "LOGNAME": "student",
            "OPENBLAS_NUM_THREADS": "1",
            "OMP_NUM_THREADS": "1",
            "MKL_NUM_THREADS": "1",
        }
        if self.sandboxed:
            home = sandbox.HOME
        else:
            self._folder = home = tempfile.mkdtemp(prefix="attn-tui-student-")
            if user is not None:
                os.chown(home, *user)  # (where the code, as its own uid, may write: its HOME)
        env["HOME"] = env["TMPDIR"] = home
        self._waited = 0.0
        limits = rlimits(self.timeout, self.memory, process_limit(user[0] if user else os.getuid()))
        requests_read, self._requests = os.pipe()
        os.set_blocking(self._requests, False)  # (written within the time limit: _write)
        self._answers, answers_write = os.pipe()
        fds = [requests_read, answers_write]
        script = str(HERE / "worker.py")
        if self.sandboxed:
            script = f"{sandbox.GRADER}/worker.py"
        worker = [sys.executable, "-I", "-B", "-u", script, str(requests_read), str(answers_write)]
        worker += [f"{user[0]}:{user[1]}" if user is not None else "-", as_argument(limits)]
        file, folder = self.path, self.folder
        if self.sandboxed:
            self._info, info_write = os.pipe()
            fds.append(info_write)
            command, file, folder = sandbox.command(
                worker,
                file=self.path,
                folder=self.folder,
                forbid=self.forbid,
                worker_files={name: str(HERE / name) for name in WORKER_FILES},
            )
            command[1:1] = ["--info-fd", str(info_write)]
        else:
            command = worker
        try:
            self._process = subprocess.Popen(
                command,
                cwd="/" if self.sandboxed else home,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=self._output,
                stderr=subprocess.STDOUT,
                pass_fds=fds,
                start_new_session=True,
            )
        finally:
            for fd in fds:
                os.close(fd)
        return {"file": file, "folder": folder, "name": self.name, "backward": self.backward}

    def close(self) -> None:
        """Stop the worker, every process it started, and remove what it wrote; never raises."""
        process, self._process = self._process, None
        for fd in (self._requests, self._answers):
            if fd >= 0:
                try:
                    os.close(fd)
                except OSError:
                    pass
        self._requests = self._answers = -1
        if process is not None:
            try:
                process.wait(timeout=0.5)  # (its requests ended: a worker leaves of itself)
            except subprocess.TimeoutExpired:
                pass
            self._kill(process)
            _reap(process)
        if self._info >= 0:
            os.close(self._info)
            self._info = -1
        if not self.sandboxed and self._user is not None:
            _end_user(*self._user)  # (what its processes left outside its folder too)
        if self._folder is not None:
            remove_tree(self._folder)
            self._folder = None
        if self._output is not None:
            self._output.close()

    def output(self) -> str:
        """What the student's code printed (bounded; raw: made visible by whoever shows it)."""
        if self._output is None or self._output.closed:
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
        if (
            answer["ok"] is False
            and answer["type"] == "BlockingIOError"
            and "fork" in answer.get("text", "")
        ):
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
        return answer, found

    def _ask(self, meta: dict, arrays: dict, start: bool = False) -> tuple[dict, list]:
        try:
            self._write(_message(meta, arrays))
            answer, found = self._receive(start)
        except (BrokenPipeError, EOFError, OSError) as problem:
            failure = why_it_stopped(problem, self._process, self.timeout, self.sandboxed)
            said = self.output() if self.sandboxed and failure.kind == "exit" else ""
            if said.startswith("bwrap:"):  # (the sandbox, not the student's code)
                failure = Failure("protocol", f"its sandbox could not start: {said.strip()[:300]}")
            self._fail(failure)
        except UnreadableReply as problem:
            self._fail(Failure("protocol", f"its reply could not be read ({problem})"))
        except Exception as problem:  # noqa: BLE001 (MemoryError, RecursionError: its verdict)
            self._fail(Failure("protocol", f"its reply could not be read ({_named(problem)})"))
        if not answer["ok"]:
            answer = self._reached_for(answer)
        if start and not answer["ok"]:
            self._fail(failed_import(answer, self.path, self.memory))
        return answer, found

    def _receive(self, start: bool) -> tuple[dict, list]:
        head = self._read(8)
        (size,) = struct.unpack("<Q", head)
        if size > MAX_ANSWER:
            raise UnreadableReply(f"{size:,} bytes, more than {MAX_ANSWER // 2**20} MB")
        data = self._read(size)
        started = time.monotonic()  # (reading a reply counts in its time: a flood of large ones)
        try:
            return read_reply(data, start=start)
        finally:
            self._waited += time.monotonic() - started

    def _reached_for(self, answer: dict) -> dict:
        """An error that is the code reaching for what grading hides (attn-tui, a module the
        teacher forbade) says so."""
        if answer["type"] not in ("ModuleNotFoundError", "ImportError"):
            return answer
        message = answer["message"]
        name = message.split("'")[1] if message.count("'") >= 2 else ""
        top = name.split(".")[0]
        if top == sandbox.HIDDEN_PACKAGE and self.sandboxed:
            why = "attn-tui is hidden from students' code: it holds the reference"
        elif top in self.forbid and self.sandboxed:
            why = f"{top} is hidden from students' code here, by --forbid {top}"
        else:
            return answer
        return {**answer, "message": f"{message} ({why})"}

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
            self._kill(self._process)

    def _kill(self, process: subprocess.Popen) -> None:
        """SIGKILL the worker and all it started: in a sandbox, its PID namespace's first process
        (the kernel then kills every process in it, and bwrap exits once they are gone); else its
        process group."""
        if self.sandboxed and process.poll() is None:
            inner = _sandbox_pid(self._info)
            if inner is not None:
                try:
                    os.kill(inner, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


def _named(problem: BaseException) -> str:
    text = str(problem)
    return type(problem).__name__ + (f": {text[:200]}" if text else "")


def _say_without_sandbox(reason: str) -> None:
    global _said_without_sandbox
    if not _said_without_sandbox:
        _said_without_sandbox = True
        if sys.stderr is not None:
            sys.stderr.write(sandbox.without_sandbox_notice(reason) + "\n")
            sys.stderr.flush()


def _sandbox_pid(info: int) -> int | None:
    """The PID namespace's first process, as bwrap's --info-fd told it (JSON, written once)."""
    if info < 0:
        return None
    try:
        if not select.select([info], [], [], 1.0)[0]:
            return None
        text = os.read(info, 4096).decode("utf-8", "replace")
        pid = json.loads(text).get("child-pid")
    except (OSError, ValueError, AttributeError):
        return None
    return pid if type(pid) is int and pid > 1 else None


def _reap(process: subprocess.Popen) -> None:
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        pass


def _end_user(uid: int, gid: int) -> None:
    """Without a sandbox, as root: kill every process of the worker's own uid (a child in a
    session of its own left its process group) and remove what that uid left in the shared
    temporary folders. Never raises."""
    kill = shutil.which("kill", path="/usr/bin:/bin")
    if kill is not None:  # (kill -1 as that uid: every process it may signal, in one call)
        try:
            subprocess.run(
                [kill, "-s", "KILL", "--", "-1"],
                user=uid,
                group=gid,
                extra_groups=[],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                timeout=10,
                check=False,
            )
        except (OSError, subprocess.SubprocessError):
            pass
    for _ in range(100):  # (and any it missed, until none is left)
        running = _processes_of(uid)
        if not running:
            break
        for pid in running:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        time.sleep(0.01)
    for shared in ("/tmp", "/dev/shm", "/var/tmp"):
        try:
            entries = list(os.scandir(shared))
        except OSError:
            continue
        for entry in entries:
            try:
                if entry.stat(follow_symlinks=False).st_uid == uid:
                    remove_tree(entry.path)
            except OSError:
                pass


def _processes_of(uid: int) -> list[int]:
    found = []
    for status in Path("/proc").glob("[0-9]*/status"):
        try:
            text = status.read_text()
        except OSError:
            continue
        fields = text.split("\nUid:\t", 1)[1].split("\t")
        if int(fields[0]) == uid and "\nState:\tZ" not in text:
            found.append(int(status.parent.name))
    return found


def remove_tree(path: str) -> None:
    """Remove a folder and all it holds, however deep (one folder open at a time, by names
    relative to it: no recursion, no path too long), or a file or link; never raises. What
    cannot be removed is left."""
    flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW
    try:
        if not stat.S_ISDIR(os.lstat(path).st_mode):
            os.unlink(path)
            return
        fd = os.open(path, flags)
    except OSError:
        return
    names: list[str] = []  # the folders we went down through
    stuck: set[tuple[int, int]] = set()  # folders that could be neither entered nor removed
    try:
        while True:
            down = None
            device = os.fstat(fd).st_dev
            try:
                with os.scandir(fd) as entries:
                    for entry in entries:
                        if entry.is_dir(follow_symlinks=False):
                            if (entry.inode(), device) not in stuck:
                                down = entry.name
                                break
                        else:
                            try:
                                os.unlink(entry.name, dir_fd=fd)
                            except OSError:
                                pass
            except OSError:
                pass
            if down is not None:
                try:
                    os.chmod(down, 0o700, dir_fd=fd, follow_symlinks=False)
                except (OSError, NotImplementedError):
                    pass
                try:
                    child = os.open(down, flags, dir_fd=fd)
                except OSError:
                    try:
                        os.rmdir(down, dir_fd=fd)
                    except OSError:
                        stuck.add((os.stat(down, dir_fd=fd, follow_symlinks=False).st_ino, device))
                    continue
                os.close(fd)
                fd = child
                names.append(down)
                continue
            if not names:
                break
            parent = os.open("..", flags, dir_fd=fd)
            inode = (os.fstat(fd).st_ino, os.fstat(fd).st_dev)
            os.close(fd)
            fd = parent
            try:
                os.rmdir(names.pop(), dir_fd=fd)
            except OSError:
                stuck.add(inode)
    except OSError:
        pass
    finally:
        os.close(fd)
    try:
        os.rmdir(path)
    except OSError:
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
