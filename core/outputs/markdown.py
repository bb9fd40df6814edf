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

from attn_tui.core.engine.attention import Attention
from attn_tui.core.engine.explanation import explain
from attn_tui.core.model.labels import ROLES, dims, input_labels, token_labels
from attn_tui.core.engine.stages import column_labels, row_labels
from attn_tui.core.numbers import decimals_needed, fixed, fixed_row, mask_text
from attn_tui.core.outputs.report import attentions_of, stage_title, summary_line
from attn_tui.core.model.scenario import Scenario
from attn_tui.core.engine.stages import KEYS, gives_away, stage_keyed, stages_for, summary
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


BLANK = "____"


def worksheet_blanks(scenario: Scenario) -> set[str]:
    """The stages a worksheet leaves blank: those under ``predict:`` (when the scenario predicts
    none, every stage after the first a student could give — after Score), and every stage
    computed from them, which would give them away."""
    stages = stages_for(scenario)
    first = next(n for n, stage in enumerate(stages) if stage.predictable)
    predicted = {stage_keyed(key).name for key in scenario.predict} or {stage.name for stage in stages[first + 1:]}
    return {stage.name for stage in stages if gives_away(stage.name, stages) & predicted}


def to_markdown(scenario: Scenario, rows: list[int] | None = None,
                attentions: dict[str, Attention] | None = None, sheet: str | None = None) -> str:
    """The walk-through of ``scenario`` as GitHub-flavoured Markdown.

    A heading with the title, the description, the shapes and options; then the inputs and each
    stage (of each head) as a table with token labels; then the arithmetic of the focus row, or
    of each of ``rows`` (0-based), stage by stage; then, for a scenario with variants, each
    row's largest weight under every variant. Every text from the scenario is made visible and
    escaped, so a token such as ``a|b``, ``*`` or one holding an escape byte cannot break a
    table, a heading or a terminal.

    ``sheet="worksheet"`` leaves the stages of :func:`worksheet_blanks` as blanks to fill in
    (``____``; a masked weight is 0 and is printed), with no number anywhere that gives one
    away; ``sheet="answers"`` is the matching answer key: the same sections, filled in.
    """
    attentions = attentions or attentions_of(scenario)
    attention = attentions[""]
    blanks = worksheet_blanks(scenario) if sheet is not None else set()
    hide = blanks if sheet == "worksheet" else set()
    shown_rows = list(rows) if rows is not None else [scenario.focus]
    for row in shown_rows:
        if not 0 <= row < scenario.T:
            raise ValueError(f"row {row} is out of range: rows are 0 to {scenario.T - 1}")
    p = scenario.precision
    labels = token_labels(scenario.row_tokens)
    title = visible(scenario.title).strip() or "Untitled scenario"
    title += {"worksheet": " — worksheet", "answers": " — answer key"}.get(sheet, "")
    blocks: list[str] = [_heading(1, title)]
    if sheet == "worksheet":
        blocks.append(_escape("Fill in every " + BLANK + " from the inputs, step by step. Name: "
                              + "_" * 20 + "  Date: " + "_" * 12))
    elif sheet == "answers":
        blocks.append(_escape("The answers to the worksheet of the same name: " +
                              ", ".join(stage.title for stage in attention.steps if stage.name in blanks) + "."))
    if scenario.description.strip() and sheet != "worksheet":  # a description may tell the answers
        blocks.append(_paragraphs(visible(scenario.description.strip(), multiline=True)))
    shape = _escape(summary_line(scenario, with_file=False).split(" · ", 1)[1])
    keys = ", ".join(_quoted(token) for token in token_labels(scenario.tokens))
    if scenario.cross:
        queries = ", ".join(_quoted(token) for token in labels)
        blocks.append(f"Queries ({scenario.T}): {queries} · keys ({scenario.T_k}): {keys} · {shape}")
    else:
        blocks.append(f"Tokens ({scenario.T}): {keys} · {shape}")

    blocks.append(_heading(2, "Inputs"))
    blocks += input_tables(scenario)
    if scenario.kind == "projection":
        for h in range(scenario.heads):
            for name, values in (("Q", attention.inputs.Q_before_rotation(h)),
                                 ("K", attention.inputs.K_before_rotation(h)), ("V", attention.head(h).V)):
                which = f" of {visible(scenario.head_names[h])}" if scenario.heads > 1 else ""
                rows_named = token_labels(scenario.row_tokens if name == "Q" else scenario.tokens)
                blocks += [_heading(3, f"{name}{which} ({ROLES[name]} = X·W{name.lower()}) {_shape(values)}"),
                           _table(values, rows_named, dims(values.shape[1]), decimals_needed(values, p))]

    everything = range(scenario.T)
    for number, stage in enumerate(attention.steps, 1):
        columns = column_labels(scenario, stage)
        cols = range(len(columns))
        for h in (range(scenario.heads) if stage.per_head else [0]):
            head = attention.head(h)
            every_row = range(stage.row_count(scenario))
            values = attention.values(stage.name, h, every_row, cols)
            extra = tuple((item.label, item.values(head, everything)) for item in stage.summaries)
            title = stage_title(stage, scenario, number, attention.options)
            if stage.per_head and scenario.heads > 1:
                title += f" [{visible(scenario.head_names[h])}]"
            blocked = attention.blocked(everything, cols) if stage.masks or stage.masked_given else None
            blank = None
            if stage.name in hide:  # a masked cell (−∞, a weight of 0) is given, not asked
                blank = ~blocked if stage.masked_given else np.ones(values.shape, bool)
            blocks += [_heading(2, title),
                       _table(values, row_labels(scenario, stage), columns, attention.stage_decimals(stage.name, h),
                              blocked=blocked if stage.masks else (
                                  stage.skipped(attention, h, everything, cols) if stage.skipped else None),
                              blocked_text=stage.skipped_text if stage.skipped else None,
                              mask_value=attention.options.mask_value, extra=extra,
                              corner=QUERY_KEY_HEAD if stage.columns == KEYS else "token",
                              empty=attention.empty(everything) if stage.empty_rows else None,
                              blank=blank)]

    for row in shown_rows:
        blocks.append(_heading(2, f"Row {row + 1}, \"{labels[row]}\", step by step"))
        for stage in attention.steps:
            for h in (range(scenario.heads) if stage.per_head else [0]):
                explanation = explain(attention, stage.name, row, fold=None, head=h)
                prefix = f"[{visible(scenario.head_names[h])}] " if stage.per_head and scenario.heads > 1 else ""
                if stage.name in hide:  # its arithmetic would give the answer away
                    heading = explanation.title.split(":")[0] + ": " + stage.heading(scenario, attention.options)
                    blocks += [_heading(3, prefix + heading),
                               _escape(f"Work it out for \"{labels[row]}\" and write it in the table above.")]
                    continue
                blocks += [_heading(3, prefix + explanation.title),
                           _code_block([visible(line.plain()) for line in explanation.lines])]

    largest_weight = summary("max_weight")
    owner = next(stage for stage in attention.steps if largest_weight in stage.summaries)
    if scenario.variants and owner.name not in hide:  # the variants' largest weights would tell
        names = [variant.name for variant in scenario.variants]
        for h in range(scenario.heads):
            largest = {name: largest_weight.values(attentions[name].head(h), everything) for name in names}
            table_rows = [[fixed(float(largest[name][i]), p) for name in names] for i in everything]
            which = f" [{visible(scenario.head_names[h])}]" if scenario.heads > 1 else ""
            blocks += [_heading(2, "Variants: each row's largest weight" + which),
                       _grid(["token", *(visible(name) for name in names)],
                             [[label, *cells] for label, cells in zip(labels, table_rows)], numeric_from=1)]
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


