"""Text from a file, an argument or the keyboard, made safe to show: every character that could
steer a terminal or reorder what is read is replaced by a visible stand-in.

A token such as ``"b\\x1b]52;c;…\\x1b\\\\"`` would otherwise write to the clipboard, set the
window title or clear the screen the moment it is printed; a right-to-left override would make
``abc`` read ``cba``. :func:`visible` is the one place that decides how such text looks, and
every view (the app, ``--print``, ``--markdown``, ``--check``, error messages) passes text from
outside through it. ``--json`` needs none of it: JSON escapes control characters itself.
"""

from __future__ import annotations

import re

# C0 controls and DEL as Unicode's control pictures: ESC reads ␛, NUL ␀, DEL ␡.
_PICTURES = {code: chr(0x2400 + code) for code in range(0x20)} | {0x7F: "\u2421"}
# C1 controls, the bidirectional overrides and isolates, and the line and paragraph separators
# (which some terminals and Rich treat as line breaks) as their code points.
_CODE_POINTS = {code: f"<U+{code:04X}>" for code in
                [*range(0x80, 0xA0), *range(0x202A, 0x202F), *range(0x2066, 0x206A), 0x2028, 0x2029]}
_SINGLE_LINE = str.maketrans(_PICTURES | _CODE_POINTS)
_MULTI_LINE = str.maketrans(_PICTURES | _CODE_POINTS | {ord("\n"): "\n", ord("\t"): "    "})
# Half of a UTF-16 pair cannot even be encoded for a terminal: show it as its code point.
_SURROGATE = re.compile("[\ud800-\udfff]")


def visible(text: str, multiline: bool = False) -> str:
    """``text`` with control characters (C0, C1, DEL), bidirectional overrides and isolates,
    line separators and lone surrogates replaced by visible, inert stand-ins.

    With ``multiline``, line feeds stay (a description's paragraphs) and a tab becomes four
    spaces; otherwise a line feed reads ``␊`` and the text stays on one line.
    """
    shown = text.translate(_MULTI_LINE if multiline else _SINGLE_LINE)
    if _SURROGATE.search(shown):
        shown = _SURROGATE.sub(lambda match: f"<U+{ord(match.group()):04X}>", shown)
    return shown


def quoted(text: str) -> str:
    """``"text"``, made visible, for naming a token or a name inside a sentence."""
    return f'"{visible(text)}"'

