"""The data files attn-tui writes beside a scenario (an edited matrix from a ``.npy`` file goes
to ``<scenario>.<name>.npy``), and its record of them: a file is only ever replaced if the record
in the state folder says attn-tui wrote it, for this scenario, with exactly its present content."""

from __future__ import annotations

import hashlib
import itertools
import json
import os

from attn_tui.core.editing import recovery
from attn_tui.core.files import private_files

_RECORD = "written-data-files.json"
_RECORD_BYTES = 16 * 2**20  # a few hundred bytes a data file; larger is damage


def data_file(target: str, name: str) -> str:
    """Where an edited matrix ``name`` of the scenario saved at ``target`` goes:
    ``<scenario>.<name>.npy`` beside it, or ``<scenario>.<name>-2.npy``, ``-3``, … when a file of
    that name exists that attn-tui did not write for this scenario (or that changed since)."""
    folder = os.path.dirname(os.path.abspath(target))
    stem = os.path.splitext(os.path.basename(target))[0]
    for number in itertools.count(1):
        candidate = os.path.join(folder, f"{stem}.{name}{'' if number == 1 else f'-{number}'}.npy")
        if not os.path.lexists(candidate) or _written_for(candidate, target):
            return candidate
    raise AssertionError("unreachable")


def _written_for(path: str, target: str) -> bool:
    """Whether attn-tui wrote ``path`` for the scenario at ``target``, and nobody changed it
    since."""
    entry = _records().get(os.path.realpath(path))
    if not entry or entry.get("for") != os.path.realpath(target):
        return False
    try:
        if not os.path.isfile(path) or os.path.getsize(path) != entry.get("size"):
            return False
        with open(path, "rb") as file:
            return hashlib.sha256(file.read()).hexdigest() == entry.get("sha256")
    except OSError:
        return False


def remember(path: str, data: bytes, target: str) -> None:
    """Note that attn-tui wrote ``data`` to ``path`` for the scenario at ``target`` (best effort:
    without the note, the next save only picks another name)."""
    records = {name: entry for name, entry in _records().items() if os.path.isfile(name)}
    records[os.path.realpath(path)] = {
        "for": os.path.realpath(target),
        "size": len(data),
        "sha256": hashlib.sha256(data).hexdigest(),
    }
    try:  # private, as the recovery copies beside it: never through a link, 0600 in 0700
        private_files.write(recovery.folder(), _RECORD, json.dumps(records, indent=1).encode())
    except OSError:
        pass


def _records() -> dict[str, dict]:
    try:
        data = private_files.read(recovery.folder(), _RECORD, _RECORD_BYTES)
        records = json.loads(data.decode("utf-8")) if data is not None else {}
        return records if isinstance(records, dict) else {}
    except (OSError, ValueError):  # a link, a FIFO, a damaged record: as if there were none
        return {}
