"""What a graded submission may have left: processes still alive, files outside its folder."""

from __future__ import annotations

import os
from pathlib import Path

SHARED = ("/tmp", "/dev/shm", "/var/tmp")
MARK = "attn-leftover-"  # the hostile files name what they write outside so
PROCESS_NAME = "attnleftover"  # and the processes they leave


def alive_pids() -> set[int]:
    """Every process (not a zombie) on the machine now."""
    found = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            state = stat.read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if state != "Z":
            found.add(int(stat.parent.name))
    return found


def descendants(pid: int = 0) -> set[int]:
    """The processes (not zombies) this one started, and theirs."""
    pid = pid or os.getpid()
    parents = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if fields[0] != "Z":
            parents[int(stat.parent.name)] = int(fields[1])
    found, changed = set(), True
    while changed:
        changed = False
        for child, parent in parents.items():
            if child not in found and (parent == pid or parent in found):
                found.add(child)
                changed = True
    return found


def named_leftovers() -> list[int]:
    """Processes a hostile file named, alive."""
    found = []
    for comm in Path("/proc").glob("[0-9]*/comm"):
        try:
            if comm.read_text().strip() == PROCESS_NAME:
                state = (comm.parent / "stat").read_text().rsplit(")", 1)[1].split()[0]
                if state != "Z":
                    found.append(int(comm.parent.name))
        except (OSError, IndexError):
            continue
    return found


def written_outside() -> list[str]:
    found = []
    for folder in SHARED:
        try:
            found += [os.path.join(folder, n) for n in os.listdir(folder) if n.startswith(MARK)]
        except OSError:
            pass
    return found
