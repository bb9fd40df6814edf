"""What names a scenario's rows and how it is shown: ``tokens:`` (and ``query_tokens:``), the
``focus:`` row, ``precision:``, and the title a file without one gets."""

from __future__ import annotations

import difflib
import os

from attn_tui.core.files.yaml_numbers import (
    TAG,
    located,
    named,
    scalar_text,
    some_of,
    token_text,
    whole_number,
)
from attn_tui.core.files.yaml_source import Scalar, Sequence, deref
from attn_tui.core.limits import MAX_T, MAX_TOKEN_LENGTH
from attn_tui.core.reading.keys import Entry

MAX_PRECISION = 12


def tokens(entry: Entry | None, T: int, first: str, key: str) -> tuple[str, ...]:
    if entry is None:
        return tuple(f"t{i}" for i in range(1, T + 1))
    node = deref(entry.value)
    if isinstance(node, Scalar) and node.tag == TAG + "str":
        tokens = tuple(node.value.split(maxsplit=MAX_T))  # (a few more than T say enough)
        if len(tokens) > MAX_T:
            raise located(node, f"more than {MAX_T:,} tokens")
        for position, token in enumerate(tokens, 1):
            if len(token) > MAX_TOKEN_LENGTH:
                raise located(
                    node,
                    f"token {position} is {len(token):,} characters long; at most "
                    f"{MAX_TOKEN_LENGTH:,}",
                )
    elif isinstance(node, Sequence):
        if len(node.items) > MAX_T:
            raise located(node, f"{len(node.items):,} tokens; at most {MAX_T:,}")
        tokens = tuple(token_text(item, i) for i, item in enumerate(node.items, 1))
    else:
        raise located(node, f'{key} must be a list like [the, cat, sat] or a string "the cat sat"')
    if len(tokens) != T:
        raise located(
            node, f"{key} has {len(tokens)} entries but {first} has {T} rows: one token per row"
        )
    return tokens


def focus(entry: Entry | None, tokens: tuple[str, ...], what: str = "tokens") -> int:
    if entry is None:
        return len(tokens) - 1
    node = deref(entry.value)
    if isinstance(node, Scalar) and node.tag == TAG + "int":
        return whole_number(node, "focus", 1, len(tokens)) - 1
    name = scalar_text(node, "focus")
    matches = [i for i, token in enumerate(tokens) if token == name]
    if len(matches) > 1:
        rows = ", ".join(str(i + 1) for i in matches)
        raise located(
            node,
            f"focus {named(name)} is ambiguous: rows {rows} are all {named(name)}; "
            "give the row number instead",
        )
    if not matches:  # (suggestions cost a pass of difflib per token: only for a sentence)
        close = difflib.get_close_matches(name, tokens, n=1) if len(tokens) <= 256 else []
        hint = f"; did you mean {named(close[0])}?" if close else f" ({what}: {some_of(tokens)})"
        raise located(node, f"focus {named(name)} is not one of the {what}{hint}")
    return matches[0]


def precision(entry: Entry | None) -> int:
    return 3 if entry is None else whole_number(entry.value, "precision", 0, MAX_PRECISION)


def default_title(path: str) -> str:
    if path.startswith("<"):  # text given without a file
        return "Untitled scenario"
    stem = os.path.splitext(os.path.basename(path))[0]
    return stem.replace("_", " ").strip() or "Untitled scenario"
