"""Saving a scenario back into its author's YAML, keeping every comment and the layout.

Only the numbers that changed are rewritten, each at its own position in the original text.
Where an alias (``K: *qk``) would otherwise change along with an edited anchor, the alias is
replaced by the numbers it stood for. A scenario made by ``random:`` gets its numbers written
out. The result is read back and compared with what should have been saved before anything
is written; writing itself is atomic (a temporary file, then a rename).
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field

import numpy as np

from attn_tui.core.atomic_write import write_atomic
from attn_tui.core.errors import ScenarioError
from attn_tui.core.scenario_file import Entry, entries, loads
from attn_tui.core.numbers import yaml_number
from attn_tui.core.numpy_files import npy_bytes
from attn_tui.core.scenario import Scenario, bits_equal
from attn_tui.core.text import visible
from attn_tui.core.yaml_source import Alias, Document, Mapping, Node, content_end, deref, replace_spans


class SaveError(Exception):
    """Saving failed; the message says why and what the user can do instead (one line, with
    the file names it quotes made visible)."""

    def __str__(self) -> str:
        return visible(super().__str__())


@dataclass
class SavePlan:
    """What saving writes: the scenario's text, and any matrices that go to .npy files."""

    text: str
    arrays: dict[str, np.ndarray] = field(default_factory=dict)  # absolute path → values


def plan(scenario: Scenario, target: str | None = None) -> SavePlan:
    """The original text with the current numbers and options written in, for ``target``
    (default: the scenario's own file). No file is touched.

    A matrix that came from a .npy or .npz file and was edited goes to a new file
    ``<scenario>.<name>.npy`` beside the target (the student's data file is never overwritten),
    and the text points to it. Saved elsewhere, relative paths to data files are rewritten.
    """
    document = scenario.source
    if document is None or scenario.path is None:
        raise SaveError("this scenario has no file text to update; use Save As")
    target = target or scenario.path
    original = loads(document.text, scenario.path)
    top = entries(document.root, "the scenario")
    edits = _Edits(document, scenario.path)
    arrays: dict[str, np.ndarray] = {}
    target_dir = os.path.dirname(os.path.abspath(target))
    if scenario.random is not None and not _inputs_equal(scenario, original):
        _write_out_random(edits, scenario, top["random"])
    else:
        for name, current in scenario.inputs.items():
            if bits_equal(current, original.inputs[name]):
                continue
            if name in scenario.files:
                stem = os.path.splitext(os.path.basename(target))[0]
                path = os.path.join(target_dir, f"{stem}.{name}.npy")
                arrays[path] = current
                edits.file_reference(top, name, os.path.relpath(path, target_dir))
            else:
                edits.matrix(top[name].value, current, original.inputs[name])
        edits.keep_aliases(scenario, top)
    if target_dir != os.path.dirname(os.path.abspath(scenario.path)):
        edits.relocate_files(top, target_dir)
    if not _expect_equal(scenario, original):
        edits.expect(top, scenario.expect)
    if scenario.expect_tolerance != original.expect_tolerance:
        edits.option(top, "expect_tolerance", scenario.expect_tolerance)
    for name in ("causal", "scale"):
        value = getattr(scenario.options, name)
        if value != getattr(original.options, name) or type(value) is not type(getattr(original.options, name)):
            edits.option(top, name, value)
    return SavePlan(edits.result(), arrays)


def save(scenario: Scenario, target: str | None = None) -> str:
    """Write the scenario (and any edited data matrices) to ``target``; returns the text written.

    New .npy files are written first, then the text is read back and compared with the
    scenario, and only then does it replace the old file, atomically.
    """
    target = target or scenario.path
    saving = plan(scenario, target)
    try:
        for path, values in saving.arrays.items():
            write_atomic(path, npy_bytes(values))
        verify(saving.text, scenario, target)
        write_atomic(target, saving.text)
    except OSError as exc:
        where = exc.filename or target
        raise SaveError(f"cannot write {where}: {exc.strerror or exc}; your edits are kept, "
                        "save elsewhere with Save As") from None
    return saving.text


def updated_text(scenario: Scenario) -> str:
    """The scenario's own file text, updated and checked (for scenarios without data files)."""
    saving = plan(scenario)
    if saving.arrays:
        raise SaveError("edited matrices from .npy files are written by save(), not here")
    verify(saving.text, scenario, scenario.path)
    return saving.text


