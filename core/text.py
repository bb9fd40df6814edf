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
import unicodedata
from functools import lru_cache

# C0 controls and DEL as Unicode's control pictures: ESC reads ␛, NUL ␀, DEL ␡.
_PICTURES = {code: chr(0x2400 + code) for code in range(0x20)} | {0x7F: "\u2421"}
# C1 controls, the bidirectional overrides, isolates and marks, the line and paragraph
# separators (which some terminals and Rich treat as line breaks), and the characters that draw
# nothing (zero-width spaces and joiners, word joiners, invisible operators, the soft hyphen,
# Hangul fillers), which would make two different tokens look alike, as their code points.
# The zero-width joiner is left alone inside an emoji sequence, where it makes one glyph.
_INVISIBLE = [
    0x00AD,
    0x061C,
    0x115F,
    0x1160,
    0x180E,
    0x200B,
    0x200C,
    0x200E,
    0x200F,
    *range(0x2060, 0x2065),
    0x3164,
    0xFEFF,
    0xFFA0,
]
_CODE_POINTS = {
    code: f"<U+{code:04X}>"
    for code in [
        *range(0x80, 0xA0),
        *range(0x202A, 0x202F),
        *range(0x2066, 0x206A),
        0x2028,
        0x2029,
        *_INVISIBLE,
    ]
}
_SINGLE_LINE = str.maketrans(_PICTURES | _CODE_POINTS)
_MULTI_LINE = str.maketrans(_PICTURES | _CODE_POINTS | {ord("\n"): "\n", ord("\t"): "    "})


def _any_of(table: dict[int, str]) -> re.Pattern:
    """A character the table changes: most text has none, and a search for one runs in C where
    ``translate`` with stand-ins longer than one character goes a character at a time
    (``--print`` passes tens of megabytes through here)."""
    return re.compile(
        "[" + "".join(re.escape(chr(code)) for code, to in table.items() if to != chr(code)) + "]"
    )


_TO_SHOW = {False: (_SINGLE_LINE, _any_of(_SINGLE_LINE)), True: (_MULTI_LINE, _any_of(_MULTI_LINE))}
# Half of a UTF-16 pair cannot even be encoded for a terminal: show it as its code point.
_SURROGATE = re.compile("[\ud800-\udfff]")
ZWJ, VS16 = "\u200d", "\ufe0f"
# tag characters: part of a subdivision flag after 🏴, otherwise hidden ASCII ("smuggled" text)
_TAGS = re.compile("[\U000e0000-\U000e007f]+")
_FLAG_BASE = "\U0001f3f4"


def visible(text: str, multiline: bool = False) -> str:
    """``text`` with control characters (C0, C1, DEL), bidirectional overrides and isolates,
    line separators and lone surrogates replaced by visible, inert stand-ins.

    With ``multiline``, line feeds stay (a description's paragraphs) and a tab becomes four
    spaces; otherwise a line feed reads ``␊`` and the text stays on one line.
    """
    table, changed = _TO_SHOW[bool(multiline)]
    shown = text.translate(table) if changed.search(text) else text
    if _SURROGATE.search(shown):
        shown = _SURROGATE.sub(lambda match: f"<U+{ord(match.group()):04X}>", shown)
    if ZWJ in shown:
        shown = _joiners_shown(shown)
    if _TAGS.search(shown):
        shown = _TAGS.sub(
            lambda match: (
                match.group()
                if match.string[match.start() - 1 : match.start()] == _FLAG_BASE
                else "".join(f"<U+{ord(c):04X}>" for c in match.group())
            ),
            shown,
        )
    return shown


def _joiners_shown(text: str) -> str:
    """Each zero-width joiner that does not join two emoji made visible."""
    parts = text.split(ZWJ)
    out = [parts[0]]
    for before, after in zip(parts, parts[1:]):
        out.append(
            ZWJ if _ends_in_emoji(before) and after and _pictographic(after[0]) else "<U+200D>"
        )
        out.append(after)
    return "".join(out)


def _ends_in_emoji(text: str) -> bool:
    text = text.rstrip(
        VS16 + "".join(map(chr, range(0x1F3FB, 0x1F400)))
    )  # its presentation, skin tone
    return bool(text) and _pictographic(text[-1])


def _pictographic(character: str) -> bool:
    """Whether a character can take part in an emoji sequence (a close superset of Unicode's
    Extended_Pictographic, which the standard library does not know)."""
    code = ord(character)
    return (
        0x1F000 <= code <= 0x1FAFF
        or 0x2194 <= code <= 0x2BFF
        or code in (0x00A9, 0x00AE, 0x203C, 0x2049, 0x2122, 0x2139, 0x3030, 0x303D, 0x3297, 0x3299)
    )


