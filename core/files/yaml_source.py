"""Reading YAML with the position of every node, safely, and writing numbers back in place.

PyYAML's own composer forgets where an alias (``*q``) stood and recurses once per nesting
level; this one is iterative, keeps every alias as a node of its own with its position, refuses
tags other than YAML's plain data types (so nothing is ever constructed or executed), and
bounds nesting depth and node count before anything large is built.
"""

from __future__ import annotations

import gc
import re
from dataclasses import dataclass, field

import yaml
from yaml.resolver import Resolver

from attn_tui.core.errors import ScenarioError
from attn_tui.core.limits import MAX_DEPTH, MAX_YAML_EXPANDED, MAX_YAML_NODES

_TAG = "tag:yaml.org,2002:"
_DATA_TAGS = {_TAG + name for name in ("str", "int", "float", "bool", "null", "seq", "map")}
_STR = _TAG + "str"
_Parser = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
# YAML 1.1's rules for plain scalars, by first character
_IMPLICIT = Resolver.yaml_implicit_resolvers
_CACHED_TAGS = 4096  # plain scalars such as 0, 1, 0.5 recur: their tag is looked up once


@dataclass(eq=False, slots=True)
class Node:
    """A YAML node: where it starts and ends in the text (character offsets, 1-based line/col)."""

    start: int
    end: int
    line: int
    col: int
    anchor: str | None


@dataclass(eq=False, slots=True)
class Scalar(Node):
    value: str  # the scalar's text, quotes removed
    tag: str
    plain: bool  # written without quotes or block indicators


@dataclass(eq=False, slots=True)
class Sequence(Node):
    items: list[Node] = field(default_factory=list)
    flow: bool = False
    size: int = 1  # how many nodes it stands for, counting what its aliases stand for


@dataclass(eq=False, slots=True)
class Mapping(Node):
    items: list[tuple[Node, Node]] = field(default_factory=list)
    flow: bool = False
    size: int = 1


