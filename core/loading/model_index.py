"""A model index: the list of one captured scenario per layer that ``attn-tui capture --layer
all`` writes beside them, read as carefully as a scenario (bounded, never constructed, every
error naming FILE:LINE:COL). Pure standard library: reading an index needs no NumPy.

The format (YAML)::

    model_index: 1                  # what this file is, and the format's version
    title: "gpt2 · all 12 layers · The cat sat on the mat"
    description: "…"                # optional
    layers:                         # one entry per layer, in order
      - {layer: 0, scenario: "gpt2_layers_l0.yaml", heads: 12}
      - {layer: 1, scenario: "gpt2_layers_l1.yaml", heads: 12}

``heads`` is optional: the model view lays out its grid from it without reading every layer's
file first (the file, when read, has the last word). So is ``kind``, what sort of attention the
layer is (capture writes it; the model view and ``attn-tui heads`` show it)::

      - {layer: 0, scenario: "l0.yaml", kind: {attention: sliding, window: 512, position: rope,
         rope_base: 10000}}

``attention`` is ``full``, ``sliding`` (with its ``window``) or ``chunked`` (with its
``chunk``); ``position`` how position reaches the layer: ``rope`` (with ``rope_base`` when the
rotation is plain RoPE), ``nope`` (none: a NoPE layer), ``learned`` or ``sinusoidal``
(embeddings added before layer 0), ``alibi`` or ``relative`` (a bias on the scores).

A scenario is named by its file name alone, in the index's own folder: no folder part, no
``..``, so an index someone sent can never make the app read a file elsewhere.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from attn_tui.core.errors import ScenarioError
from attn_tui.core.files.yaml_numbers import (
    kind_of,
    located,
    named,
    number,
    scalar_text,
    whole_number,
)
from attn_tui.core.files.yaml_source import Document, Mapping, Sequence, deref, parse
from attn_tui.core.limits import MAX_DESCRIPTION_LENGTH, MAX_HEADS
from attn_tui.core.reading.keys import check_keys, entries
from attn_tui.core.reading.text import read_text

VERSION = 1
MAX_LAYERS = 1024
KEYS = ("model_index", "title", "description", "layers")
LAYER_KEYS = ("layer", "scenario", "heads", "kind")
KIND_KEYS = ("attention", "window", "chunk", "position", "rope_base")
ATTENTION_KINDS = ("full", "sliding", "chunked")
POSITIONS = {  # as a layer's kind says it, and as the model view and heads show it
    "rope": "RoPE",
    "nope": "NoPE",
    "learned": "learned positions",
    "sinusoidal": "sinusoidal positions",
    "alibi": "ALiBi",
    "relative": "relative bias",
}
REQUIRED_LAYER_KEYS = ("layer", "scenario")


@dataclass(frozen=True)
class LayerKind:
    """What sort of attention a layer is (see the module's docstring)."""

    attention: str  # "full", "sliding" or "chunked"
    span: int | None = None  # the sliding window's or the chunk's size, in tokens
    position: str | None = None  # a key of POSITIONS
    rope_base: float | None = None

    def lines(self) -> tuple[str, ...]:
        """The kind in short lines, as the model view shows it: ("sliding 512", "RoPE 10000")."""
        attention = self.attention if self.span is None else f"{self.attention} {self.span}"
        if self.position is None:
            return (attention,)
        position = POSITIONS[self.position]
        if self.rope_base is not None:
            position += f" {self.rope_base:g}"
        return attention, position

    def describe(self) -> str:
        return " · ".join(self.lines())

    def as_json(self) -> dict:
        found = {"attention": self.attention}
        if self.span is not None:
            found["chunk" if self.attention == "chunked" else "window"] = self.span
        if self.position is not None:
            found["position"] = self.position
        if self.rope_base is not None:
            found["rope_base"] = self.rope_base
        return found


@dataclass(frozen=True)
class IndexedLayer:
    layer: int  # counted from 0, as Hugging Face counts
    name: str  # the scenario's file name, as the index gives it
    path: str  # that file, in the index's folder
    heads: int | None = None  # as the index says (None: not said)
    where: tuple[str, int, int] = ("<index>", 1, 1)  # the index's file, line and column naming it
    kind: LayerKind | None = None  # as the index says (None: not said)


@dataclass(frozen=True)
class ModelIndex:
    path: str
    title: str
    description: str
    layers: tuple[IndexedLayer, ...]


def index_or_none(path: str) -> ModelIndex | None:
    """The index at ``path``, or None when the file is not one (a scenario). What a file is comes
    from its parsed top-level keys (an index has ``model_index:``), never from its text: a quoted
    title that wraps onto a line starting ``model_index:`` is still a scenario. A file that is an
    index but is broken is a ScenarioError, as a broken scenario is."""
    text = read_text(path)
    if "model_index" not in text:  # (the common case, a scenario, is parsed once, by its reader)
        return None
    try:
        document = parse(text)
        root = deref(document.root)
        is_index = isinstance(root, Mapping) and "model_index" in entries(root, "the file")
    except ScenarioError:
        return None  # not YAML a reader accepts: the scenario reader says where, as for any file
    return loads_index(text, path, document) if is_index else None


def read_index(path: str) -> ModelIndex:
    return loads_index(read_text(path), path)


def loads_index(text: str, path: str = "<index>", document: Document | None = None) -> ModelIndex:
    try:
        return _read(document or parse(text), path)
    except ScenarioError as error:
        raise error.located(path) from None


def _read(document: Document, path: str) -> ModelIndex:
    if document.root is None:
        raise ScenarioError("the index is empty", 1, 1, path)
    top = entries(document.root, "the index")
    check_keys(top, KEYS, "the index")
    for required in ("model_index", "layers"):
        if required not in top:
            raise located(
                document.root,
                f"an index needs {required}: (it lists one scenario "
                "per layer, as attn-tui capture --layer all writes it)",
            )
    version = whole_number(top["model_index"].value, "model_index", 1, 10**6)
    if version != VERSION:
        raise located(
            top["model_index"].value,
            f"model_index {version}: this attn-tui reads version {VERSION}",
        )
    title = scalar_text(top["title"].value, "title") if "title" in top else _default_title(path)
    description = (
        scalar_text(top["description"].value, "description", MAX_DESCRIPTION_LENGTH)
        if "description" in top
        else ""
    )
    listed = deref(top["layers"].value)
    if not isinstance(listed, Sequence) or not listed.items:
        raise located(
            listed,
            f"layers must be a list of {{layer: N, scenario: FILE.yaml}}, not {kind_of(listed)}",
        )
    if len(listed.items) > MAX_LAYERS:
        raise located(listed, f"too many layers: {len(listed.items):,}, at most {MAX_LAYERS:,}")
    folder = os.path.dirname(path)
    layers, seen = [], {}
    for item in listed.items:
        found = entries(item, "a layer of the index")
        check_keys(found, LAYER_KEYS, "a layer of the index")
        for required in REQUIRED_LAYER_KEYS:
            if required not in found:
                raise located(
                    deref(item),
                    f"a layer needs {required}: ({{layer: 0, scenario: model_l0.yaml}}}})",
                )
        number = whole_number(found["layer"].value, "layer", 0, 10**6)
        if number in seen:
            raise located(
                found["layer"].value,
                f"layer {number} is listed twice (first on line {seen[number]})",
            )
        seen[number] = found["layer"].value.line
        name = scalar_text(found["scenario"].value, "scenario")
        _check_name(name, found["scenario"].value)
        heads = (
            whole_number(found["heads"].value, "heads", 1, MAX_HEADS) if "heads" in found else None
        )
        node = deref(found["scenario"].value)
        kind = _kind(found["kind"]) if "kind" in found else None
        layers.append(
            IndexedLayer(
                number, name, os.path.join(folder, name), heads, (path, node.line, node.col), kind
            )
        )
    return ModelIndex(path, title, description, tuple(layers))


def check_layer(entry: IndexedLayer):
    """The layer's scenario checked (``scenario_file.check``). A file that cannot be read at all
    is placed first where the index names it (``INDEX:LINE:COL: layer 3: small.yml: no such
    file``); an error inside the file keeps that file's own line and column, where the fix is."""
    from attn_tui.core.loading.scenario_file import check

    return placed(check, entry)


def load_layer(entry: IndexedLayer):
    """The layer's scenario loaded; an error placed as :func:`check_layer` places it."""
    from attn_tui.core.loading.scenario_file import load

    return placed(load, entry)


def placed(read, entry: IndexedLayer):
    try:
        return read(entry.path)
    except ScenarioError as error:
        if error.line is not None:
            raise
        path, line, col = entry.where
        first = ScenarioError(error.message, error.line, error.col, error.path or entry.path)
        raise ScenarioError(f"layer {entry.layer}: {first}", line, col, path, error.also) from None


def _kind(entry) -> LayerKind:
    found = entries(entry.value, "a layer's kind")
    check_keys(found, KIND_KEYS, "a layer's kind")
    if "attention" not in found:
        raise located(entry.key, "kind needs attention: (full, sliding or chunked)")
    attention = _one_of(found["attention"].value, "attention", ATTENTION_KINDS)
    needs = {"sliding": "window", "chunked": "chunk"}.get(attention)
    for key, kind in (("window", "sliding"), ("chunk", "chunked")):
        if key in found and key != needs:
            raise located(found[key].key, f"{key}: goes with attention: {kind}, not {attention}")
    if needs is not None and needs not in found:
        raise located(found["attention"].value, f"attention: {attention} needs its {needs}:")
    span = None if needs is None else whole_number(found[needs].value, needs, 1, 10**9)
    position = (
        _one_of(found["position"].value, "position", tuple(POSITIONS))
        if "position" in found
        else None
    )
    rope_base = None
    if "rope_base" in found:
        if position != "rope":
            raise located(found["rope_base"].key, "rope_base: goes with position: rope")
        rope_base = number(found["rope_base"].value, "rope_base")
        if not rope_base > 0:
            raise located(
                found["rope_base"].value, f"rope_base must be positive, not {rope_base:g}"
            )
    return LayerKind(attention, span, position, rope_base)


def _one_of(node, what: str, choices: tuple[str, ...]) -> str:
    text = scalar_text(node, what)
    if text not in choices:
        raise located(node, f"{what} must be one of {', '.join(choices)}, not {named(text)}")
    return text


def _check_name(name: str, node) -> None:
    if "/" in name or "\\" in name or "\0" in name or name in (".", ".."):
        raise located(
            node,
            f"scenario {named(name)}: a file name alone, in the index's folder (no folder part)",
        )
    if not name.endswith((".yaml", ".yml")) or name.startswith("."):
        raise located(node, f"scenario {named(name)}: give a scenario's file name, ending in .yaml")


def _default_title(path: str) -> str:
    return os.path.splitext(os.path.basename(path))[0] or "model index"


def work(index: ModelIndex) -> float:
    """What reading and scoring every layer costs, in MAX_WORK's units (half-nanoseconds): see
    ``core.loading.work_estimate``, where the constants are."""
    from attn_tui.core.loading.work_estimate import RATE, index_estimate

    return index_estimate(index, limit=None).seconds * RATE


def check_work(index: ModelIndex):
    """``ScenarioError`` at the index when its layers would take more than about 20 s to read
    and score (refused at once: see ``core.loading.work_estimate``); else the estimate."""
    from attn_tui.core.loading.work_estimate import check_index_work

    return check_index_work(index)


def _digits(text: str) -> bool:
    """Whether ``text`` is a layer number: ASCII digits only (``isdigit`` also takes "٣")."""
    text = text.strip()
    return text.isascii() and text.isdigit()


def selected(index: ModelIndex, wanted: str) -> ModelIndex:
    """The index with only the layers ``wanted`` names (``--layers 0-16``, ``0-3,8``: layer
    numbers as the index gives them, ranges inclusive), in the index's order; ``ValueError``
    says what is wrong with ``wanted``."""
    spans: list[tuple[int, int]] = []
    for part in wanted.split(","):
        first, dash, last = part.strip().partition("-")
        if not _digits(first) or (dash and not _digits(last)):
            raise ValueError(
                f"--layers {wanted!r}: give layer numbers and ranges, as 0-16 or 0-3,8"
            )
        low, high = int(first), int(last) if dash else int(first)
        if high < low:
            raise ValueError(f"--layers {wanted!r}: {low}-{high} runs backwards")
        spans.append((low, high))
    kept = tuple(
        entry for entry in index.layers if any(low <= entry.layer <= high for low, high in spans)
    )
    if not kept:
        listed = ", ".join(str(entry.layer) for entry in index.layers[:8])
        raise ValueError(
            f"--layers {wanted!r}: the index has none of those layers (it has "
            f"{listed}{', …' if len(index.layers) > 8 else ''})"
        )
    return ModelIndex(index.path, index.title, index.description, kept)


def listed_layers(
    index: ModelIndex, cancelled=lambda: False
) -> list[tuple[int, int, str | None]] | None:
    """Each layer's (number, heads, problem): its heads as the index says them, else as its
    file's inputs say (its YAML parsed, each file once however many layers name it, its arrays'
    headers read, never the arrays); a file that cannot be read has 0 heads and says why. The
    model view calls it off the key path (a 3 MB YAML file takes ~1.5 s): None once
    ``cancelled()``."""
    from attn_tui.core.loading.scenario_file import layout_of, read_document

    listed: list[tuple[int, int, str | None]] = []
    heads_of: dict[str, tuple[int, str | None]] = {}
    for entry in index.layers:
        if cancelled():
            return None
        if entry.heads is not None:  # (reading every file first took ~0.1 s a layer)
            listed.append((entry.layer, entry.heads, None))
            continue
        if entry.path not in heads_of:
            try:
                heads_of[entry.path] = (
                    layout_of(placed(read_document, entry), entry.path)["heads"],
                    None,
                )
            except ScenarioError as error:
                heads_of[entry.path] = (0, str(error))
        listed.append((entry.layer, *heads_of[entry.path]))
    return listed


def to_json(index: ModelIndex) -> dict:
    """What ``attn-tui --json INDEX`` prints: the index and, for each layer, its scenario's
    heads and tokens as checked (without NumPy); a layer whose file is broken says why."""
    layers = []
    for entry in index.layers:
        listed = {"layer": entry.layer, "scenario": entry.name}
        if entry.kind is not None:
            listed["kind"] = entry.kind.as_json()
        try:
            checked = check_layer(entry)
        except ScenarioError as error:
            listed["error"] = str(error)
        else:
            listed.update(
                title=checked.title,
                heads=checked.heads,
                T=checked.T,
                d_k=checked.d_k,
                d_v=checked.d_v,
            )
            if checked.query_tokens is not None:
                listed["T_k"] = len(checked.tokens)
        layers.append(listed)
    return {
        "model_index": VERSION,
        "file": index.path,
        "title": index.title,
        "description": index.description,
        "layers": layers,
    }
