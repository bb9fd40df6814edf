"""The walk-through as GitHub-flavoured Markdown, for a handout: the sibling of ``to_text``.

The same sections as ``core.report.to_text`` — inputs, every stage's matrix, the arithmetic of
the focus row, the variants side by side — with each matrix as a GFM table and each step's
arithmetic in a fenced code block (its lines are aligned by spaces and hold characters such as
``×``, ``√`` and ``−∞`` that Markdown would otherwise reflow or misread). Numbers are formatted
by ``core.numbers`` exactly as ``--print`` formats them, so a handout and the terminal agree.
"""

from __future__ import annotations

import re

import numpy as np

from attn_tui.core.attention import STAGE_TITLES, STAGES, Trace, compute_all
from attn_tui.core.explanation import explain
from attn_tui.core.numbers import decimals_needed, fixed, mask_text
from attn_tui.core.report import stage_heading_with_columns, visible_traces
from attn_tui.core.scenario import Scenario
from attn_tui.core.text import visible

# The header of a query × key table's first column: rows are queries, columns are keys.
QUERY_KEY_HEAD = "query ↓ · key →"

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


def to_markdown(scenario: Scenario, traces: dict[str, Trace] | None = None,
                rows: list[int] | None = None) -> str:
    """The walk-through of ``scenario`` as GitHub-flavoured Markdown.

    A heading with the title, the description, the shapes and options; then Q, K, V (and X with
    the W's for a projection scenario) and each stage as a table with token labels; then the
    arithmetic of the focus row, or of each of ``rows`` (0-based), stage by stage; then, for a
    scenario with variants, each row's largest weight under every variant. Tokens, titles and
    names are escaped, so a token such as ``a|b`` or ``*`` cannot break a table or a heading.
    ``traces`` are ``compute_all(scenario)``'s, computed here when not given.
    """
    traces = visible_traces(traces or compute_all(scenario))
    trace = traces[""]
    shown_rows = list(rows) if rows is not None else [scenario.focus]
    for row in shown_rows:
        if not 0 <= row < scenario.T:
            raise ValueError(f"row {row} is out of range: rows are 0 to {scenario.T - 1}")
    p = scenario.precision
    tokens = list(trace.tokens)  # made visible first, then escaped for Markdown, as all text here
    blocks: list[str] = [_heading(1, visible(scenario.title.strip()) or "Untitled scenario")]
    if scenario.description.strip():
        blocks.append(_paragraphs(visible(scenario.description.strip(), multiline=True)))
    quoted_tokens = ", ".join(_quoted(token) for token in tokens)
    blocks.append(f"Tokens ({scenario.T}): {quoted_tokens} · d_k = {scenario.d_k} · "
                  f"d_v = {scenario.d_v} · {_escape(scenario.options.describe(scenario.d_k))}")

    blocks.append(_heading(2, "Inputs"))
    for name in ("X", "Wq", "Wk", "Wv"):
        if name in scenario.inputs:
            array = scenario.inputs[name]
            labels = tokens if name == "X" else [f"x{i + 1}" for i in range(array.shape[0])]
            blocks += [_heading(3, f"{name} {_shape(array)}"),
                       _table(array, labels, _widths(array.shape[1]), decimals_needed(array, p),
                              corner="token" if name == "X" else "row")]
    derived = scenario.kind == "projection"
    for name, role in (("Q", "queries"), ("K", "keys"), ("V", "values")):
        array = scenario.matrix(name)
        source = f" = X·W{name.lower()}" if derived else ""
        blocks += [_heading(3, f"{name} ({role}{source}) {_shape(array)}"),
                   _table(array, tokens, _widths(array.shape[1]), decimals_needed(array, p))]

    for number, stage in enumerate(STAGES, 1):
        values = trace.stage(stage)
        square = stage != "output"
        columns = tokens if square else _widths(trace.d_v)
        decimals = decimals_needed(values, p) if stage == "score" else p
        extra = (("max", trace.max_weight), ("H", trace.entropy)) if stage == "softmax" else ()
        title = f"Step {number} — {STAGE_TITLES[stage]}: {stage_heading_with_columns(stage, trace)}"
        blocks += [_heading(2, title),
                   _table(values, tokens, columns, decimals,
                          blocked=trace.blocked if stage == "mask" else None,
                          mask_value=trace.options.mask_value, extra=extra,
                          corner=QUERY_KEY_HEAD if square else "token")]

    for row in shown_rows:
        blocks.append(_heading(2, f"Row {row + 1}, {_quoted_raw(tokens[row])}, step by step"))
        for stage in STAGES:
            explanation = explain(trace, stage, row, fold=None)
            blocks += [_heading(3, explanation.title),
                       _code_block([line.plain() for line in explanation.lines])]

    if scenario.variants:
        names = [variant.name for variant in scenario.variants]
        table_rows = [[fixed(traces[name].max_weight[i], p) for name in names] for i in range(scenario.T)]
        blocks += [_heading(2, "Variants: each row's largest weight"),
                   _grid(["token", *(visible(name) for name in names)],
                         [[token, *cells] for token, cells in zip(tokens, table_rows)], numeric_from=1)]
        blocks.append("\n".join(
            f"- {_escape(visible(variant.name))}: "
            f"{_escape(variant.options(scenario.options).describe(scenario.d_k))}"
            for variant in scenario.variants))
    # Every block stands alone between blank lines: headings, tables and fences need them.
    return "\n\n".join(blocks) + "\n"