def input_tables(scenario: Scenario, most: int | None = None) -> list[str]:
    """A heading and a table for each input matrix, a per-head matrix one for each head; a
    matrix of more than ``most`` numbers is named, not printed (a handout is read on paper)."""
    tokens = token_labels(scenario.row_tokens) + token_labels(scenario.tokens)
    blocks = []
    for name in scenario.editable:
        array = scenario.inputs[name]
        rows, columns = input_labels(scenario, name)
        for h, values in ([(None, array)] if array.ndim == 2 else list(enumerate(array))):
            which = "" if h is None else f" of {visible(scenario.head_names[h])}"
            blocks.append(_heading(3, f"{name}{which} ({ROLES[name]}) {_shape(values)}"))
            if most is not None and values.size > most:
                blocks.append(_escape(f"{values.shape[0]:,} × {values.shape[1]:,} = {values.size:,} numbers: too "
                                      f"many to print here (at most {most:,} a matrix); the scenario file has them"))
                continue
            blocks.append(_table(values, rows, columns, decimals_needed(values, scenario.precision),
                                 corner="token" if rows[0] in tokens else "row"))
    return blocks


def _table(values: np.ndarray, rows, columns, decimals: int,
           blocked: np.ndarray | None = None, mask_value: float = float("-inf"),
           extra: tuple[tuple[str, np.ndarray], ...] = (), corner: str = "token",
           empty: np.ndarray | None = None, blank: np.ndarray | None = None,
           blocked_text: str | None = None) -> str:
    """A labelled matrix: one table row per matrix row, masked cells as the mask value, a row
    that sees nothing as dashes, and ``blank`` cells (a worksheet's) as a line to write on."""
    def cells(i: int) -> list[str]:
        if empty is not None and empty[i]:
            return ["—"] * (values.shape[1] + len(extra))
        texts = fixed_row(values[i], decimals)
        if blocked is not None:
            for j in np.flatnonzero(blocked[i]):
                texts[j] = blocked_text or mask_text(mask_value)
        if blank is not None:
            texts = [BLANK if blank[i, j] else text for j, text in enumerate(texts)]
            return texts + [BLANK for _ in extra]
        return texts + [fixed(float(column[i]), decimals) for _, column in extra]

    body = [[label, *cells(i)] for i, label in enumerate(rows)]
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


def _shape(array: np.ndarray) -> str:
    return f"({array.shape[-2]}×{array.shape[-1]})"
