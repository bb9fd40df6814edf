"""The pieces of GitHub-flavoured Markdown that the handouts are built of, each written so that
Markdown shows exactly the text it is given: headings, paragraphs, a labelled matrix as a GFM
table (a block of rows at a time), a table of cells, a fenced code block, and the escaping of
inline text. The walk-through (``core.outputs.markdown``) and the lesson handout
(``core.outputs.lesson_handout``) both write through them.
"""

from __future__ import annotations

import re
from typing import Iterator

import numpy as np

from attn_tui.core.numbers import fixed, fixed_row, mask_text

# Characters that start inline Markdown anywhere in a line: emphasis, code, links and
# footnotes (a "[" suffices: "]" alone links nothing), HTML, strikethrough, table cells,
# GitHub's $math$, a heading's closing "#"s, and the backslash itself.
_INLINE_SPECIALS = re.compile(r"([\\`*\[<|~$#])")
# Runs of underscores; one inside a word stays as written (see _inside_word).
_UNDERSCORES = re.compile(r"_+")
# An entity such as "&amp;" or "&#42;" would turn into the character it names.
_ENTITY = re.compile(r"&(?=#?\w+;)")
# What makes a line a heading, quote, list item, thematic break or setext underline.
_LINE_START = re.compile(r"^([>+\-=])|^(\d+)([.)])")


BLANK = "____"
ROWS_AT_A_TIME = 64  # a table's rows computed and formatted at once


def heading(level: int, text: str) -> str:
    return "#" * level + " " + escape(_one_line(text))


def paragraphs(text: str) -> str:
    """Free text as paragraphs: a blank line still separates two, each line is escaped alone."""
    return "\n".join(escape(line.strip()) for line in text.splitlines())


def matrix_table(
    values_of,
    count: int,
    rows,
    columns,
    decimals: int,
    blocked=None,
    mask_value: float = float("-inf"),
    extra=(),
    corner: str = "token",
    empty=None,
    blank=None,
    blocked_text: str | None = None,
    tiny: bool = True,
) -> Iterator[str]:
    """A labelled matrix as a GFM table, a block of rows at a time: ``values_of``, ``blocked``,
    ``empty`` and ``blank`` give a range of rows' values, masked cells, rows that see nothing and
    a worksheet's blank cells; ``extra`` (name, values_of) columns after the matrix's. Masked
    cells read as the mask value, a row that sees nothing as dashes, a blank as a line to write
    on. Every number column is as wide as the widest number, found in a first pass (the values
    are computed twice, the text formatted once). With ``tiny`` (the app's rule), a non-zero
    value that would read 0 is written with an exponent (1.0e−5, never 0)."""
    heads = [cell(corner), *(cell(text) for text in columns), *(cell(name) for name, _ in extra)]
    runs = [
        range(start, min(start + ROWS_AT_A_TIME, count))
        for start in range(0, count, ROWS_AT_A_TIME)
    ]
    widest = [
        len(BLANK) if blank is not None else 1,
        1,
    ]  # (a row that sees nothing: one dash a cell)
    if blocked is not None:
        widest.append(len(blocked_text or mask_text(mask_value)))
    for run in runs:
        block = values_of(run)
        finite = block[np.isfinite(block)]
        if finite.size:
            widest += [
                len(fixed(float(finite.min()), decimals)),
                len(fixed(float(finite.max()), decimals)),
            ]
        with np.errstate(invalid="ignore"):
            odd = ~np.isfinite(block) | (np.abs(block) >= 1e7)  # ±∞, nan, exponents
            if tiny:
                odd |= (block != 0) & (np.abs(block) < 0.5 * 10.0**-decimals)
            odd = block[odd]
        if odd.size:
            widest.append(max(len(text) for text in fixed_row(np.unique(odd), decimals, tiny)))
        for _, values in extra:
            column = values(run)
            widest += [
                len(fixed(float(column.min()), decimals, tiny)),
                len(fixed(float(column.max()), decimals, tiny)),
            ]
    label_width = max(3, len(heads[0]), *(len(cell(label)) for label in rows))
    width = max(3, *widest, *(len(head) for head in heads[1:]))

    def line(cells: list[str]) -> str:
        return (
            "| "
            + " | ".join([cells[0].ljust(label_width), *(text.rjust(width) for text in cells[1:])])
            + " |"
        )

    yield "\n".join(
        [
            line(heads),
            line([":" + "-" * (label_width - 1), *["-" * (width - 1) + ":"] * (len(heads) - 1)]),
        ]
    )
    for run in runs:
        values = values_of(run)
        masked = blocked(run) if blocked is not None else None
        none = empty(run) if empty is not None else None
        blanks = blank(run) if blank is not None else None
        extras = [values_of_extra(run) for _, values_of_extra in extra]
        lines = []
        for k, i in enumerate(run):
            if none is not None and none[k]:
                texts = ["—"] * (values.shape[1] + len(extra))
            else:
                texts = fixed_row(values[k], decimals, tiny)
                if masked is not None:
                    for j in np.flatnonzero(masked[k]):
                        texts[j] = blocked_text or mask_text(mask_value)
                if blanks is not None:
                    texts = [BLANK if blanks[k, j] else text for j, text in enumerate(texts)] + [
                        BLANK for _ in extra
                    ]
                else:
                    texts += [fixed(float(column[k]), decimals, tiny) for column in extras]
            lines.append(line([cell(rows[i]), *texts]))
        yield "\n" + "\n".join(lines)