# ---- Markdown pieces ---------------------------------------------------------------------------

def _heading(level: int, text: str) -> str:
    return "#" * level + " " + _escape(_one_line(text))


def _paragraphs(text: str) -> str:
    """Free text as paragraphs: a blank line still separates two, each line is escaped alone."""
    return "\n".join(_escape(line.strip()) for line in text.splitlines())


def _table(values: np.ndarray, rows: list[str], columns: list[str], decimals: int,
           blocked: np.ndarray | None = None, mask_value: float = float("-inf"),
           extra: tuple[tuple[str, np.ndarray], ...] = (), corner: str = "token") -> str:
    """A labelled matrix: one table row per matrix row, masked cells as the mask value."""
    def cell(i: int, j: int) -> str:
        if blocked is not None and blocked[i, j]:
            return mask_text(mask_value)
        return fixed(values[i, j], decimals)

    body = [[label, *(cell(i, j) for j in range(values.shape[1])),
             *(fixed(column[i], decimals) for _, column in extra)]
            for i, label in enumerate(rows)]
    return _grid([corner, *columns, *(name for name, _ in extra)], body, numeric_from=1)


def _grid(head: list[str], body: list[list[str]], numeric_from: int) -> str:
    """A GFM table. Cells before ``numeric_from`` are labels (escaped, left-aligned); the rest
    are numbers we formatted ourselves (right-aligned). The header is escaped whole: its
    names are tokens and variant names too. Columns are padded so the source reads as a grid."""
    head = [_cell(text) for text in head]
    body = [[_cell(text) if j < numeric_from else text for j, text in enumerate(row)] for row in body]
    widths = [max(3, len(head[j]), *(len(row[j]) for row in body)) for j in range(len(head))]
    rule = [":" + "-" * (width - 1) if j < numeric_from else "-" * (width - 1) + ":"
            for j, width in enumerate(widths)]

    def line(cells: list[str]) -> str:
        padded = [text.ljust(width) if j < numeric_from else text.rjust(width)
                  for j, (text, width) in enumerate(zip(cells, widths))]
        return "| " + " | ".join(padded) + " |"

    return "\n".join([line(head), line(rule), *(line(row) for row in body)])


def _cell(text: str) -> str:
    # An empty label would still be a cell, but a reader could not tell it from a missing one.
    return _escape(_one_line(text).strip()) or "(empty)"


def _code_block(lines: list[str]) -> str:
    """Lines shown verbatim; the fence is longer than any run of backticks inside them."""
    longest = max((len(run) for line in lines for run in re.findall(r"`+", line)), default=0)
    fence = "`" * max(3, longest + 1)
    return "\n".join([fence + "text", *lines, fence])


def _escape(text: str) -> str:
    """``text`` so that Markdown shows it literally, inline or at the start of a line."""
    text = _INLINE_SPECIALS.sub(r"\\\1", text)
    text = _UNDERSCORES.sub(lambda run: run.group() if _inside_word(text, run) else "\\_" * len(run.group()),
                            text)
    text = _ENTITY.sub(r"\\&", text)
    return _LINE_START.sub(lambda m: "\\" + m.group(1) if m.group(1) else m.group(2) + "\\" + m.group(3),
                           text)


def _inside_word(text: str, run: re.Match[str]) -> bool:
    """Whether a run of underscores has a letter or digit on both sides, as in "d_k": there it
    cannot start or end emphasis, so it stays as written, readable in the source."""
    start, end = run.span()
    return start > 0 and end < len(text) and text[start - 1].isalnum() and text[end].isalnum()


def _one_line(text: str) -> str:
    return " ".join(text.splitlines()) if "\n" in text or "\r" in text else text


def _quoted(token: str) -> str:
    return _escape(_quoted_raw(token))


def _quoted_raw(token: str) -> str:
    return f'"{_one_line(token)}"'


def _widths(count: int) -> list[str]:
    return [f"d{j + 1}" for j in range(count)]


def _shape(array: np.ndarray) -> str:
    return f"({array.shape[0]}×{array.shape[1]})"
