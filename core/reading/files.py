"""Where a scenario's data files are: ``{npy: file.npy}`` and ``npz:`` paths, relative to the
scenario's own folder (the current folder for text given without a file)."""

from __future__ import annotations

import os
from dataclasses import dataclass

from attn_tui.core.files.numpy_files import ArrayRef, NumpyFileError, npz_members
from attn_tui.core.files.yaml_numbers import located, scalar_text
from attn_tui.core.files.yaml_source import Mapping, Node, deref
from attn_tui.core.reading.keys import Entry, check_keys, entries


@dataclass(frozen=True)
class Files:
    """The scenario's data files, found from ``path`` (the scenario's)."""

    path: str

    def npz(self, entry: Entry | None) -> dict[str, ArrayRef]:
        """Every array the scenario's ``npz:`` archive holds, by name."""
        if entry is None:
            return {}
        path = self.external_path(entry.value, "npz")
        try:
            return {name: ArrayRef(path, name) for name in npz_members(path)}
        except NumpyFileError as error:
            raise located(entry.value, f"npz: {error}") from None

    def npy_ref(self, node: Node, name: str) -> ArrayRef | None:
        """``{npy: path}`` as a reference to the file; None for a matrix written in YAML."""
        node = deref(node)
        if not isinstance(node, Mapping):
            return None
        found = entries(node, name)
        check_keys(found, ("npy",), name)
        if "npy" not in found:
            raise located(node, f"{name} must be a list of rows or {{npy: file.npy}}")
        return ArrayRef(self.external_path(found["npy"].value, "npy"))

    def external_path(self, node: Node, key: str) -> str:
        """A file named in the scenario, relative to the scenario's own folder."""
        text = scalar_text(node, key).strip()
        if not text:
            raise located(node, f"{key} needs a file name")
        if "\0" in text:
            raise located(node, f"{key}: a file name cannot hold a NUL character")
        named = not (self.path.startswith("<") and self.path.endswith(">"))  # not "<scenario>"
        base = os.path.dirname(os.path.abspath(self.path)) if named else os.getcwd()
        return os.path.normpath(os.path.join(base, os.path.expanduser(text)))


def named_files(document, path: str) -> list[str]:
    """Every data file a scenario's text names, as :class:`Files` finds it: ``npz:``,
    ``expect_npz:`` and each ``{npy: …}`` of its keys (an input, the bias, the mask) and of
    ``expect:``'s stages, in the order written, each once — what a scenario taken elsewhere
    needs beside it."""
    from attn_tui.core.errors import ScenarioError

    files, found = Files(path), {}
    try:
        top = entries(document.root, "the scenario")
        for name, entry in top.items():
            node = deref(entry.value)
            if name in ("npz", "expect_npz"):
                found[files.external_path(entry.value, name)] = None
            elif isinstance(node, Mapping):
                inner = entries(node, name)
                if "npy" in inner:
                    found[files.external_path(inner["npy"].value, "npy")] = None
                elif name == "expect":
                    for stage, given in inner.items():
                        if isinstance(deref(given.value), Mapping) and "npy" in (
                            named := entries(given.value, stage)
                        ):
                            found[files.external_path(named["npy"].value, "npy")] = None
    except ScenarioError:  # (a scenario that loaded has none of these problems)
        pass
    return list(found)