def render(scenario: Scenario) -> str:
    """A fresh YAML file for the scenario (for Save As when the original text cannot be kept)."""
    lines = [f"# Written by attn-tui from {scenario.path or 'a scenario'}.",
             f"title: {_quote(scenario.title)}"]
    if scenario.description:
        lines.append(f"description: {_quote(scenario.description)}")
    lines.append("tokens: [" + ", ".join(_quote(token) for token in scenario.tokens) + "]")
    for name, values in scenario.inputs.items():
        lines.append(f"{name}:")
        lines += [f"  - {_row(row)}" for row in values]
    options = scenario.options
    lines.append(f"causal: {'true' if options.causal else 'false'}")
    lines.append(f"scale: {_option_text(options.scale)}")
    lines.append(f"mask_value: {'-.inf' if math.isinf(options.mask_value) else yaml_number(options.mask_value)}")
    lines.append(f"focus: {scenario.focus + 1}")
    lines.append(f"precision: {scenario.precision}")
    if scenario.variants:
        lines.append("variants:")
        for variant in scenario.variants:
            lines.append(f"  - name: {_quote(variant.name)}")
            for key in ("causal", "scale", "mask_value"):
                value = getattr(variant, key)
                if value is not None:
                    shown = "-.inf" if key == "mask_value" and math.isinf(value) else _option_text(value)
                    lines.append(f"    {key}: {shown}")
    text = "\n".join(lines) + "\n"
    verify(text, scenario)
    return text


class _Edits:
    """Replacements of spans of the original text, collected and then applied at once."""

    def __init__(self, document: Document, path: str) -> None:
        self.document = document
        self.path = path
        self.text = document.text
        self.spans: dict[tuple[int, int], str] = {}
        self.appended: list[str] = []

    def replace(self, node: Node, new: str) -> None:
        start = node.start if isinstance(node, Alias) else _value_start(self.text, node)
        self.spans[(start, content_end(node))] = new

    def matrix(self, node: Node, current: np.ndarray, old: np.ndarray) -> None:
        if isinstance(node, Alias):
            self.replace(node, _flow_matrix(current))
            return
        for i, row in enumerate(node.items):
            changed = np.flatnonzero(current[i].view(np.int64) != old[i].view(np.int64))
            if not len(changed):
                continue
            if isinstance(row, Alias):
                self.replace(row, _row(current[i]))
                continue
            for j in changed:
                self.replace(row.items[j], yaml_number(float(current[i, j])))

    def keep_aliases(self, scenario: Scenario, top: dict[str, Entry]) -> None:
        """An alias whose anchor was edited in place would follow the edit: give it its own
        numbers instead (the values the scenario has at that alias's place)."""
        edited = list(self.spans)
        places = _alias_places(scenario, top)
        for alias in self.document.aliases:
            target = alias.target
            end = content_end(target)
            touched = any(target.start <= start and stop <= end for start, stop in edited)
            inside_edit = any(start <= alias.start and alias.end <= stop for start, stop in edited)
            if not touched or inside_edit:
                continue
            value = places.get(id(alias))
            if value is None:  # outside the matrices: keep exactly what the anchor said before
                self.spans[(alias.start, alias.end)] = self.text[_value_start(self.text, target):end]
            else:
                self.spans[(alias.start, alias.end)] = value

    def file_reference(self, top: dict[str, Entry], name: str, relative: str) -> None:
        """Point matrix ``name`` at a .npy file: in its ``{npy: …}`` or as a new key."""
        node = deref(top[name].value) if name in top else None
        if isinstance(node, Mapping):
            self.replace(entries(node, name)["npy"].value, _quote(relative))
        else:  # it came from the npz: an explicit key overrides the npz's array
            self.appended.append(f"{name}: {{npy: {_quote(relative)}}}")

    def relocate_files(self, top: dict[str, Entry], target_dir: str) -> None:
        """Rewrite relative data-file paths so they still resolve from ``target_dir``."""
        base = os.path.dirname(os.path.abspath(self.path))
        nodes = [top["npz"].value] if "npz" in top else []
        for name, entry in top.items():
            node = deref(entry.value)
            if name != "npz" and isinstance(node, Mapping) and "npy" in entries(node, name):
                nodes.append(entries(node, name)["npy"].value)
        for node in nodes:
            start = _value_start(self.text, node)
            if any(a <= start < b for a, b in self.spans):
                continue  # already pointed at a new file
            written = os.path.expanduser(deref(node).value)
            if os.path.isabs(written):
                continue
            moved = os.path.relpath(os.path.normpath(os.path.join(base, written)), target_dir)
            self.replace(node, _quote(moved))

    def expect(self, top: dict[str, Entry], expect: dict) -> None:
        """Write the student's values as ``expect: {stage: rows}`` (a cell left out is ~)."""
        def cell(value: float, given: bool) -> str:
            if not given:
                return "~"
            if math.isnan(value):
                return ".nan"
            if math.isinf(value):
                return ".inf" if value > 0 else "-.inf"
            return yaml_number(float(value))

        stages = [f"{stage}: [" + ", ".join(
            "[" + ", ".join(cell(v, g) for v, g in zip(values, given)) + "]"
            for values, given in zip(expected.values, expected.given)) + "]"
            for stage, expected in expect.items()]
        text = "{" + ", ".join(stages) + "}"
        if "expect" in top:
            self.replace(top["expect"].value, text)
        else:
            self.appended.append(f"expect: {text}")

    def option(self, top: dict[str, Entry], name: str, value: bool | float) -> None:
        if name in top:
            self.replace(top[name].value, _option_text(value))
        else:
            self.appended.append(f"{name}: {_option_text(value)}")

    def result(self) -> str:
        text = replace_spans(self.text, self.spans)
        if self.appended:
            root = self.document.root
            if isinstance(root, Mapping) and root.flow:
                insert = content_end(root) - 1 + len(text) - len(self.text)
                addition = "".join(f", {line}" for line in self.appended)
                text = text[:insert] + addition + text[insert:]
            else:
                if text and not text.endswith("\n"):
                    text += "\n"
                text += "\n".join(self.appended) + "\n"
        return text


