"""A small GFM reader for the tests of Markdown the app writes (the handout, worksheets): its
tables parsed back cell by cell, its fenced blocks, and the checks that it is well formed."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np

MINUS_INFINITY = "−∞"  # how the tables write −∞


@dataclass
class Table:
    heading: str  # the text of the nearest heading above the table
    head: list[str]
    rule: list[str]
    rows: list[list[str]]
    first_line: int  # 0-based line numbers in the document
    last_line: int

    def row(self, label: str) -> list[str]:
        """The cells after the label of the one row labelled ``label``."""
        found = [cells[1:] for cells in self.rows if cells[0] == label]
        assert len(found) == 1, (label, self.rows)
        return found[0]

    def numbers(self) -> np.ndarray:
        return np.array(
            [
                [-math.inf if text == MINUS_INFINITY else float(text) for text in cells[1:]]
                for cells in self.rows
            ]
        )


_UNESCAPED_PIPE = re.compile(r"(?<!\\)\|")


_BACKSLASH_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")  # CommonMark: any ASCII punctuation


def split_row(line: str) -> list[str]:
    """A table line's cells, as GFM splits them (an escaped pipe stays in its cell), unescaped."""
    inner = line.strip()
    assert inner.startswith("|") and inner.endswith("|") and not inner.endswith("\\|"), line
    cells = _UNESCAPED_PIPE.split(inner[1:-1])
    return [_BACKSLASH_ESCAPE.sub(r"\1", cell.strip()) for cell in cells]


def unescape(text: str) -> str:
    return _BACKSLASH_ESCAPE.sub(r"\1", text)


def parse_tables(markdown: str) -> list[Table]:
    lines = markdown.split("\n")
    tables: list[Table] = []
    heading = ""
    in_fence = False
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("```"):
            in_fence = not in_fence
        elif not in_fence and line.startswith("#"):
            heading = unescape(line.lstrip("#").strip())
        elif (
            not in_fence
            and line.startswith("|")
            and i + 1 < len(lines)
            and re.fullmatch(r"\|( *:?-+:? *\|)+", lines[i + 1])
        ):
            start = i
            head, rule = split_row(line), split_row(lines[i + 1])
            i += 2
            rows = []
            while i < len(lines) and lines[i].startswith("|"):
                rows.append(split_row(lines[i]))
                i += 1
            tables.append(Table(heading, head, rule, rows, start, i - 1))
            continue
        i += 1
    assert not in_fence, "a code fence is never closed"
    return tables


def table_under(tables: list[Table], heading_start: str) -> Table:
    found = [table for table in tables if table.heading.startswith(heading_start)]
    assert len(found) == 1, (heading_start, [table.heading for table in tables])
    return found[0]


def fenced_blocks(markdown: str) -> list[str]:
    return re.findall(r"^```text\n(.*?)\n```$", markdown, flags=re.S | re.M)


def assert_well_formed(markdown: str) -> list[Table]:
    """Every table has a header and a rule of the same width as each row, and stands between
    blank lines; so does every heading and fence (else GitHub glues them to a paragraph)."""
    lines = markdown.split("\n")
    tables = parse_tables(markdown)
    assert tables
    for table in tables:
        width = len(table.head)
        assert width >= 2 and len(table.rule) == width, table
        assert all(re.fullmatch(r":?-+:?", cell) for cell in table.rule), table.rule
        for cells in table.rows:
            assert len(cells) == width, (table.heading, cells)
        assert table.first_line == 0 or lines[table.first_line - 1] == ""
        assert lines[table.last_line + 1] == ""
    in_fence = False
    for number, line in enumerate(lines):
        if line.startswith("```"):
            if not in_fence:
                assert lines[number - 1] == "", number
            else:
                assert lines[number + 1] == "", number
            in_fence = not in_fence
        elif line.startswith("#") and not in_fence:
            assert re.match(r"#{1,6} \S", line), line
            assert number == 0 or lines[number - 1] == ""
            assert lines[number + 1] == ""
    return tables
