"""YAML text that reads back exactly: a string as one double-quoted scalar, a float64 as the
shortest number YAML 1.1 (PyYAML's) reads as that float. Every writer of scenario text (save,
render, the stage settings' keys, the lesson writer, capture, the template) goes through these."""

from __future__ import annotations

import math

# Characters PyYAML refuses in a document, or reads as line breaks: written as escapes.
_SHORT_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t", "\0": "\\0"}


def _yaml_printable(ch: str) -> bool:
    """YAML's printable set, less U+2028 and U+2029 (which readers take for line breaks). (A
    test, not a regular expression: compiling that one took 7 ms of every start.)"""
    code = ord(ch)
    return (
        code == 0x09
        or 0x20 <= code <= 0x7E
        or 0xA0 <= code <= 0x2027
        or 0x202A <= code <= 0xD7FF
        or 0xE000 <= code <= 0xFFFD
        or 0x10000 <= code <= 0x10FFFF
    )


def yaml_number(value: float) -> str:
    """The shortest text that a YAML 1.1 reader (PyYAML included) reads back as ``value``.

    Integral values are written as integers (``5``, not ``5.0``); an exponent always comes with
    a decimal point (``1.0e-05``), because YAML 1.1 reads ``1e-05`` as a string.
    """
    if value == 0 and math.copysign(1.0, value) < 0:
        return "-0.0"
    if value.is_integer() and abs(value) < 1e16:
        return str(int(value))
    text = repr(value)
    if "e" in text and "." not in text.split("e")[0]:
        mantissa, exponent = text.split("e")
        text = f"{mantissa}.0e{exponent}"
    return text


def yaml_decimal(value: float, places: int) -> str:
    """``value`` with ``places`` decimals, as a template's aligned columns show it (``0.50``); a
    value that rounds to zero is ``0.00``, never ``-0.00``."""
    text = f"{value:.{places}f}"
    return text[1:] if text.startswith("-") and not text.strip("-0.") else text


def yaml_quoted(text: str) -> str:
    """A YAML double-quoted scalar that reads back as exactly ``text``: unprintable characters
    and line breaks as escapes, so it stays on one line (a token also names its row in a
    comment)."""

    def char(ch: str) -> str:
        if ch in '"\\':
            return "\\" + ch
        if ch in _SHORT_ESCAPES:
            return _SHORT_ESCAPES[ch]
        if _yaml_printable(ch):
            return ch
        code = ord(ch)
        return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"

    return '"' + "".join(char(ch) for ch in text) + '"'
