"""The limits a grading worker runs under (grading/runner.py sets them): its time, memory, file
size and number of processes, and the user it runs the student's code as (nobody's, when we are
root, whom RLIMIT_NPROC does not hold)."""

from __future__ import annotations

import os
import resource
from pathlib import Path

DEFAULT_TIMEOUT = 10.0  # seconds, a whole submission
DEFAULT_MEMORY = 2 * 2**30  # bytes of address space
MAX_FILE = 64 * 2**20  # the largest file the student's code may write
MORE_PROCESSES = 64  # threads and processes the worker may add to its user's
NOBODY = 65534


def rlimits(seconds: float, memory: int, processes: int) -> dict[int, tuple[int, int]]:
    cpu = max(1, int(seconds) + 1)
    return {
        resource.RLIMIT_CPU: (cpu, cpu + 1),
        resource.RLIMIT_AS: (memory, memory),
        resource.RLIMIT_FSIZE: (MAX_FILE, MAX_FILE),
        resource.RLIMIT_CORE: (0, 0),
        resource.RLIMIT_NPROC: (processes, processes),
    }


def set_in_child(limits: dict[int, tuple[int, int]]):
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


def process_limit(uid: int) -> int:
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
