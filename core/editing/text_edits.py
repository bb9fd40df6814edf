"""The edits a save writes into the author's own YAML text: each changed number at its own
place, an alias kept or written out, a data file's reference, an option, a stage's setting,
``expect:``; every comment and the layout stay. ``core.editing.save`` decides what to edit."""

from __future__ import annotations

import os

import numpy as np

from attn_tui.core.editing import option_marks
from attn_tui.core.editing.read_back import LAYOUT as _LAYOUT
from attn_tui.core.editing.render import expected_flow, flow, option_text, row_yaml
from attn_tui.core.errors import NeedsRewrite
from attn_tui.core.files.yaml_matrices import depth
from attn_tui.core.files.yaml_source import (
    Alias,
    Document,
    Mapping,
    Node,
    Scalar,
    Sequence,
    content_end,
    deref,
    parse,
    replace_spans,
)
from attn_tui.core.files.yaml_text import yaml_number, yaml_quoted
from attn_tui.core.loading.scenario_file import Entry, entries
from attn_tui.core.model.scenario import Scenario, bits_equal


class TextEdits:
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

    def array(self, node: Node | list[Node], current: np.ndarray, old: np.ndarray) -> None:
        """Write the cells of ``current`` that differ from ``old`` into the text of ``node``: a
        matrix, one matrix per head (or a list of the heads' nodes), or a vector (a bias)."""
        if isinstance(node, list) or current.ndim == 3:
            heads = node if isinstance(node, list) else deref(node).items
            if isinstance(node, Alias):
                self.replace(node, flow(current))
                return
            for h, head in enumerate(heads):
                if not bits_equal(current[h], old[h]):
                    self.array(head, current[h], old[h])
            return
        if isinstance(node, Alias):
            self.replace(node, flow(current if depth(node) > 1 else current.reshape(-1)))
            return
        if depth(node) == 1:  # a vector written flat, kept as one row
            self.matrix(_Rows([node]), current.reshape(1, -1), old.reshape(1, -1))
            return
        self.matrix(node, current, old)

    def matrix(self, node: Node, current: np.ndarray, old: np.ndarray) -> None:
        if isinstance(node, Alias):
            self.replace(node, flow(current))
            return
        for i, row in enumerate(node.items):
            changed = np.flatnonzero(current[i].view(np.int64) != old[i].view(np.int64))
            if not len(changed):
                continue
            if isinstance(row, Alias):
                self.replace(row, row_yaml(current[i]))
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
                self.spans[(alias.start, alias.end)] = self.text[
                    _value_start(self.text, target) : end
                ]
            else:
                self.spans[(alias.start, alias.end)] = value

    def file_reference(self, top: dict[str, Entry], name: str, relative: str) -> None:
        """Point matrix ``name`` at a .npy file: in its ``{npy: …}`` or as a new key."""
        node = deref(top[name].value) if name in top else None
        if isinstance(node, Mapping):
            self.replace(entries(node, name)["npy"].value, yaml_quoted(relative))
        else:  # it came from the npz: an explicit key overrides the npz's array
            self.appended.append(f"{name}: {{npy: {yaml_quoted(relative)}}}")

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
            self.replace(node, yaml_quoted(moved))

    def expect(self, top: dict[str, Entry], expect: dict) -> None:
        """Write the student's values as ``expect: {stage: rows}`` (a cell left out is ~; a
        stage of every head as one matrix per head)."""
        stages = [
            f"{stage}: {expected_flow(expected.values, expected.given)}"
            for stage, expected in expect.items()
        ]
        text = "{" + ", ".join(stages) + "}"
        if "expect" in top:
            self.replace(top["expect"].value, text)
        else:
            self.appended.append(f"expect: {text}")

    def stage_setting(self, top: dict[str, Entry], name: str, new, old) -> None:
        """A stage's setting turned on, changed or off in the app (tiles, decoding): its key
        written, replaced or taken out; a setting that holds a matrix is written whole."""
        if new == old:
            return
        from attn_tui.core.engine.stages import stage_named

        written = [key for key in stage_named(name).turned_on.keys if key in top]
        if new is not None:
            text = new.yaml(_no_matrix).rstrip("\n")
            key, _, value = text.partition(": ")
            if "\n" in text or not value:
                raise NeedsRewrite(_LAYOUT)
            if key in top:
                if not self._each_value(top[key].value, value):
                    self.replace(top[key].value, value)
            else:
                self.appended.append(text)
            written = [other for other in written if other != key]
        for key in written:  # the stage's other keys (or all of them, turned off) go
            self.remove(top[key])

    def _each_value(self, node: Node, value: str) -> bool:
        """A block mapping given a flow mapping of the same keys (``tiles:`` written a key a
        line): each of its values replaced in place, so that every line keeps its comment."""
        if isinstance(node, Alias) or not isinstance(node, Mapping) or node.flow:
            return False
        given = parse(value).root
        if not isinstance(given, Mapping):
            return False
        written = {deref(k).value: v for k, v in node.items if isinstance(deref(k), Scalar)}
        new = {
            k.value: v for k, v in given.items if isinstance(k, Scalar) and isinstance(v, Scalar)
        }
        if (
            len(written) != len(node.items)
            or written.keys() != new.keys()
            or len(new) != len(given.items)
            or any(isinstance(v, Alias) or not isinstance(v, Scalar) for v in written.values())
        ):
            return False
        for name, old in written.items():
            if deref(old).value != new[name].value:
                self.replace(old, value[new[name].start : content_end(new[name])])
        return True

    def remove(self, entry: Entry) -> None:
        """Take a top-level key and its value out, with the rest of its line."""
        root = self.document.root
        if isinstance(root, Mapping) and root.flow or entry.key.col != 1:
            raise NeedsRewrite(_LAYOUT)
        end = self.text.find("\n", content_end(entry.value))
        self.spans[(entry.key.start, len(self.text) if end < 0 else end + 1)] = ""

    def option(self, top: dict[str, Entry], name: str, value: bool | float) -> None:
        if name not in top:
            self.appended.append(f"{name}: {option_text(value)}")
            return
        node = top[name].value
        self.replace(node, option_text(value))
        self.mark_comment(node, name, option_text(value))

    def mark_comment(self, node: Node, name: str, new: str) -> None:
        """A comment after an option that has changed may no longer hold (``causal: false  # a
        token may not look ahead``): it is marked as said of the old value, ``# if true: …``
        (``core.editing.option_marks``), unless it speaks of the new value itself (``false: no
        scaling``). Changed back, the mark goes."""
        found = option_marks.comment_after(self.text, node)
        if found is None:
            return  # no comment of its own on this line (or the value is inside a flow collection)
        start, line_end, comment = found
        mark = option_marks.marked(comment, name)
        was, said = mark if mark else (deref(node).value, comment)
        if was == new:
            updated = said
        elif f"{new}:" in said or f"{new} (" in said:
            return
        else:
            updated = option_marks.mark(was, said)
        self.spans[(start, line_end)] = f"# {updated}"

    @property
    def newline(self) -> str:
        """How the file ends its lines, for the lines saving writes."""
        return "\r\n" if "\r\n" in self.text else "\n"

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
                    text += self.newline
                text += self.newline.join(self.appended) + self.newline
        return text


