"""The walk-through as GitHub-flavoured Markdown, for a handout: the sibling of ``to_text``.

The same sections as ``core.outputs.report.to_text`` — inputs, every stage's matrix, the arithmetic of
the focus row, the variants side by side — with each matrix as a GFM table and each step's
arithmetic in a fenced code block (its lines are aligned by spaces and hold characters such as
``×``, ``√`` and ``−∞`` that Markdown would otherwise reflow or misread). Numbers are formatted
by ``core.numbers`` exactly as ``--print`` formats them, so a handout and the terminal agree.
"""

from __future__ import annotations

import re
from typing import Iterator

import numpy as np

from attn_tui.core.engine.attention import Attention
from attn_tui.core.engine.explanation import explain
from attn_tui.core.engine.stages import (
    KEYS,
    column_labels,
    gives_away,
    row_labels,
    stage_keyed,
    stages_for,
    summary,
)
from attn_tui.core.model.labels import ROLES, dims, input_labels, token_labels
from attn_tui.core.model.scenario import Scenario
from attn_tui.core.numbers import decimals_needed, fixed, fixed_row, mask_text
from attn_tui.core.outputs.report import attentions_of, stage_title, summary_line, training_note
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
ROWS_AT_A_TIME = 64  # a table's rows computed and formatted at once


def worksheet_blanks(scenario: Scenario) -> set[str]:
    """The stages a worksheet leaves blank: those under ``predict:`` (when the scenario predicts
    none, every stage after the first a student could give — after Score), and every stage
    computed from them, which would give them away."""
    stages = stages_for(scenario)
    first = next(n for n, stage in enumerate(stages) if stage.predictable)
    predicted = {stage_keyed(key).name for key in scenario.predict} or {
        stage.name for stage in stages[first + 1 :]
    }
    return {stage.name for stage in stages if gives_away(stage.name, stages) & predicted}


def to_markdown(
    scenario: Scenario,
    rows: list[int] | None = None,
    attentions: dict[str, Attention] | None = None,
    sheet: str | None = None,
) -> str:
    """The walk-through of ``scenario`` as GitHub-flavoured Markdown (:func:`markdown_chunks`
    joined)."""
    return "".join(markdown_chunks(scenario, rows, attentions, sheet))


def markdown_chunks(
    scenario: Scenario,
    rows: list[int] | None = None,
    attentions: dict[str, Attention] | None = None,
    sheet: str | None = None,
    extras: bool = True,
) -> Iterator[str]:
    """The walk-through of ``scenario`` as GitHub-flavoured Markdown, in pieces: a stage's table
    is computed and formatted a block of rows at a time, as ``--print`` does, so a handout of
    T = 8,192 never holds a T × T matrix or its text whole.

    A heading with the title, the description, the shapes and options; then the inputs and each
    stage (of each head) as a table with token labels; then the arithmetic of the focus row, or
    of each of ``rows`` (0-based), stage by stage; then, for a scenario with variants, each
    row's largest weight under every variant. Every text from the scenario is made visible and
    escaped, so a token such as ``a|b``, ``*`` or one holding an escape byte cannot break a
    table, a heading or a terminal.

    ``sheet="worksheet"`` leaves the stages of :func:`worksheet_blanks` as blanks to fill in
    (``____``; a masked weight is 0 and is printed), with no number anywhere that gives one
    away; ``sheet="answers"`` is the matching answer key: the same sections, filled in.
    ``extras=False`` leaves out the columns a stage's table adds beside its matrix (softmax's
    max and entropy), so that a worksheet asks for the weights alone (issue 50).
    """
    shown_rows = list(rows) if rows is not None else [scenario.focus]
    for row in shown_rows:
        if not 0 <= row < scenario.T:
            raise ValueError(f"row {row} is out of range: rows are 0 to {scenario.T - 1}")
    # Every block stands alone between blank lines: headings, tables and fences need them.
    for n, block in enumerate(
        _blocks(scenario, shown_rows, attentions or attentions_of(scenario), sheet, extras)
    ):
        if n:
            yield "\n\n"
        if isinstance(block, str):
            yield block
        else:
            yield from block
    yield "\n"


