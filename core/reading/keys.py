"""The keys of a YAML mapping as a scenario reads them: merge keys applied, a key written
twice an error naming both lines, an unknown key an error that suggests the closest known one."""

from __future__ import annotations

import difflib
from dataclasses import dataclass

from attn_tui.core.errors import ScenarioError
from attn_tui.core.files.yaml_numbers import TAG, kind_of, located, named
from attn_tui.core.files.yaml_source import Mapping, Node, Scalar, Sequence, deref


@dataclass(frozen=True)
class Entry:
    """One key of a YAML mapping, with the nodes of the key and of its value."""

    key: Scalar
    value: Node


def entries(node: Node, what: str) -> dict[str, Entry]:
    """The keys of a YAML mapping, with merge keys (``<<: *base``) applied.

    A key written twice is an error naming both lines: PyYAML would silently keep the last.
    """
    return _entries(node, what, {}, set())


def _entries(
    node: Node, what: str, memo: dict[int, dict[str, Entry]], merging: set[int]
) -> dict[str, Entry]:
    node = deref(node)
    if id(node) in memo:
        return memo[id(node)]
    if id(node) in merging:
        raise located(node, "a merge key (<<) brings this mapping into itself: a cycle")
    if not isinstance(node, Mapping):
        raise located(node, f"{what} must be a mapping of keys to values, not {kind_of(node)}")
    own: dict[str, Entry] = {}
    written_at: dict[
        str, Node
    ] = {}  # where each key stands: an alias key (*k) stands apart from &k
    merged: dict[str, Entry] = {}
    for written, value in node.items:
        key = deref(written)
        if isinstance(key, Scalar) and key.tag == TAG + "merge":
            sources = deref(value).items if isinstance(deref(value), Sequence) else [value]
            merging.add(id(node))
            for source in sources:
                for name, entry in _entries(source, "a merged value (<<)", memo, merging).items():
                    merged.setdefault(name, entry)
            merging.discard(id(node))
            continue
        if not isinstance(key, Scalar):
            raise located(key, f"a key in {what} must be a plain name, not {kind_of(key)}")
        if key.value in own:
            first = written_at[key.value]
            raise located(
                written,
                f"{named(key.value)} appears twice in {what}: first on line "
                f"{first.line}, again on line {written.line}; keep one",
            )
        own[key.value] = Entry(key, value)
        written_at[key.value] = written
    memo[id(node)] = result = {**merged, **own}
    return result


MAX_REPORTED = 20  # unknown keys an error lists one by one; the rest are counted


@dataclass(frozen=True)
class Unknown:
    """An unknown key, with what its message needs (worked out only for the keys reported)."""

    name: str
    entry: Entry
    known: tuple[str, ...]
    what: str

    def error(self) -> ScenarioError:
        return located(
            self.entry.key,
            f"unknown key {named(self.name)} in {self.what}{_suggest(self.name, self.known)}",
        )


def check_keys(found: dict[str, Entry], known: tuple[str, ...], what: str) -> None:
    """An unknown key is an error that suggests the closest known one; every unknown key of
    the mapping is reported, each at its line."""
    problems = unknown_keys(found, known, what)
    if problems:
        raise unknown_key_error(problems)


def unknown_keys(found: dict[str, Entry], known: tuple[str, ...], what: str) -> list[Unknown]:
    """Each key of ``found`` not in ``known``, in the order they are written."""
    return [
        Unknown(name, entry, known, what)
        for name, entry in sorted(
            found.items(), key=lambda item: (item[1].key.line, item[1].key.col)
        )
        if name not in known
    ]


def unknown_key_error(problems: list[Unknown]) -> ScenarioError:
    """One error for unknown keys: the first ``MAX_REPORTED``, each at its line, then how many
    more there are from the next one's line on (a file of 240,000 made-up keys gets 21 lines,
    not 80 MB of messages worked out over half a minute)."""
    shown = [problem.error() for problem in problems[:MAX_REPORTED]]
    if len(problems) > MAX_REPORTED:
        more = len(problems) - MAX_REPORTED
        shown.append(
            located(
                problems[MAX_REPORTED].entry.key,
                f"… and {more:,} more unknown key{'s' if more > 1 else ''} from here on",
            )
        )
    return ScenarioError(shown[0].message, shown[0].line, shown[0].col, also=tuple(shown[1:]))


def _suggest(name: str, known: tuple[str, ...]) -> str:
    by_case = [key for key in known if key.lower() == name.lower()]
    close = by_case or difflib.get_close_matches(name, known, n=1, cutoff=0.6)
    if close:
        return f"; did you mean {close[0]!r}?"
    return f" (known keys: {', '.join(known)})"