def _no_matrix(name: str, values, source=None) -> str:
    raise NeedsRewrite(
        _LAYOUT
    )  # (a matrix written into the author's text: the file is written whole)


def write_out_random(edits: TextEdits, scenario: Scenario, entry: Entry) -> None:
    spec = scenario.random
    indent = " " * (entry.key.col - 1)
    lines = [
        f"# was random: {{seed: {spec.seed}, T: {spec.T}, d_k: {spec.d_k}, d_v: {spec.d_v}}}"
        "; the numbers, as edited, are written out below"
    ]
    for name in ("Q", "K", "V"):
        lines.append(f"{indent}{name}:")
        lines += [f"{indent}  - {row_yaml(row)}" for row in scenario.inputs[name]]
    edits.spans[(entry.key.start, content_end(entry.value))] = edits.newline.join(lines)


def _alias_places(scenario: Scenario, top: dict[str, Entry]) -> dict[int, str]:
    """For every alias inside an input matrix, the text of the values now at its place."""
    places: dict[int, str] = {}

    def walk(node: Node, values: np.ndarray) -> None:
        if isinstance(node, Alias):
            places[id(node)] = flow(values) if values.ndim else yaml_number(float(values))
            return
        if values.ndim == 0:
            return
        for item, inner in zip(deref(node).items, values):
            walk(item, inner)

    for name, values in scenario.inputs.items():
        if name in scenario.files:
            continue
        node = input_node(top, name)
        if isinstance(node, list):  # heads written one by one
            for head, inner in zip(node, values):
                walk(head, inner)
        elif node is not None:
            walk(node, values.reshape(-1) if depth(node) == 1 else values)
    return places


def input_node(top: dict[str, Entry], name: str) -> Node | list[Node] | None:
    """Where input ``name`` is written: its key's value, or (``heads:`` as a list) each head's."""
    if name in top:
        return top[name].value
    heads = deref(top["heads"].value) if "heads" in top else None
    if isinstance(heads, Sequence) and name in ("Q", "K", "V"):
        return [entries(item, "a head")[name].value for item in heads.items]
    return None


class _Rows:
    """A vector's node seen as the one row of a matrix (a bias is kept as 1 × d_out)."""

    def __init__(self, items: list[Node]) -> None:
        self.items = items


def _value_start(text: str, node: Node) -> int:
    """Where a node's value begins, after its anchor (``&q``) and tag, which stay."""
    position = node.start
    while position < len(text) and text[position] in "&!":
        while position < len(text) and not text[position].isspace():
            position += 1
        while position < len(text) and text[position] in " \t":
            position += 1
    return position
