"""The limits a grading worker runs under (grading/runner.py sets them): its time, memory, file
size and number of processes, and the user it runs the student's code as (a uid of its own, when
we are root, whom RLIMIT_NPROC does not hold)."""

from __future__ import annotations

import json
import os
import resource
import secrets
from pathlib import Path

DEFAULT_TIMEOUT = 10.0  # seconds, a whole submission
DEFAULT_MEMORY = 2 * 2**30  # bytes of address space
MAX_FILE = 64 * 2**20  # the largest file the student's code may write
MORE_PROCESSES = 64  # threads and processes the worker may add to its user's


def rlimits(seconds: float, memory: int, processes: int) -> dict[int, tuple[int, int]]:
    cpu = max(1, int(seconds) + 1)
    return {
        resource.RLIMIT_CPU: (cpu, cpu + 1),
        resource.RLIMIT_AS: (memory, memory),
        resource.RLIMIT_FSIZE: (MAX_FILE, MAX_FILE),
        resource.RLIMIT_CORE: (0, 0),
        resource.RLIMIT_NPROC: (processes, processes),
    }


def as_argument(limits: dict[int, tuple[int, int]]) -> str:
    """The limits as the worker takes them (its argument: names, since numbers differ between
    systems), to set on itself before it imports the student's file."""
    names = {getattr(resource, name): name for name in dir(resource) if name.startswith("RLIMIT_")}
    return json.dumps({names[which]: list(values) for which, values in limits.items()})


# the first of the uids a worker started as root runs as, each a uid of its own, no user's:
# then RLIMIT_NPROC counts its processes alone, and no worker can signal another
FIRST_UID = 1_900_000_000
UIDS = 1_000_000


def worker_user() -> tuple[int, int] | None:
    """The uid and gid the worker runs the student's code as when we are root (whom RLIMIT_NPROC
    does not hold): one of its own, that no process has now; else None (our own)."""
    if os.geteuid() != 0:
        return None
    busy = _uids_running()
    while True:
        uid = FIRST_UID + secrets.randbelow(UIDS)
        if uid not in busy:
            return uid, uid


def _uids_running() -> set[int]:
    found = set()
    for status in Path("/proc").glob("[0-9]*/status"):
        try:
            text = status.read_text()
        except OSError:
            continue
        found.add(int(text.split("\nUid:\t", 1)[1].split("\t", 1)[0]))
    return found


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
