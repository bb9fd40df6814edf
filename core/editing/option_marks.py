"""What the words of a scenario were written for, once an option has changed.

A description ("a causal mask") and an option's own comment (``causal: true  # a token may not
look ahead``) are written for the options of the file as its author left it. When a save
changes an option, the comment is marked with the value it was written of, as the file's
reader should take it: ``causal: false  # if true: a token may not look ahead`` (changed back,
the mark goes). The same mark tells, when the file is opened again, which options its
description was written for, so the app can say so (:func:`written_for`).
"""

from __future__ import annotations

import dataclasses
import math
import re

import yaml

from attn_tui.core.files.yaml_source import Node, content_end
from attn_tui.core.model.options import Options

OPTIONS = ("causal", "scale", "mask_value")


def comment_after(text: str, node: Node) -> tuple[int, int, str] | None:
    """The comment on the line of ``node``'s value, after it: (where its ``#`` is, where the
    line ends, its text); None without one (or inside a flow collection)."""
    end = content_end(node)
    line_end = text.find("\n", end)
    line_end = len(text) if line_end < 0 else line_end
    rest = text[end:line_end]
    hash_at = rest.find("#")
    if hash_at < 0 or (hash_at and not rest[hash_at - 1].isspace()) or rest[:hash_at].strip():
        return None
    return end + hash_at, line_end, rest[hash_at + 1 :].strip()


def marked(comment: str, name: str) -> tuple[str, str] | None:
    """(the value the comment was written of, what it says) for a marked comment, else None.
    Also reads the mark older versions wrote: ``when causal was true: …``."""
    found = re.match(rf"(?:if|when {re.escape(name)} was) (\S+?): (.*)", comment)
    return (found.group(1), found.group(2)) if found else None


def mark(was: str, said: str) -> str:
    """A comment said of the value ``was``, marked so."""
    return f"if {was}: {said}"


def written_for(options: Options, text: str, nodes: dict[str, Node]) -> Options:
    """The options the file's words were written for: ``options`` (the file's own), except
    where an option's comment is marked with another value. ``nodes``: the top-level option
    values' nodes in ``text``."""
    found = {}
    for name in OPTIONS:
        comment = comment_after(text, nodes[name]) if name in nodes else None
        mark_found = marked(comment[2], name) if comment else None
        if mark_found is not None:
            value = _option_value(name, mark_found[0])
            if value is not None:
                found[name] = value
    return dataclasses.replace(options, **found) if found else options


def _option_value(name: str, text: str) -> bool | float | None:
    """An option's value as a mark writes it, if it is one that option can take."""
    if not re.fullmatch(
        r"[A-Za-z0-9.+-]{1,32}", text
    ):  # a word or a number, nothing YAML could build
        return None
    try:
        value = yaml.safe_load(text)
    except yaml.YAMLError:
        return None
    number = isinstance(value, (int, float)) and not isinstance(value, bool)
    if name == "causal":
        return value if isinstance(value, bool) else None
    if name == "scale":
        return (
            value
            if isinstance(value, bool)
            else float(value)
            if number and 0 < value < math.inf
            else None
        )
    return float(value) if number and value < 0 else None


def differences(written: Options, now: Options, d_k: int) -> str:
    """``causal on; now causal off``-style words for the options that differ, or ''."""

    def said(options: Options, name: str) -> str:
        if name == "causal":
            return f"causal {'on' if options.causal else 'off'}"
        if name == "scale":
            return f"scale {options.scale_text(d_k)}"
        from attn_tui.core.numbers import mask_text

        return f"mask {mask_text(options.mask_value)}"

    names = [
        name
        for name in OPTIONS
        if getattr(written, name) != getattr(now, name)
        or type(getattr(written, name)) is not type(getattr(now, name))
    ]
    if not names:
        return ""
    return (
        f"{', '.join(said(written, n) for n in names)}; "
        f"now {', '.join(said(now, n) for n in names)}"
    )