# ---- width, as the terminal draws it ---------------------------------------------------------
#
# Measured as Rich (and so Textual) measures it, with the standard library's Unicode data: a
# wide (East Asian W or F) character takes two cells; combining and enclosing marks, format
# characters, Hangul's medial and final jamo and emoji skin tones none; a zero-width joiner
# draws the next character into the glyph before it; VS16 makes a text-default emoji (below)
# two cells wide. Clipping keeps grapheme clusters whole: a base and its marks, a joined emoji,
# a flag's two regional indicators.

# Unicode's emoji that are drawn as text unless VS16 follows (emoji-data.txt: Emoji=Yes,
# Emoji_Presentation=No), VS16 widening them from one cell to two
_TEXT_EMOJI = frozenset(
    chr(code)
    for first, last in (
        (0x23, 0x23),
        (0x2A, 0x2A),
        (0x30, 0x39),
        (0xA9, 0xA9),
        (0xAE, 0xAE),
        (0x203C, 0x203C),
        (0x2049, 0x2049),
        (0x2122, 0x2122),
        (0x2139, 0x2139),
        (0x2194, 0x2199),
        (0x21A9, 0x21AA),
        (0x2328, 0x2328),
        (0x23CF, 0x23CF),
        (0x23ED, 0x23EF),
        (0x23F1, 0x23F2),
        (0x23F8, 0x23FA),
        (0x24C2, 0x24C2),
        (0x25AA, 0x25AB),
        (0x25B6, 0x25B6),
        (0x25C0, 0x25C0),
        (0x25FB, 0x25FC),
        (0x2600, 0x2604),
        (0x260E, 0x260E),
        (0x2611, 0x2611),
        (0x2618, 0x2618),
        (0x261D, 0x261D),
        (0x2620, 0x2620),
        (0x2622, 0x2623),
        (0x2626, 0x2626),
        (0x262A, 0x262A),
        (0x262E, 0x262F),
        (0x2638, 0x263A),
        (0x2640, 0x2640),
        (0x2642, 0x2642),
        (0x265F, 0x2660),
        (0x2663, 0x2663),
        (0x2665, 0x2666),
        (0x2668, 0x2668),
        (0x267B, 0x267B),
        (0x267E, 0x267E),
        (0x2692, 0x2692),
        (0x2694, 0x2697),
        (0x2699, 0x2699),
        (0x269B, 0x269C),
        (0x26A0, 0x26A0),
        (0x26A7, 0x26A7),
        (0x26B0, 0x26B1),
        (0x26C8, 0x26C8),
        (0x26CF, 0x26CF),
        (0x26D1, 0x26D1),
        (0x26D3, 0x26D3),
        (0x26E9, 0x26E9),
        (0x26F0, 0x26F1),
        (0x26F4, 0x26F4),
        (0x26F7, 0x26F9),
        (0x2702, 0x2702),
        (0x2708, 0x2709),
        (0x270C, 0x270D),
        (0x270F, 0x270F),
        (0x2712, 0x2712),
        (0x2714, 0x2714),
        (0x2716, 0x2716),
        (0x271D, 0x271D),
        (0x2721, 0x2721),
        (0x2733, 0x2734),
        (0x2744, 0x2744),
        (0x2747, 0x2747),
        (0x2763, 0x2764),
        (0x27A1, 0x27A1),
        (0x2934, 0x2935),
        (0x2B05, 0x2B07),
        (0x1F170, 0x1F171),
        (0x1F17E, 0x1F17F),
        (0x1F321, 0x1F321),
        (0x1F324, 0x1F32C),
        (0x1F336, 0x1F336),
        (0x1F37D, 0x1F37D),
        (0x1F396, 0x1F397),
        (0x1F399, 0x1F39B),
        (0x1F39E, 0x1F39F),
        (0x1F3CB, 0x1F3CE),
        (0x1F3D4, 0x1F3DF),
        (0x1F3F3, 0x1F3F3),
        (0x1F3F5, 0x1F3F5),
        (0x1F3F7, 0x1F3F7),
        (0x1F43F, 0x1F43F),
        (0x1F441, 0x1F441),
        (0x1F4FD, 0x1F4FD),
        (0x1F549, 0x1F54A),
        (0x1F56F, 0x1F570),
        (0x1F573, 0x1F579),
        (0x1F587, 0x1F587),
        (0x1F58A, 0x1F58D),
        (0x1F590, 0x1F590),
        (0x1F5A5, 0x1F5A5),
        (0x1F5A8, 0x1F5A8),
        (0x1F5B1, 0x1F5B2),
        (0x1F5BC, 0x1F5BC),
        (0x1F5C2, 0x1F5C4),
        (0x1F5D1, 0x1F5D3),
        (0x1F5DC, 0x1F5DE),
        (0x1F5E1, 0x1F5E1),
        (0x1F5E3, 0x1F5E3),
        (0x1F5E8, 0x1F5E8),
        (0x1F5EF, 0x1F5EF),
        (0x1F5F3, 0x1F5F3),
        (0x1F5FA, 0x1F5FA),
        (0x1F6CB, 0x1F6CB),
        (0x1F6CD, 0x1F6CF),
        (0x1F6E0, 0x1F6E5),
        (0x1F6E9, 0x1F6E9),
        (0x1F6F0, 0x1F6F0),
        (0x1F6F3, 0x1F6F3),
    )
    for code in range(first, last + 1)
)
# format characters that are drawn (prepended concatenation marks), and fillers that are not
_DRAWN_FORMAT = frozenset(
    map(chr, [*range(0x600, 0x606), 0x6DD, 0x70F, 0x890, 0x891, 0x8E2, 0x110BD, 0x110CD, 0xAD])
)
_BLANK = frozenset(map(chr, [0x3164, 0xFFA0, *range(0x1F3FB, 0x1F400)]))


