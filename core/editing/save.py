"""Saving a scenario back into its author's YAML, keeping every comment and the layout.

Only the numbers that changed are rewritten, each at its own position in the original text.
Where an alias (``K: *qk``) would otherwise change along with an edited anchor, the alias is
replaced by the numbers it stood for. A scenario made by ``random:`` gets its numbers written
out. The result is read back and compared with what should have been saved before anything
is written; writing itself is atomic (a temporary file, then a rename).

Where the author's layout cannot take an edit (a scalar anchor shared with a variant, a tagged
number, …), :func:`render` writes the whole scenario afresh: every number, no comments. Save As
does that by itself; Save asks first (:class:`NeedsRewrite`).

An edited matrix from a data file goes to ``<scenario>.<name>.npy`` beside the scenario, or
``…-2.npy`` and on when a file of that name exists that attn-tui did not write for this
scenario: a file is only ever replaced if a record in the state folder says attn-tui wrote it,
for this scenario, with exactly its present content.
"""

from __future__ import annotations

import os

import numpy as np

from attn_tui.core.editing import option_marks
from attn_tui.core.files.atomic_write import write_atomic
from attn_tui.core.editing.data_files import data_file, remember
from attn_tui.core.errors import NeedsRewrite, SaveError, ScenarioError  # noqa: F401 (NeedsRewrite: read from here too)
from attn_tui.core.files.yaml_text import yaml_number
from attn_tui.core.files.numpy_files import npy_bytes
from attn_tui.core.editing.save_root import SaveRoot
from attn_tui.core.model.scenario import Scenario, bits_equal
from attn_tui.core.loading.scenario_file import Entry, entries, loads
from attn_tui.core.editing.render import SavePlan, expected_flow, flow, inputs_equal, option_text, render, row_yaml
from attn_tui.core.files.yaml_text import yaml_quoted
from attn_tui.core.files.yaml_matrices import depth
from attn_tui.core.files.yaml_source import (Alias, Document, Mapping, Node, Scalar, Sequence, content_end, deref, parse,
                                      replace_spans)


def plan(scenario: Scenario, target: str | None = None) -> SavePlan:
    """The original text with the current numbers and options written in, for ``target``
    (default: the scenario's own file). No file is touched.

    A matrix that came from a .npy or .npz file and was edited goes to a new file beside the
    target (:func:`data_file`; the student's data file is never overwritten), and the text
    points to it. Saved elsewhere, relative paths to data files are rewritten.
    ``NeedsRewrite`` when the text cannot take the edits in place.
    """
    document = scenario.source
    if document is None or scenario.path is None:
        raise NeedsRewrite("this scenario has no file text to update; it can be written as a new file")
    target = target or scenario.path
    original = loads(document.text, scenario.path)
    top = entries(document.root, "the scenario")
    edits = _Edits(document, scenario.path)
    arrays: dict[str, np.ndarray] = {}
    target_dir = os.path.dirname(os.path.abspath(target))
    if scenario.random is not None and not inputs_equal(scenario, original):
        _write_out_random(edits, scenario, top["random"])
    else:
        for name, current in scenario.inputs.items():
            if bits_equal(current, original.inputs[name]):
                continue
            if name in scenario.files:
                path = data_file(target, name)
                arrays[path] = current
                edits.file_reference(top, name, os.path.relpath(path, target_dir))
            else:
                edits.array(input_node(top, name), current, original.inputs[name])
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
    for name in sorted(set(scenario.stage_settings) | set(original.stage_settings)):
        edits.stage_setting(top, name, scenario.stage_settings.get(name), original.stage_settings.get(name))
    try:
        return SavePlan(edits.result(), arrays)
    except ValueError:  # two edits overlap in the text: the layout cannot hold them both
        raise NeedsRewrite(_LAYOUT) from None


def save(scenario: Scenario, target: str | None = None, rewrite: bool = False,
         save_root: SaveRoot | None = None) -> str:
    """Write the scenario (and any edited data matrices) to ``target``; returns the text written.

    New .npy files are written first, then the text is read back and compared with the
    scenario, and only then does it replace the old file, atomically. If the author's text
    cannot take the edits, ``NeedsRewrite`` — or, with ``rewrite``, a whole new file
    (:func:`render`) with every number and no comments. With ``save_root``, every file to be
    written must pass its rule first (``OutsideSaveRoot`` otherwise, and nothing is written).
    """
    target = target or scenario.path
    try:
        return _write(plan(scenario, target), scenario, target, True, save_root)
    except NeedsRewrite:
        if not rewrite:
            raise
    return _write(render(scenario, target), scenario, target, False, save_root)


