"""``--print``: the chapter-style walk-through as text — the inputs, every stage's matrix with
token labels, then the arithmetic of the focus row (or of ``--row``) stage by stage, then the
variants side by side. It reads the same attention the app shows and is written a block of
rows at a time; every piece of text from the scenario is made visible first.
"""

from __future__ import annotations

from typing import Iterator

import numpy as np

from attn_tui.core.engine.attention import BLOCK, Attention
from attn_tui.core.engine.explanation import explain
from attn_tui.core.engine.stages import Stage, column_labels, row_labels, summary
from attn_tui.core.engine.stages.backward_steps import loss
from attn_tui.core.model.heads import HeadInputs
from attn_tui.core.model.labels import ROLES, dims, input_labels, token_labels
from attn_tui.core.model.scenario import Scenario
from attn_tui.core.numbers import LARGE, decimals_needed, fixed, fixed_rows, mask_text
from attn_tui.core.text import cells, fit, visible


def attentions_of(scenario: Scenario) -> dict[str, Attention]:
    """The scenario's attention under ``""`` and each variant's, sharing one set of inputs."""
    inputs = HeadInputs(scenario)
    found = {"": Attention(scenario, inputs=inputs)}
    for variant in scenario.variants:
        found[variant.name] = Attention(scenario, variant.options(scenario.options), inputs)
    return found


def to_text(scenario: Scenario, rows: list[int] | None = None) -> str:
    return "".join(text_chunks(scenario, rows))


def text_chunks(
    scenario: Scenario,
    rows: list[int] | None = None,
    attentions: dict[str, Attention] | None = None,
) -> Iterator[str]:
    """The walk-through as pieces of text (each ending in a newline)."""
    attentions = attentions or attentions_of(scenario)
    attention = attentions[""]
    p = scenario.precision
    title = visible(scenario.title)
    yield f"{title}\n{'=' * len(title)}\n"
    yield summary_line(scenario) + "\n"
    if training_note(scenario):
        yield training_note(scenario) + "\n"
    if scenario.description.strip():
        yield "\n" + visible(scenario.description.strip(), multiline=True) + "\n"

    yield "\nInputs\n"
    for name in scenario.editable:
        yield from _input(scenario, name)
    if scenario.kind == "projection":
        for h in range(scenario.heads):
            head = attention.head(h)
            for name, values in (
                ("Q", attention.inputs.Q_projected(h)),
                ("K", attention.inputs.K_projected(h)),
                ("V", head.V),
            ):
                labels = token_labels(scenario.row_tokens if name == "Q" else scenario.tokens)
                which = f" of {visible(scenario.head_names[h])}" if scenario.heads > 1 else ""
                title = f"{name}{which} ({ROLES[name]} = X·W{name.lower()}) {_shape(values)}"
                yield from _table(
                    title,
                    lambda r, values=values: values[r.start : r.stop],
                    len(values),
                    labels,
                    dims(values.shape[1]),
                    decimals_needed(values, p),
                    tiny=True,
                )

    for number, stage in enumerate(attention.steps, 1):  # with --row, only those rows: T × T never
        for h in range(scenario.heads) if stage.arithmetic.per_head else [0]:
            yield from _stage_table(attention, stage, number, h, rows)

    walked = rows if rows is not None else [scenario.focus]
    keys_after = []  # with every row asked for, the keys past the last query (cross-attention) too
    if rows is not None and len(rows) == scenario.T and scenario.T_k > scenario.T:
        keys_after = [stage for stage in attention.steps if stage.arithmetic.rows == "keys"]
    for row in [*walked, *range(scenario.T, scenario.T_k if keys_after else scenario.T)]:
        steps = attention.steps if row < scenario.T else keys_after
        if row < scenario.T:
            heading = f'Row {row + 1}, "{token_labels(scenario.row_tokens)[row]}", step by step'
        else:
            heading = (
                f'Key {row + 1}, "{token_labels(scenario.tokens)[row]}": '
                "the backward steps whose rows are keys"
            )
        yield f"\n{heading}\n{'-' * len(heading)}\n"
        for stage in steps:
            for h in range(scenario.heads) if stage.arithmetic.per_head else [0]:
                explanation = explain(attention, stage.name, row, fold=None, head=h)
                prefix = (
                    f"[{visible(scenario.head_names[h])}] "
                    if stage.arithmetic.per_head and scenario.heads > 1
                    else ""
                )
                # (every line made visible again: an explanation quotes names from the file)
                lines = [prefix + visible(explanation.title)] + [
                    visible(line.plain()) for line in explanation.lines
                ]
                yield "\n" + "\n".join(lines) + "\n"

    if scenario.variants:
        yield from _variants(scenario, attentions)