@lru_cache(maxsize=8192)
def _width(character: str) -> int:
    """The cells one character takes on its own (0, 1 or 2)."""
    code = ord(character)
    if code < 0x20 or 0x7F <= code < 0xA0 or character in _BLANK:
        return 0
    category = unicodedata.category(character)
    if category == "Cn":  # not yet assigned: as Unicode reserves its range (ignorable, CJK or not)
        ignorable = (
            0x2060 <= code <= 0x206F
            or 0xD7B0 <= code <= 0xD7FF
            or 0xFFF0 <= code <= 0xFFF8
            or 0xE0000 <= code <= 0xE0FFF
        )
        if ignorable:
            return 0
        wide = (
            0x3400 <= code <= 0x9FFF
            or 0xF900 <= code <= 0xFAFF
            or 0x20000 <= code <= 0x2FFFD
            or 0x30000 <= code <= 0x3FFFD
        )
        return 2 if wide else 1
    if character in _DRAWN_FORMAT:
        return 1
    if (
        category in ("Mn", "Me", "Mc", "Cf", "Zl", "Zp")
        or 0x1160 <= code <= 0x11FF
        or 0xD7B0 <= code <= 0xD7FF
    ):
        return 0
    return 2 if unicodedata.east_asian_width(character) in ("W", "F") else 1


def _clusters(text: str) -> list[tuple[str, int]]:
    """``text`` as grapheme clusters, each with the cells it takes."""
    clusters: list[list] = []  # [text, width, last measured character]
    index, count = 0, len(text)
    while index < count:
        character = text[index]
        if clusters and character == ZWJ:  # the next character joins this glyph
            clusters[-1][0] += text[index : index + 2]
            index += 2
            continue
        if clusters and character == VS16:
            last = clusters[-1]
            if last[2] in _TEXT_EMOJI:
                last[1] += 1
                last[2] = None
            last[0] += character
        else:
            width = _width(character)
            regional = 0x1F1E6 <= ord(character) <= 0x1F1FF
            if clusters and (width == 0 or (regional and clusters[-1][2] == "pair")):
                clusters[-1][0] += character
                clusters[-1][1] += width
                if regional:
                    clusters[-1][2] = None
            else:
                clusters.append(
                    [character, width, "pair" if regional else character if width else None]
                )
        index += 1
    return [(cluster, width) for cluster, width, _ in clusters]


def cells(text: str) -> int:
    """The cells ``text`` takes on a terminal (as Rich measures it)."""
    if text.isascii() and text.isprintable():
        return len(text)
    return sum(width for _, width in _clusters(text))


def clip(text: str, width: int, ellipsis: str = "…") -> str:
    """``text`` in at most ``width`` cells: whole, or cut between grapheme clusters and ended
    with ``ellipsis``."""
    if cells(text) <= width:
        return text
    room = width - cells(ellipsis)
    kept, used = [], 0
    for cluster, size in _clusters(text):
        if used + size > room:
            break
        kept.append(cluster)
        used += size
    return "".join(kept) + ellipsis if room >= 0 else ellipsis[: max(0, width)]


def fit(text: str, width: int, left: bool = False) -> str:
    """``text`` clipped to ``width`` cells and padded with spaces to exactly that many: on the
    left (right-aligned, as numbers and their labels are), or with ``left`` on the right."""
    shown = clip(text, width)
    padding = " " * (width - cells(shown))
    return shown + padding if left else padding + shown


def quoted(text: str) -> str:
    """``"text"``, made visible, for naming a token or a name inside a sentence."""
    return f'"{visible(text)}"'
