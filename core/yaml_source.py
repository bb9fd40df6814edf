"""Reading YAML with the position of every node, safely, and writing numbers back in place.

PyYAML's own composer forgets where an alias (``*q``) stood and recurses once per nesting
level; this one is iterative, keeps every alias as a node of its own with its position, refuses
tags other than YAML's plain data types (so nothing is ever constructed or executed), and
bounds nesting depth and node count before anything large is built.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import yaml
from yaml.resolver import Resolver

from attn_tui.core.errors import ScenarioError

MAX_DEPTH = 64
MAX_NODES = 6_000_000

_TAG = "tag:yaml.org,2002:"
_DATA_TAGS = {_TAG + name for name in ("str", "int", "float", "bool", "null", "seq", "map")}
_Parser = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@dataclass(eq=False)
class Node:
    """A YAML node: where it starts and ends in the text (character offsets, 1-based line/col)."""

    start: int
    end: int
    line: int
    col: int
    anchor: str | None


@dataclass(eq=False)
class Scalar(Node):
    value: str  # the scalar's text, quotes removed
    tag: str
    plain: bool  # written without quotes or block indicators


@dataclass(eq=False)
class Sequence(Node):
    items: list[Node] = field(default_factory=list)
    flow: bool = False


@dataclass(eq=False)
class Mapping(Node):
    items: list[tuple[Node, Node]] = field(default_factory=list)
    flow: bool = False


@dataclass(eq=False)
class Alias(Node):
    target: Node = None  # type: ignore[assignment]


@dataclass
class Document:
    """A parsed YAML text: the text itself, its root node and every alias in it."""

    text: str
    root: Node | None
    aliases: list[Alias]


def deref(node: Node) -> Node:
    """The node an alias stands for (aliases never point at aliases)."""
    return node.target if isinstance(node, Alias) else node


def parse(text: str) -> Document:
    """Compose ``text`` into nodes with positions; ``ScenarioError`` for anything not plain data."""
    resolver = Resolver()
    anchors: dict[str, Node] = {}
    aliases: list[Alias] = []
    stack: list[Node] = []
    pending_keys: list[Node | None] = []
    root: Node | None = None
    documents = 0
    count = 0

    def attach(node: Node) -> None:
        nonlocal root
        if not stack:
            root = node
            return
        parent = stack[-1]
        if isinstance(parent, Sequence):
            parent.items.append(node)
        elif pending_keys[-1] is None:
            pending_keys[-1] = node
        else:
            parent.items.append((pending_keys[-1], node))  # type: ignore[union-attr]
            pending_keys[-1] = None

    try:
        for event in yaml.parse(text, Loader=_Parser):
            if isinstance(event, yaml.DocumentStartEvent):
                documents += 1
                if documents > 1:
                    raise _error("a scenario file holds one YAML document; found a second one", event)
                continue
            if not isinstance(event, (yaml.NodeEvent, yaml.CollectionEndEvent)):
                continue
            if isinstance(event, yaml.CollectionEndEvent):
                node = stack.pop()
                pending_keys.pop()
                node.end = event.end_mark.index
                continue
            count += 1
            if count > MAX_NODES:
                raise _error(f"too large: more than {MAX_NODES:,} YAML nodes", event)
            if isinstance(event, yaml.AliasEvent):
                target = anchors.get(event.anchor)
                if target is None:
                    raise _error(f"the alias *{event.anchor} names no anchor defined before it", event)
                alias = Alias(*_place(event), anchor=None, target=target)
                aliases.append(alias)
                attach(alias)
                continue
            tag = _explicit_tag(event)
            if isinstance(event, yaml.ScalarEvent):
                if tag is None:
                    tag = resolver.resolve(yaml.ScalarNode, event.value, event.implicit)
                node = Scalar(*_place(event), anchor=event.anchor, value=event.value, tag=tag,
                              plain=not event.style)
            elif isinstance(event, yaml.SequenceStartEvent):
                node = Sequence(*_place(event), anchor=event.anchor, flow=bool(event.flow_style))
            else:
                node = Mapping(*_place(event), anchor=event.anchor, flow=bool(event.flow_style))
            if event.anchor is not None:
                anchors[event.anchor] = node
            attach(node)
            if isinstance(node, (Sequence, Mapping)):
                if len(stack) >= MAX_DEPTH:
                    raise _error(f"nested more than {MAX_DEPTH} levels deep", event)
                stack.append(node)
                pending_keys.append(None)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        problem = exc.problem or exc.context or "not valid YAML"
        context = f" ({exc.context})" if exc.context and exc.problem else ""
        line, col = (mark.line + 1, mark.column + 1) if mark else (None, None)
        raise ScenarioError(f"not valid YAML: {problem}{context}", line, col) from None
    except yaml.YAMLError as exc:  # a reader error: a character YAML does not allow
        position = getattr(exc, "position", None)
        if position is not None and _Parser is not yaml.SafeLoader:
            # libyaml counts the UTF-8 bytes it was given, not characters
            position = len(text.encode("utf-8", "surrogatepass")[:position].decode("utf-8", "ignore"))
        line, col = line_col(text, position) if position is not None else (None, None)
        raise ScenarioError(f"not valid YAML: {_reader_problem(exc)}", line, col) from None
    return Document(text, root, aliases)


def line_col(text: str, index: int) -> tuple[int, int]:
    """1-based line and column of character ``index`` in ``text``."""
    line = text.count("\n", 0, index) + 1
    return line, index - (text.rfind("\n", 0, index) + 1) + 1


def content_end(node: Node) -> int:
    """Where the node's own text ends: a block collection's end mark lies at the next key, past
    any comments in between, so it is taken from its last item instead."""
    while isinstance(node, (Sequence, Mapping)) and not node.flow:
        if not node.items:
            return node.end
        last = node.items[-1]
        node = last[1] if isinstance(last, tuple) else last
    return node.end


def replace_spans(text: str, replacements: dict[tuple[int, int], str]) -> str:
    """``text`` with each ``(start, end)`` span replaced; spans must not overlap."""
    pieces = []
    position = 0
    for (start, end), new in sorted(replacements.items()):
        if start < position:
            raise ValueError(f"overlapping replacements at offset {start}")
        pieces += [text[position:start], new]
        position = end
    pieces.append(text[position:])
    return "".join(pieces)


def _place(event: yaml.Event) -> tuple[int, int, int, int]:
    start = event.start_mark
    return start.index, event.end_mark.index, start.line + 1, start.column + 1


def _explicit_tag(event: yaml.NodeEvent) -> str | None:
    tag = getattr(event, "tag", None)
    if tag in (None, "!"):
        return None
    if tag not in _DATA_TAGS:
        shown = "!!" + tag[len(_TAG):] if tag.startswith(_TAG) else tag
        raise _error(f"the tag {shown} is not allowed: a scenario holds plain data only "
                     "(numbers, text, lists, mappings), and nothing in it is ever executed", event)
    return tag


def _error(message: str, event: yaml.Event) -> ScenarioError:
    mark = event.start_mark
    return ScenarioError(message, mark.line + 1, mark.column + 1)


def _reader_problem(exc: yaml.YAMLError) -> str:
    character = getattr(exc, "character", None)
    if isinstance(character, str):
        return f"the character {character!r} (U+{ord(character):04X}) is not allowed in YAML"
    return re.sub(r"\s+", " ", str(exc)).strip()
