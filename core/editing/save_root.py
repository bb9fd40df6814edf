"""Saving confined to one folder: what a served app (``attn-tui --serve``) may write.

A class's browsers all reach one machine, so a save there must not be able to write just
anywhere. A :class:`SaveRoot` is the folder a served app may save in, and the rule for every
path a save would write: it resolves (symbolic links followed, ``..`` applied, relative names
taken from the folder) to a file inside the folder, and either does not exist yet or was
written by this same app. So a student can neither reach outside the folder nor replace the
scenario the lecturer served, the lecturer's other files, or another student's saved work;
they can save again over their own file. Standard library only.
"""

from __future__ import annotations

import os
import re

from attn_tui.core.errors import SaveError
from attn_tui.core.text import quoted, visible


class OutsideSaveRoot(SaveError):
    """A save that the folder's rule refuses; nothing was written. The message says why."""


RECOVERY_FOLDER = (
    ".attn-tui-recovery"  # in the folder: the browsers' unsaved edits (core.editing.recovery_slots)
)


class SaveRoot:
    """The folder a served app saves in, the files this app has written there, and where it
    keeps its recovery copies (its slot of ``RECOVERY_FOLDER``, or None: no copies)."""

    def __init__(self, folder: str | os.PathLike[str], recovery: str | None = None) -> None:
        """``folder`` must be an existing folder; it is resolved once, here."""
        self.folder = os.path.realpath(folder)
        if not os.path.isdir(self.folder):
            raise ValueError(f"{visible(os.fspath(folder))} is not a folder")
        self.recovery = recovery
        self._written: set[str] = set()

    def resolve(self, name: str | os.PathLike[str]) -> str:
        """The real path that saving to ``name`` would write; ``OutsideSaveRoot`` if the rule
        refuses it. A relative ``name`` is taken from the folder, not the working directory."""
        name = os.fspath(name)
        if not name.strip():
            raise OutsideSaveRoot("type a file name, such as my_scenario.yaml")
        if visible(name) != name:
            raise OutsideSaveRoot(f"a file name cannot hold control characters: {quoted(name)}")
        path = os.path.realpath(os.path.join(self.folder, name))
        if os.path.commonpath([path, self.folder]) != self.folder:
            raise OutsideSaveRoot(
                f"{quoted(name)} is outside the folder this class saves in "
                f"({visible(self.folder)}); give a name inside it"
            )
        inside = os.path.relpath(path, self.folder).split(os.sep)[0]
        if inside.casefold() == RECOVERY_FOLDER:  # (in any case: some file systems ignore it)
            raise OutsideSaveRoot(
                f"{quoted(name)} is inside {RECOVERY_FOLDER}, where the class's unsaved "
                "edits are kept; give another name"
            )
        if path == self.folder or os.path.isdir(path) or name.endswith(("/", os.sep)):
            raise OutsideSaveRoot(f"{quoted(name)} is a folder; add a file name")
        if os.path.lexists(path) and path not in self._written:
            raise OutsideSaveRoot(
                f"{visible(os.path.relpath(path, self.folder))} already exists "
                "and was not saved from this app; choose another name"
            )
        return path

    def written(self, path: str) -> None:
        """Note that this app wrote ``path`` (a result of :meth:`resolve`): saving there again
        is allowed."""
        self._written.add(os.path.realpath(path))


def download_name(path: str) -> str:
    """The name a browser is given for a file it downloads from a served app: its base name
    in plain ASCII letters, digits, ``.``, ``_`` and ``-`` (textual-serve writes it into a
    Content-Disposition header unquoted: a space, ``;`` or a quote would cut it short), at
    most 100 characters, its extension kept."""
    stem, extension = os.path.splitext(os.path.basename(path))
    stem, extension = (
        re.sub(r"[^A-Za-z0-9._-]", "_", stem),
        re.sub(r"[^A-Za-z0-9]", "_", extension[1:]),
    )
    if not stem.strip("._"):
        return "scenario.yaml"
    extension = f".{extension[:10]}" if extension else ""
    return stem[: 100 - len(extension)] + extension