def _blocks(
    scenario: Scenario,
    shown_rows: list[int],
    attentions: dict[str, Attention],
    sheet: str | None,
    extras: bool = True,
) -> Iterator[str | Iterator[str]]:
    """The document's blocks in order: text, or a table as an iterator of its pieces."""
    attention = attentions[""]
    blanks = worksheet_blanks(scenario) if sheet is not None else set()
    hide = blanks if sheet == "worksheet" else set()
    p = scenario.precision
    labels = token_labels(scenario.row_tokens)
    title = visible(scenario.title).strip() or "Untitled scenario"
    title += {"worksheet": " — worksheet", "answers": " — answer key"}.get(sheet, "")
    yield _heading(1, title)
    if sheet == "worksheet":
        yield _escape(
            "Fill in every "
            + BLANK
            + " from the inputs, step by step. Name: "
            + "_" * 20
            + "  Date: "
            + "_" * 12
        )
    elif sheet == "answers":
        yield _escape(
            "The answers to the worksheet of the same name: "
            + ", ".join(stage.title for stage in attention.steps if stage.name in blanks)
            + "."
        )
    if scenario.description.strip() and sheet != "worksheet":  # a description may tell the answers
        yield _paragraphs(visible(scenario.description.strip(), multiline=True))
    shape = _escape(summary_line(scenario, with_file=False).split(" · ", 1)[1])
    keys = ", ".join(_quoted(token) for token in token_labels(scenario.tokens))
    if scenario.cross:
        queries = ", ".join(_quoted(token) for token in labels)
        yield f"Queries ({scenario.T}): {queries} · keys ({scenario.T_k}): {keys} · {shape}"
    else:
        yield f"Tokens ({scenario.T}): {keys} · {shape}"
    if training_note(scenario):
        yield _escape(training_note(scenario))

    yield _heading(2, "Inputs")
    yield from _input_blocks(scenario)
    if scenario.kind == "projection":
        for h in range(scenario.heads):
            for name, values in (
                ("Q", attention.inputs.Q_before_rotation(h)),
                ("K", attention.inputs.K_before_rotation(h)),
                ("V", attention.head(h).V),
            ):
                which = f" of {visible(scenario.head_names[h])}" if scenario.heads > 1 else ""
                rows_named = token_labels(scenario.row_tokens if name == "Q" else scenario.tokens)
                yield _heading(
                    3, f"{name}{which} ({ROLES[name]} = X·W{name.lower()}) {_shape(values)}"
                )
                yield _table(
                    lambda r, values=values: values[r.start : r.stop],
                    len(values),
                    rows_named,
                    dims(values.shape[1]),
                    decimals_needed(values, p),
                    tiny=True,
                )

    for number, stage in enumerate(attention.steps, 1):
        for h in range(scenario.heads) if stage.per_head else [0]:
            title = stage_title(stage, scenario, number, attention.options, summaries=extras)
            if stage.per_head and scenario.heads > 1:
                title += f" [{visible(scenario.head_names[h])}]"
            yield _heading(2, title)
            yield _stage_table(attention, stage, h, stage.name in hide, extras)

    for row in shown_rows:
        yield _heading(2, f'Row {row + 1}, "{labels[row]}", step by step')
        for stage in attention.steps:
            for h in range(scenario.heads) if stage.per_head else [0]:
                explanation = explain(attention, stage.name, row, fold=None, head=h)
                prefix = (
                    f"[{visible(scenario.head_names[h])}] "
                    if stage.per_head and scenario.heads > 1
                    else ""
                )
                if stage.name in hide:  # its arithmetic would give the answer away
                    heading = (
                        explanation.title.split(":")[0]
                        + ": "
                        + stage.heading(scenario, attention.options)
                    )
                    yield _heading(3, prefix + heading)
                    yield _escape(
                        f'Work it out for "{labels[row]}" and write it in the table above.'
                    )
                    continue
                yield _heading(3, prefix + explanation.title)
                yield _code_block([visible(line.plain()) for line in explanation.lines])

    largest_weight = summary("max_weight")
    owner = next(stage for stage in attention.steps if largest_weight in stage.summaries)
    if scenario.variants and owner.name not in hide:  # the variants' largest weights would tell
        yield from _variant_blocks(scenario, attentions, largest_weight)


def _stage_table(
    attention: Attention, stage, h: int, hidden: bool, extras: bool = True
) -> Iterator[str]:
    """A stage's table; ``hidden``: a worksheet's blanks (a masked cell, −∞ or a weight of 0, is
    given, not asked); ``extras``: with the stage's summary columns (max, entropy) beside it."""
    scenario = attention.scenario
    head = attention.head(h)
    columns = column_labels(scenario, stage)
    cols = range(len(columns))
    blocked = (lambda r: attention.blocked(r, cols)) if stage.masks or stage.masked_given else None
    blank = None
    if hidden:
        blank = (
            (lambda r: ~blocked(r))
            if stage.masked_given
            else (lambda r: np.ones((len(r), len(cols)), bool))
        )
    shown_blocked = (
        blocked
        if stage.masks
        else ((lambda r: stage.skipped(attention, h, r, cols)) if stage.skipped else None)
    )
    return _table(
        lambda r: attention.values(stage.name, h, r, cols),
        stage.row_count(scenario),
        row_labels(scenario, stage),
        columns,
        attention.stage_decimals(stage.name, h),
        blocked=shown_blocked,
        blocked_text=stage.skipped_text if stage.skipped else None,
        mask_value=attention.options.mask_value,
        extra=tuple(
            (item.label, lambda r, item=item: item.values(head, r))
            for item in (stage.summaries if extras else ())
        ),
        corner=QUERY_KEY_HEAD if stage.columns == KEYS else "token",
        empty=attention.empty if stage.empty_rows else None,
        blank=blank,
        tiny=stage.tiny,
    )