def summary_line(scenario: Scenario, with_file: bool = True) -> str:
    """``cat_sat.yaml · 3 tokens · d_k = 2 · d_v = 2 · causal · ÷√2 = 1.414 · mask −∞``."""
    tokens = f"{scenario.T} token{'s' if scenario.T != 1 else ''}"
    if scenario.cross:
        tokens = f"{scenario.T} queries × {scenario.T_k} keys"
    parts = [visible(scenario.display_name)] if with_file else []
    parts += [tokens, f"d_k = {scenario.d_k}", f"d_v = {scenario.d_v}"]
    if scenario.multi_head:
        parts.append(
            f"{scenario.heads} head{'s' if scenario.heads != 1 else ''}"
            + (f" ({scenario.kv_heads} key/value)" if scenario.kv_heads != scenario.heads else "")
        )
    parts.append(scenario.describe())
    return " · ".join(parts)


def training_note(scenario: Scenario) -> str | None:
    """What print and markdown say of a ``train:`` section: they show the scenario as written,
    before any step, and never take the steps (so a learning rate that overflows, which json
    and check refuse, does not stop them from showing the forward and backward passes)."""
    setting = loss(scenario)
    if setting is None or setting.train is None:
        return None
    steps = setting.train.steps
    return (
        f"Training: its {steps} step{'s are' if steps != 1 else ' is'} not taken here; this is the "
        "scenario before any step. attn-tui json and check take them (and refuse a learning "
        "rate that overflows); t in the app shows them."
    )


def stage_title(
    stage: Stage, scenario: Scenario, number: int, options, summaries: bool = True
) -> str:
    """A stage's heading, with what its summary columns mean (unless they are left out)."""
    text = f"Step {number} — {stage.title}: {stage.display.heading(scenario, options)}"
    if stage.reported.summaries and summaries:
        text += (
            " ("
            + ", ".join(
                f"{summary.label} = {summary.meaning}" for summary in stage.reported.summaries
            )
            + ")"
        )
    return text


def _input(scenario: Scenario, name: str) -> Iterator[str]:
    array = scenario.inputs[name]
    rows, columns = input_labels(scenario, name)
    p = scenario.precision
    heads = [(None, array)] if array.ndim == 2 else list(enumerate(array))
    for h, values in heads:
        which = "" if h is None else f" of {visible(scenario.head_names[h])}"
        yield from _table(
            f"{name}{which} ({ROLES[name]}) {_shape(values)}",
            lambda r, values=values: values[r.start : r.stop],
            len(values),
            rows,
            columns,
            decimals_needed(values, p),
            tiny=True,
        )


def _stage_table(
    attention: Attention, stage: Stage, number: int, h: int, only: list[int] | None = None
) -> Iterator[str]:
    scenario = attention.scenario
    head = attention.head(h)
    columns = column_labels(scenario, stage)
    cols = range(len(columns))
    decimals = attention.stage_decimals(stage.name, h)
    title = stage_title(stage, scenario, number, attention.options)
    if stage.arithmetic.per_head and scenario.heads > 1:
        title = f"{title} [{visible(scenario.head_names[h])}]"
    blocked = (lambda r: attention.blocked(r, cols)) if stage.arithmetic.masks else None
    if stage.arithmetic.skipped is not None:
        blocked = lambda r: stage.arithmetic.skipped(attention, h, r, cols)  # noqa: E731
    extra = tuple(
        (summary.label, lambda r, summary=summary: summary.values(head, r))
        for summary in stage.reported.summaries
    )
    empty = attention.empty if stage.arithmetic.empty_rows else None
    yield from _table(
        title,
        lambda r: attention.values(stage.name, h, r, cols),
        stage.row_count(scenario),
        row_labels(scenario, stage),
        columns,
        decimals,
        blocked,
        attention.options.mask_value,
        extra,
        empty,
        only,
        stage.display.skipped_text if stage.arithmetic.skipped is not None else None,
        stage.tiny,
    )