def _write_out_random(edits: _Edits, scenario: Scenario, entry: Entry) -> None:
    spec = scenario.random
    indent = " " * (entry.key.col - 1)
    lines = [f"# was random: {{seed: {spec.seed}, T: {spec.T}, d_k: {spec.d_k}, d_v: {spec.d_v}}}"
             "; the numbers, as edited, are written out below"]
    for name in ("Q", "K", "V"):
        lines.append(f"{indent}{name}:")
        lines += [f"{indent}  - {_row(row)}" for row in scenario.inputs[name]]
    edits.spans[(entry.key.start, content_end(entry.value))] = "\n".join(lines)


def _alias_places(scenario: Scenario, top: dict[str, Entry]) -> dict[int, str]:
    """For every alias inside an input matrix, the text of the values now at its place."""
    places: dict[int, str] = {}
    for name, values in scenario.inputs.items():
        if name not in top or name in scenario.files:
            continue
        node = top[name].value
        if isinstance(node, Alias):
            places[id(node)] = _flow_matrix(values)
            continue
        for i, row in enumerate(deref(node).items):
            if isinstance(row, Alias):
                places[id(row)] = _row(values[i])
                continue
            for j, cell in enumerate(deref(row).items):
                if isinstance(cell, Alias):
                    places[id(cell)] = yaml_number(float(values[i, j]))
    return places


def verify(text: str, scenario: Scenario, path: str | None = None) -> None:
    """``SaveError`` unless ``text`` (saved at ``path``) loads back to exactly ``scenario``."""
    try:
        saved = loads(text, path or scenario.path or "<saved>")
    except ScenarioError as error:
        raise SaveError(f"the updated file would not load ({error.message}); nothing was "
                        "written; use Save As to write a new file") from None
    if not saved.same_numbers(scenario):
        raise SaveError("this file's layout (anchors or aliases) cannot take the edit in place; "
                        "nothing was written; use Save As to write a new file")


def _value_start(text: str, node: Node) -> int:
    """Where a node's value begins, after its anchor (``&q``) and tag, which stay."""
    position = node.start
    while position < len(text) and text[position] in "&!":
        while position < len(text) and not text[position].isspace():
            position += 1
        while position < len(text) and text[position] in " \t":
            position += 1
    return position


def _expect_equal(a: Scenario, b: Scenario) -> bool:
    return a.expect.keys() == b.expect.keys() and all(
        bits_equal(a.expect[s].values, b.expect[s].values)
        and np.array_equal(a.expect[s].given, b.expect[s].given) for s in a.expect)


def _inputs_equal(a: Scenario, b: Scenario) -> bool:
    return a.inputs.keys() == b.inputs.keys() and all(
        bits_equal(a.inputs[name], b.inputs[name]) for name in a.inputs)


def _row(values: np.ndarray) -> str:
    return "[" + ", ".join(yaml_number(float(v)) for v in values) + "]"


def _flow_matrix(values: np.ndarray) -> str:
    return "[" + ", ".join(_row(row) for row in values) + "]"


def _option_text(value: bool | float) -> str:
    if value is True:
        return "true"
    if value is False:
        return "false"
    return yaml_number(float(value))


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'