def _write(saving: SavePlan, scenario: Scenario, target: str, in_place: bool,
           save_root: SaveRoot | None) -> str:
    if save_root is not None:
        for path in (*saving.arrays, target):
            save_root.resolve(path)
    try:
        for path, values in saving.arrays.items():
            data = npy_bytes(values)
            write_atomic(path, data)
            remember(path, data, target)
        verify(saving.text, scenario, target, in_place)
        write_atomic(target, saving.text)
    except OSError as exc:
        where = exc.filename or target
        raise SaveError(f"cannot write {where}: {exc.strerror or exc}; your edits are kept, "
                        "save elsewhere with Save As") from None
    finally:
        if save_root is not None:  # even half a save wrote its .npy files: they are ours now
            for path in (*saving.arrays, target):
                if os.path.exists(path):
                    save_root.written(path)
    return saving.text


def updated_text(scenario: Scenario) -> str:
    """The scenario's own file text, updated and checked (for scenarios without data files)."""
    saving = plan(scenario)
    if saving.arrays:
        raise SaveError("edited matrices from .npy files are written by save(), not here")
    verify(saving.text, scenario, scenario.path)
    return saving.text


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
                self.spans[(alias.start, alias.end)] = self.text[_value_start(self.text, target):end]
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
        stages = [f"{stage}: {expected_flow(expected.values, expected.given)}"
                  for stage, expected in expect.items()]
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

        written = [key for key in stage_named(name).scenario_keys if key in top]
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
        new = {k.value: v for k, v in given.items if isinstance(k, Scalar) and isinstance(v, Scalar)}
        if len(written) != len(node.items) or written.keys() != new.keys() or len(new) != len(given.items) \
                or any(isinstance(v, Alias) or not isinstance(v, Scalar) for v in written.values()):
            return False
        for name, old in written.items():
            if deref(old).value != new[name].value:
                self.replace(old, value[new[name].start:content_end(new[name])])
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
        (``core.option_marks``), unless it speaks of the new value itself (``false: no
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
    raise NeedsRewrite(_LAYOUT)  # (a matrix written into the author's text: the file is written whole)


def _write_out_random(edits: _Edits, scenario: Scenario, entry: Entry) -> None:
    spec = scenario.random
    indent = " " * (entry.key.col - 1)
    lines = [f"# was random: {{seed: {spec.seed}, T: {spec.T}, d_k: {spec.d_k}, d_v: {spec.d_v}}}"
             "; the numbers, as edited, are written out below"]
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


_LAYOUT = ("this file's layout (anchors shared with other keys, tags, …) cannot take the edit in "
           "place; nothing was written. Saving it rewritten keeps every number but not its comments "
           "and layout")


def verify(text: str, scenario: Scenario, path: str | None = None, in_place: bool = True) -> None:
    """Unless ``text`` (saved at ``path``) loads back to exactly ``scenario``: ``NeedsRewrite``
    for the author's text with edits written in, ``SaveError`` for a rewritten file."""
    failed = NeedsRewrite if in_place else SaveError
    try:
        saved = loads(text, path or scenario.path or "<saved>")
    except ScenarioError as error:
        if in_place:
            raise NeedsRewrite(f"{_LAYOUT} (with the edit in place it would not load: "
                               f"{error.message})") from None
        raise SaveError(f"the file would not load ({error.message}); nothing was written") from None
    if not (saved.same_numbers(scenario) and _same_layout(saved, scenario)):
        raise failed(_LAYOUT if in_place else "the file would not give back every number; nothing "
                                              "was written")


def _same_layout(a: Scenario, b: Scenario) -> bool:
    """Same tokens, heads, masks (what is not a number but changes every number) and lesson."""
    fields = ("tokens", "query_tokens", "heads", "kv_heads", "head_names", "window", "padding", "rope",
              "stage_settings", "heads_written", "lesson")
    return all(getattr(a, name) == getattr(b, name) for name in fields) and (
        (a.mask is None and b.mask is None) or (a.mask is not None and b.mask is not None
                                                and np.array_equal(a.mask, b.mask)))


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