@dataclass(eq=False, slots=True)
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
    """Compose ``text`` into nodes with positions; ``ScenarioError`` for anything not plain data.

    The limits hold while the text is read, before anything grows: at most ``MAX_YAML_NODES``
    nodes written, at most ``MAX_YAML_EXPANDED`` counting each alias as all it stands for
    (an alias bomb stops at its first few lines), and nesting at most ``MAX_DEPTH`` deep.
    An alias inside the very node it names (a cycle) is an error.
    """
    anchors: dict[str, Node] = {}
    aliases: list[Alias] = []
    stack: list[Sequence | Mapping] = []
    pending_keys: list[Node | None] = []
    tags: dict[str, str] = {}
    root: Node | None = None
    documents = 0
    written = 0
    expanded = 0

    collecting = gc.isenabled()
    gc.disable()  # a node per value and no cycles: the collector would rescan them all, often
    events = _Parser(text)
    scalar_event, alias_event = (
        yaml.ScalarEvent,
        yaml.AliasEvent,
    )  # (locals: this loop runs per value)
    sequence_start, mapping_start = yaml.SequenceStartEvent, yaml.MappingStartEvent
    collection_end = (yaml.SequenceEndEvent, yaml.MappingEndEvent)
    try:
        # get_event alone, not yaml.parse's check_event-then-get_event: half the calls per value
        while (event := events.get_event()) is not None:
            kind = type(event)
            if kind is scalar_event:
                tag = event.tag
                if tag is None or tag == "!":
                    tag = _resolve(event.value, event.implicit[0], tags)
                else:
                    _explicit_tag(event)
                start = event.start_mark
                node: Node = Scalar(
                    start.index,
                    event.end_mark.index,
                    start.line + 1,
                    start.column + 1,
                    event.anchor,
                    event.value,
                    tag,
                    not event.style,
                )
                stands_for = 1
            elif kind is alias_event:
                target = anchors.get(event.anchor)
                if target is None:
                    raise _error(
                        f"the alias *{event.anchor} names no anchor defined before it", event
                    )
                if target.end < 0:  # still open: the alias is inside what it names
                    raise _error(
                        f"the alias *{event.anchor} stands inside &{event.anchor} itself: a cycle",
                        event,
                    )
                start = event.start_mark
                node = Alias(
                    start.index,
                    event.end_mark.index,
                    start.line + 1,
                    start.column + 1,
                    None,
                    target,
                )
                aliases.append(node)
                stands_for = target.size if isinstance(target, (Sequence, Mapping)) else 1
            elif kind is sequence_start or kind is mapping_start:
                _explicit_tag(event)
                start = event.start_mark
                node = (Sequence if kind is sequence_start else Mapping)(
                    start.index,
                    -1,
                    start.line + 1,
                    start.column + 1,
                    event.anchor,
                    flow=bool(event.flow_style),
                )
                stands_for = 1  # (what it holds is added when it ends)
            elif kind in collection_end:
                node = stack.pop()
                pending_keys.pop()
                node.end = event.end_mark.index
                if stack:
                    stack[-1].size += node.size - 1
                continue
            else:
                if kind is yaml.DocumentStartEvent:
                    documents += 1
                    if documents > 1:
                        raise _error(
                            "a scenario file holds one YAML document; found a second one", event
                        )
                continue
            written += 1
            expanded += stands_for
            if written > MAX_YAML_NODES:
                raise _error(
                    f"too large: more than {MAX_YAML_NODES:,} YAML values written out "
                    "(keep big matrices in .npy files)",
                    event,
                )
            if expanded > MAX_YAML_EXPANDED:
                raise _error(
                    f"too large: more than {MAX_YAML_EXPANDED:,} YAML values, counting "
                    "what each alias stands for (keep big matrices in .npy files)",
                    event,
                )
            if kind is not alias_event and event.anchor is not None:
                anchors[event.anchor] = node
            if stack:
                parent = stack[-1]
                parent.size += stands_for
                if type(parent) is Sequence:
                    parent.items.append(node)
                elif pending_keys[-1] is None:
                    pending_keys[-1] = node
                else:
                    parent.items.append((pending_keys[-1], node))
                    pending_keys[-1] = None
            else:
                root = node
            if node.end < 0:  # a collection begins
                if len(stack) >= MAX_DEPTH:
                    raise _error(f"nested more than {MAX_DEPTH} levels deep", event)
                stack.append(node)  # type: ignore[arg-type]
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
            position = len(
                text.encode("utf-8", "surrogatepass")[:position].decode("utf-8", "ignore")
            )
        line, col = line_col(text, position) if position is not None else (None, None)
        raise ScenarioError(f"not valid YAML: {_reader_problem(exc)}", line, col) from None
    finally:
        events.dispose()
        if collecting:
            gc.enable()
    return Document(text, root, aliases)


def _resolve(value: str, plain: bool, cache: dict[str, str]) -> str:
    """The tag YAML 1.1 gives a scalar written without one (PyYAML's resolver, inlined: it is
    called once per number)."""
    if not plain:
        return _STR
    tag = cache.get(value)
    if tag is not None:
        return tag
    tag = _STR
    for candidate, pattern in _IMPLICIT.get(value[:1], ()):
        if pattern.match(value):
            tag = candidate
            break
    if len(cache) < _CACHED_TAGS and len(value) < 32:
        cache[value] = tag
    return tag


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


def _explicit_tag(event: yaml.NodeEvent) -> str | None:
    tag = getattr(event, "tag", None)
    if tag in (None, "!"):
        return None
    if tag not in _DATA_TAGS:
        shown = "!!" + tag[len(_TAG) :] if tag.startswith(_TAG) else tag
        raise _error(
            f"the tag {shown} is not allowed: a scenario holds plain data only "
            "(numbers, text, lists, mappings), and nothing in it is ever executed",
            event,
        )
    return tag


def _error(message: str, event: yaml.Event) -> ScenarioError:
    mark = event.start_mark
    return ScenarioError(message, mark.line + 1, mark.column + 1)


def _reader_problem(exc: yaml.YAMLError) -> str:
    character = getattr(exc, "character", None)
    if isinstance(character, str):
        return f"the character {character!r} (U+{ord(character):04X}) is not allowed in YAML"
    return re.sub(r"\s+", " ", str(exc)).strip()
