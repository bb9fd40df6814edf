"""The walk-through as GitHub-flavoured Markdown, for a handout: the sibling of ``to_text``.

The same sections as ``core.outputs.report.to_text`` — inputs, every stage's matrix, the
arithmetic of the focus row, the variants side by side — with each matrix as a GFM table and each
step's arithmetic in a fenced code block (its lines are aligned by spaces and hold characters
such as ``×``, ``√`` and ``−∞`` that Markdown would otherwise reflow or misread). Numbers are
formatted by ``core.numbers`` exactly as ``--print`` formats them, so a handout and the terminal
agree. The Markdown itself (escaping, tables, fences) is written by
``core.outputs.markdown_syntax``.
"""

from __future__ import annotations

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
from attn_tui.core.numbers import decimals_needed, fixed
from attn_tui.core.outputs.markdown_syntax import (
    BLANK,
    code_block,
    escape,
    grid,
    heading,
    matrix_table,
    paragraphs,
    quoted,
)
from attn_tui.core.outputs.report import attentions_of, stage_title, summary_line, training_note
from attn_tui.core.text import visible

# The header of a query × key table's first column: rows are queries, columns are keys.
QUERY_KEY_HEAD = "query ↓ · key →"


def worksheet_blanks(scenario: Scenario) -> set[str]:
    """The stages a worksheet leaves blank: those under ``predict:`` (when the scenario predicts
    none, every stage after the first a student could give — after Score), and every stage
    computed from them, which would give them away."""
    stages = stages_for(scenario)
    first = next(n for n, stage in enumerate(stages) if stage.teaching.predictable)
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
    max and entropy), so that a worksheet asks for the weights alone.
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
    yield heading(1, title)
    if sheet == "worksheet":
        yield escape(
            "Fill in every "
            + BLANK
            + " from the inputs, step by step. Name: "
            + "_" * 20
            + "  Date: "
            + "_" * 12
        )
    elif sheet == "answers":
        yield escape(
            "The answers to the worksheet of the same name: "
            + ", ".join(stage.title for stage in attention.steps if stage.name in blanks)
            + "."
        )
    if scenario.description.strip() and sheet != "worksheet":  # a description may tell the answers
        yield paragraphs(visible(scenario.description.strip(), multiline=True))
    shape = escape(summary_line(scenario, with_file=False).split(" · ", 1)[1])
    keys = ", ".join(quoted(token) for token in token_labels(scenario.tokens))
    if scenario.cross:
        queries = ", ".join(quoted(token) for token in labels)
        yield f"Queries ({scenario.T}): {queries} · keys ({scenario.T_k}): {keys} · {shape}"
    else:
        yield f"Tokens ({scenario.T}): {keys} · {shape}"
    if training_note(scenario):
        yield escape(training_note(scenario))

    yield heading(2, "Inputs")
    yield from _input_blocks(scenario)
    if scenario.kind == "projection":
        for h in range(scenario.heads):
            for name, values in (
                ("Q", attention.inputs.Q_projected(h)),
                ("K", attention.inputs.K_projected(h)),
                ("V", attention.head(h).V),
            ):
                which = f" of {visible(scenario.head_names[h])}" if scenario.heads > 1 else ""
                rows_named = token_labels(scenario.row_tokens if name == "Q" else scenario.tokens)
                yield heading(
                    3, f"{name}{which} ({ROLES[name]} = X·W{name.lower()}) {_shape(values)}"
                )
                yield matrix_table(
                    lambda r, values=values: values[r.start : r.stop],
                    len(values),
                    rows_named,
                    dims(values.shape[1]),
                    decimals_needed(values, p),
                    tiny=True,
                )

    for number, stage in enumerate(attention.steps, 1):
        for h in range(scenario.heads) if stage.arithmetic.per_head else [0]:
            title = stage_title(stage, scenario, number, attention.options, summaries=extras)
            if stage.arithmetic.per_head and scenario.heads > 1:
                title += f" [{visible(scenario.head_names[h])}]"
            yield heading(2, title)
            yield _stage_table(attention, stage, h, stage.name in hide, extras)

    for row in shown_rows:
        yield heading(2, f'Row {row + 1}, "{labels[row]}", step by step')
        for stage in attention.steps:
            for h in range(scenario.heads) if stage.arithmetic.per_head else [0]:
                explanation = explain(attention, stage.name, row, fold=None, head=h)
                prefix = (
                    f"[{visible(scenario.head_names[h])}] "
                    if stage.arithmetic.per_head and scenario.heads > 1
                    else ""
                )
                if stage.name in hide:  # its arithmetic would give the answer away
                    hidden_title = (
                        explanation.title.split(":")[0]
                        + ": "
                        + stage.display.heading(scenario, attention.options)
                    )
                    yield heading(3, prefix + hidden_title)
                    yield escape(
                        f'Work it out for "{labels[row]}" and write it in the table above.'
                    )
                    continue
                yield heading(3, prefix + explanation.title)
                yield code_block([visible(line.plain()) for line in explanation.lines])

    largest_weight = summary("max_weight")
    owner = next(stage for stage in attention.steps if largest_weight in stage.reported.summaries)
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
    blocked = (
        (lambda r: attention.blocked(r, cols))
        if stage.arithmetic.masks or stage.teaching.masked_given
        else None
    )
    blank = None
    if hidden:
        blank = (
            (lambda r: ~blocked(r))
            if stage.teaching.masked_given
            else (lambda r: np.ones((len(r), len(cols)), bool))
        )
    shown_blocked = (
        blocked
        if stage.arithmetic.masks
        else (
            (lambda r: stage.arithmetic.skipped(attention, h, r, cols))
            if stage.arithmetic.skipped
            else None
        )
    )
    return matrix_table(
        lambda r: attention.values(stage.name, h, r, cols),
        stage.row_count(scenario),
        row_labels(scenario, stage),
        columns,
        attention.stage_decimals(stage.name, h),
        blocked=shown_blocked,
        blocked_text=stage.display.skipped_text if stage.arithmetic.skipped else None,
        mask_value=attention.options.mask_value,
        extra=tuple(
            (item.label, lambda r, item=item: item.values(head, r))
            for item in (stage.reported.summaries if extras else ())
        ),
        corner=QUERY_KEY_HEAD if stage.arithmetic.columns == KEYS else "token",
        empty=attention.empty if stage.arithmetic.empty_rows else None,
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
        yield heading(2, "Variants: each row's largest weight" + which)
        yield grid(
            ["token", *(visible(name) for name in names)],
            [[label, *cells] for label, cells in zip(labels, table_rows)],
            numeric_from=1,
        )
    yield "\n".join(
        f"- {escape(visible(variant.name))}: "
        f"{escape(variant.options(scenario.options).describe(scenario.d_k))}"
        for variant in scenario.variants
    )


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
            yield heading(3, f"{name}{which} ({ROLES[name]}) {_shape(values)}")
            if most is not None and values.size > most:
                yield escape(
                    f"{values.shape[0]:,} × {values.shape[1]:,} = {values.size:,} numbers: too "
                    f"many to print here (at most {most:,} a matrix); the scenario file has them"
                )
                continue
            yield matrix_table(
                lambda r, values=values: values[r.start : r.stop],
                len(values),
                rows,
                columns,
                decimals_needed(values, scenario.precision),
                corner="token" if rows[0] in tokens else "row",
                tiny=True,
            )


def _shape(array: np.ndarray) -> str:
    return f"({array.shape[-2]}×{array.shape[-1]})"