def _table(
    title: str,
    values_of,
    count: int,
    labels: tuple[str, ...],
    columns: tuple[str, ...],
    decimals: int,
    blocked_of=None,
    mask_value: float = -np.inf,
    extra=(),
    empty_of=None,
    only: list[int] | None = None,
    blocked_text: str | None = None,
    tiny: bool = True,
) -> Iterator[str]:
    """A labelled matrix (its rows ``only``, if given), its columns as wide as its widest number
    (found in a first pass over the values, so the text itself is formatted once, a block of
    rows at a time). With ``tiny`` (as the app's grid), a non-zero value that would read 0 is
    written with an exponent (1.0e−5, never 0)."""
    heads = list(columns) + [name for name, _ in extra]
    runs = (
        [range(start, min(start + BLOCK, count)) for start in range(0, count, BLOCK)]
        if only is None
        else [range(row, row + 1) for row in only]
    )
    low = high = 0.0
    tiny_or_huge = False
    smallest = np.inf  # the smallest non-zero magnitude that would read 0 (with ``tiny``)
    for run in runs:
        block = values_of(run)
        finite = block[np.isfinite(block)]
        if finite.size:
            low, high = min(low, float(finite.min())), max(high, float(finite.max()))
            tiny_or_huge |= bool(np.abs(finite).max() >= LARGE)
            if tiny:
                small = np.abs(finite[finite != 0])
                small = small[small < 0.5 * 10.0**-decimals]
                if small.size:
                    smallest = min(smallest, float(small.min()))
    samples = [fixed(low, decimals), fixed(high, decimals), "0." + "0" * decimals]
    shown_blocked = blocked_text or mask_text(mask_value)
    if blocked_of is not None:
        samples.append(shown_blocked)
    if tiny_or_huge:
        samples.append(fixed(-9.999e307, decimals))
    if smallest < np.inf:  # the widest such text: negative, with the longest exponent
        samples.append(fixed(-smallest, decimals, True))
    width = header_width(heads, max(len(text) for text in samples))
    label_width = max((cells(label) for label in labels), default=1)
    header = "  " + " " * label_width + "".join(f"  {fit(head, width)}" for head in heads)
    yield f"\n{title}\n{header}\n"
    nothing = "  ".join(["—".rjust(width)] * len(heads))
    for rows in runs:
        block = values_of(rows)
        blocked = blocked_of(rows) if blocked_of is not None else None
        empty = empty_of(rows) if empty_of is not None else np.zeros(len(rows), bool)
        extras = [values(rows) for _, values in extra]
        formatted = fixed_rows(block, decimals, width, blocked, shown_blocked, tiny)
        lines = []
        for k, i in enumerate(rows):
            if empty[k]:
                numbers = nothing
            else:
                numbers = "  ".join(
                    [
                        *([formatted[k]] if len(columns) else []),
                        *(fixed(float(e[k]), decimals, tiny).rjust(width) for e in extras),
                    ]
                )
            lines.append(f"  {fit(labels[i], label_width)}  {numbers}")
        yield "\n".join(lines) + "\n"


def _variants(scenario: Scenario, attentions: dict[str, Attention]) -> Iterator[str]:
    p = scenario.precision
    names = [variant.name for variant in scenario.variants]
    shown = [visible(name) for name in names]
    width = header_width(shown, 8)  # (each name is written out whole below the table)
    labels = token_labels(scenario.row_tokens)
    label_width = max(cells(label) for label in labels)
    everything = range(scenario.T)
    lines = []
    for h in range(scenario.heads):
        which = f" [{visible(scenario.head_names[h])}]" if scenario.heads > 1 else ""
        lines += [
            "",
            f"Variants: each row's largest weight{which}",
            "  " + " " * label_width + "".join(f"  {fit(name, width)}" for name in shown),
        ]
        largest = {
            name: summary("max_weight").values(attentions[name].head(h), everything)
            for name in names
        }
        for i, label in enumerate(labels):
            lines.append(
                f"  {fit(label, label_width)}"
                + "".join(f"  {fixed(float(largest[name][i]), p):>{width}}" for name in names)
            )
        from attn_tui.core.engine.stages.backward_steps import has_loss

        if has_loss(scenario):  # the backward pass: how much gradient reaches the scores
            from attn_tui.core.engine.backward import row_sizes
            from attn_tui.core.engine.gradient_sizes import sizes_compared

            lines += [
                "",
                f"Variants: each row's ‖dS‖, the gradient reaching its scores{which}",
                "  " + " " * label_width + "".join(f"  {fit(name, width)}" for name in shown),
            ]
            sizes = {name: row_sizes(attentions[name], h) for name in names}
            for i, label in enumerate(labels):
                lines.append(
                    f"  {fit(label, label_width)}"
                    + "".join(
                        f"  {fixed(float(sizes[name][i]), p, True):>{width}}" for name in names
                    )
                )
            lines.append("  " + sizes_compared(attentions, names, h, p))
    for variant, name in zip(scenario.variants, shown):
        lines.append(f"  {name}: {variant.options(scenario.options).describe(scenario.d_k)}")
    yield "\n".join(lines) + "\n"


HEADER_CELLS = 12  # a column header (a key's token) is clipped past this or its numbers' width: a
# tile of keys, "k16257–16384", stays whole


def header_width(heads, numbers: int) -> int:
    """The width of a table's columns: its numbers', or its widest header's up to
    ``HEADER_CELLS``. A longer header is clipped (``fit``), so that one long token does not
    widen every column; the row labels stay whole, as the only place the table names a row in
    full (a long one widens its own label column, not the numbers), and the walk names every
    token whole."""
    return max(
        numbers, min(max((cells(head) for head in heads), default=0), max(numbers, HEADER_CELLS))
    )


def _shape(array: np.ndarray) -> str:
    return f"({array.shape[-2]}×{array.shape[-1]})"