def grid(head: list[str], body: list[list[str]], numeric_from: int) -> str:
    """A GFM table. Cells before ``numeric_from`` are labels (escaped, left-aligned); the rest
    are numbers we formatted ourselves (right-aligned). The header is escaped whole: its
    names are tokens and variant names too. Columns are padded so the source reads as a grid."""
    head = [cell(text) for text in head]
    body = [
        [cell(text) if j < numeric_from else text for j, text in enumerate(row)] for row in body
    ]
    widths = [max(3, len(head[j]), *(len(row[j]) for row in body)) for j in range(len(head))]
    rule = [
        ":" + "-" * (width - 1) if j < numeric_from else "-" * (width - 1) + ":"
        for j, width in enumerate(widths)
    ]

    def line(cells: list[str]) -> str:
        padded = [
            text.ljust(width) if j < numeric_from else text.rjust(width)
            for j, (text, width) in enumerate(zip(cells, widths))
        ]
        return "| " + " | ".join(padded) + " |"

    return "\n".join([line(head), line(rule), *(line(row) for row in body)])


def cell(text: str) -> str:
    # An empty label would still be a cell, but a reader could not tell it from a missing one.
    return escape(_one_line(text).strip()) or "(empty)"


def code_block(lines: list[str]) -> str:
    """Lines shown verbatim; the fence is longer than any run of backticks inside them."""
    longest = max((len(run) for line in lines for run in re.findall(r"`+", line)), default=0)
    fence = "`" * max(3, longest + 1)
    return "\n".join([fence + "text", *lines, fence])


def escape(text: str) -> str:
    """``text`` so that Markdown shows it literally, inline or at the start of a line."""
    text = _INLINE_SPECIALS.sub(r"\\\1", text)
    text = _UNDERSCORES.sub(
        lambda run: run.group() if _inside_word(text, run) else "\\_" * len(run.group()), text
    )
    text = _ENTITY.sub(r"\\&", text)
    return _LINE_START.sub(
        lambda m: "\\" + m.group(1) if m.group(1) else m.group(2) + "\\" + m.group(3), text
    )


def _inside_word(text: str, run: re.Match[str]) -> bool:
    """Whether a run of underscores has a letter or digit on both sides, as in "d_k": there it
    cannot start or end emphasis, so it stays as written, readable in the source."""
    start, end = run.span()
    return start > 0 and end < len(text) and text[start - 1].isalnum() and text[end].isalnum()


def _one_line(text: str) -> str:
    return " ".join(text.splitlines()) if "\n" in text or "\r" in text else text


def quoted(token: str) -> str:
    return escape(_quoted_raw(token))


def _quoted_raw(token: str) -> str:
    return f'"{_one_line(token)}"'