def _variant_blocks(
    scenario: Scenario, attentions: dict[str, Attention], largest_weight
) -> Iterator[str]:
    p = scenario.precision
    labels = token_labels(scenario.row_tokens)
    everything = range(scenario.T)
    names = [variant.name for variant in scenario.variants]
    for h in range(scenario.heads):
        largest = {
            name: largest_weight.values(attentions[name].head(h), everything) for name in names
        }
        table_rows = [[fixed(float(largest[name][i]), p) for name in names] for i in everything]
        which = f" [{visible(scenario.head_names[h])}]" if scenario.heads > 1 else ""
        yield _heading(2, "Variants: each row's largest weight" + which)
        yield _grid(
            ["token", *(visible(name) for name in names)],
            [[label, *cells] for label, cells in zip(labels, table_rows)],
            numeric_from=1,
        )
    yield "\n".join(
        f"- {_escape(visible(variant.name))}: "
        f"{_escape(variant.options(scenario.options).describe(scenario.d_k))}"
        for variant in scenario.variants
    )


# ---- Markdown pieces ---------------------------------------------------------------------------


def _heading(level: int, text: str) -> str:
    return "#" * level + " " + _escape(_one_line(text))


def _paragraphs(text: str) -> str:
    """Free text as paragraphs: a blank line still separates two, each line is escaped alone."""
    return "\n".join(_escape(line.strip()) for line in text.splitlines())


def input_tables(scenario: Scenario, most: int | None = None) -> list[str]:
    """A heading and a table for each input matrix, a per-head matrix one for each head; a
    matrix of more than ``most`` numbers is named, not printed (a handout is read on paper)."""
    return [
        block if isinstance(block, str) else "".join(block)
        for block in _input_blocks(scenario, most)
    ]


def _input_blocks(scenario: Scenario, most: int | None = None) -> Iterator[str | Iterator[str]]:
    tokens = token_labels(scenario.row_tokens) + token_labels(scenario.tokens)
    for name in scenario.editable:
        array = scenario.inputs[name]
        rows, columns = input_labels(scenario, name)
        for h, values in [(None, array)] if array.ndim == 2 else list(enumerate(array)):
            which = "" if h is None else f" of {visible(scenario.head_names[h])}"
            yield _heading(3, f"{name}{which} ({ROLES[name]}) {_shape(values)}")
            if most is not None and values.size > most:
                yield _escape(
                    f"{values.shape[0]:,} × {values.shape[1]:,} = {values.size:,} numbers: too "
                    f"many to print here (at most {most:,} a matrix); the scenario file has them"
                )
                continue
            yield _table(
                lambda r, values=values: values[r.start : r.stop],
                len(values),
                rows,
                columns,
                decimals_needed(values, scenario.precision),
                corner="token" if rows[0] in tokens else "row",
                tiny=True,
            )


def _table(
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
    heads = [_cell(corner), *(_cell(text) for text in columns), *(_cell(name) for name, _ in extra)]
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
    label_width = max(3, len(heads[0]), *(len(_cell(label)) for label in rows))
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
            lines.append(line([_cell(rows[i]), *texts]))
        yield "\n" + "\n".join(lines)


def _grid(head: list[str], body: list[list[str]], numeric_from: int) -> str:
    """A GFM table. Cells before ``numeric_from`` are labels (escaped, left-aligned); the rest
    are numbers we formatted ourselves (right-aligned). The header is escaped whole: its
    names are tokens and variant names too. Columns are padded so the source reads as a grid."""
    head = [_cell(text) for text in head]
    body = [
        [_cell(text) if j < numeric_from else text for j, text in enumerate(row)] for row in body
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


def _quoted(token: str) -> str:
    return _escape(_quoted_raw(token))


def _quoted_raw(token: str) -> str:
    return f'"{_one_line(token)}"'


def _shape(array: np.ndarray) -> str:
    return f"({array.shape[-2]}×{array.shape[-1]})"
