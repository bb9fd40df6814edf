"""``--json``: every stage of a scenario as one strict RFC 8259 object, written row block by row
block so that memory stays flat however large T is.

A masked cell is ``null`` (so is an infinite ``mask_value``), a row that can see no key has
``null`` weights and output, and no ``NaN`` or ``Infinity`` is ever written. Numbers are written
at full float64 precision (Python's shortest round-trip ``repr``), the same bits the app shows.
A single-head scenario keeps the shape it always had; a multi-head one has ``heads`` (one
object per head with the single-head keys), ``concat``, ``output`` (after Wo) and ``inputs``.
"""

from __future__ import annotations

import json
import math
from typing import Iterator

import numpy as np

from attn_tui.core.engine.attention import BLOCK, Attention, Head
from attn_tui.core.engine.stages.backward_steps import has_loss, loss
from attn_tui.core.model.scenario import Scenario

_NULL_MARK = -math.inf  # blocked cells become -inf, which is then written as null


def json_chunks(
    scenario: Scenario,
    comparison: dict | None = None,
    attentions: dict[str, Attention] | None = None,
) -> Iterator[str]:
    """The document as pieces of text; joined, they are one JSON object."""
    if attentions is None:
        from attn_tui.core.model.heads import HeadInputs

        inputs = HeadInputs(scenario)
        attentions = {"": Attention(scenario, inputs=inputs)}
        for variant in scenario.variants:
            attentions[variant.name] = Attention(
                scenario, variant.options(scenario.options), inputs
            )
    attention = attentions[""]
    # training first: a run that fails (a learning rate too large) is refused before any output
    trained = {name: _trained(scenario, other.options) for name, other in attentions.items()}
    head_fields = {
        "title": scenario.title,
        "description": scenario.description,
        "tokens": list(scenario.tokens),
    }
    if scenario.cross:
        head_fields["query_tokens"] = list(scenario.query_tokens)
    head_fields.update(focus=scenario.row_tokens[scenario.focus], precision=scenario.precision)
    yield json.dumps(head_fields)[:-1]
    # a file that says heads: is read per head
    per_head = scenario.multi_head or scenario.heads_written
    if per_head:
        yield from _heads_and_after(attention)
        yield ', "inputs": '
        yield json.dumps({name: array.tolist() for name, array in scenario.inputs.items()})
    else:
        yield ", "
        yield from _head_fields(attention.head(0), nested=False)
        if scenario.kind == "projection":
            yield ', "inputs": '
            yield json.dumps({name: array.tolist() for name, array in scenario.inputs.items()})
    if has_loss(scenario):
        yield from _backward(attention, per_head)
        yield from _training(trained[""])
    if scenario.variants:
        yield ', "variants": ['
        for number, variant in enumerate(scenario.variants):
            yield ", " if number else ""
            yield json.dumps({"name": variant.name})[:-1] + ", "
            other = attentions[variant.name]
            if per_head:  # the same shape as the scenario's own: every head, then after them
                yield from _heads_and_after(other, first=True)
            else:
                yield from _head_fields(other.head(0), nested=False)
            if has_loss(scenario):
                yield from _backward(other, per_head)
                yield from _training(trained[variant.name])
            yield "}"
        yield "]"
    if comparison is not None:
        yield ', "comparison": ' + json.dumps(comparison, allow_nan=False)
    yield "}\n"


def _heads_and_after(attention: Attention, first: bool = False) -> Iterator[str]:
    """``heads`` (an object per head), then each stage after the heads under its key, and
    ``output``: the last stage's values, the layer's output."""
    scenario = attention.scenario
    yield ("" if first else ", ") + '"heads": ['
    for h in range(scenario.heads):
        yield "," if h else ""
        yield json.dumps({"name": scenario.head_names[h]})[:-1] + ", "
        yield from _head_fields(attention.head(h))
        yield "}"
    yield "]"
    after = [
        stage
        for stage in attention.steps
        if not stage.arithmetic.per_head and not stage.arithmetic.backward
    ]
    for stage in after:
        yield f', "{stage.key}": '
        yield from _stage_matrix(attention, stage, None)
    if not after or after[-1].key != "output":  # (one head, no Wo: the head's own output)
        yield ', "output": '
        yield from _stage_matrix(
            attention, after[-1] if after else attention.steps[-1], None if after else 0
        )


def _head_fields(head: Head, nested: bool = True) -> Iterator[str]:
    """The single-head keys, from ``d_k`` to ``diagnostics``, without the braces: the options,
    the head's inputs, then every stage of the head under its key (each with its extras first)."""
    attention = head.attention
    scenario, options = attention.scenario, attention.options
    T = scenario.T
    yield json.dumps(
        {
            "d_k": scenario.d_k,
            "d_v": scenario.d_v,
            "causal": options.causal,
            "divisor": attention.divisor,
            "mask_value": None if math.isinf(options.mask_value) else options.mask_value,
            "Q": head.Q.tolist(),
            "K": head.K.tolist(),
            "V": head.V.tolist(),
        }
    )[1:-1]
    steps = [
        stage
        for stage in attention.steps
        if stage.arithmetic.per_head and not stage.arithmetic.backward
    ]
    for stage in steps:
        for extra in stage.reported.extras:
            if not extra.applies(scenario):
                continue
            yield f', "{extra.name}": '
            if extra.per_row:
                yield from _vector(
                    lambda rows, extra=extra: extra.values(head, rows), T, attention.empty
                )
            else:
                yield from _matrix(
                    lambda rows, extra=extra: extra.values(head, rows),
                    T,
                    empty=attention.empty if extra.empty_rows else None,
                )
        yield f', "{stage.key}": '
        if stage.reported.json_rows is not None:
            yield from _rows(lambda rows, stage=stage: stage.reported.json_rows(head, rows), T)
        else:
            yield from _stage_matrix(attention, stage, head.h)
    if nested and has_loss(scenario):
        yield ', "backward": {'
        yield from _head_backward(head)
        yield "}"
    summaries = [summary for stage in steps for summary in stage.reported.summaries]
    if not summaries:
        return
    yield ', "diagnostics": ['
    for start in range(0, T, BLOCK):
        rows = range(start, min(start + BLOCK, T))
        found = [summary.values(head, rows) for summary in summaries]
        items = [
            None
            if empty
            else {summary.name: float(values[k]) for summary, values in zip(summaries, found)}
            for k, empty in enumerate(attention.empty(rows))
        ]
        yield ("," if start else "") + json.dumps(items, allow_nan=False)[1:-1]
    yield "]"


def _head_backward(head: Head) -> Iterator[str]:
    """A head's backward steps that --json writes (Stage.in_json), each under its key, without
    braces."""
    attention = head.attention
    first = True
    for stage in attention.steps:
        if (
            not (stage.arithmetic.per_head and stage.arithmetic.backward)
            or not stage.reported.in_json
        ):
            continue
        for extra in stage.reported.extras:
            if not extra.applies(attention.scenario):
                continue
            yield ("" if first else ", ") + f'"{extra.name}": '
            yield from _vector(
                lambda rows, extra=extra: extra.values(head, rows),
                attention.T,
                lambda rows: [False] * len(rows),
            )
            first = False
        yield ("" if first else ", ") + f'"{stage.key}": '
        yield from _stage_matrix(attention, stage, head.h)
        first = False


def _backward(attention: Attention, per_head: bool) -> Iterator[str]:
    """``backward``: the loss (null for a gradient given), dL/d output and dL/d every input (and,
    for a scenario written as one head, the head's own backward steps)."""
    back = attention.backward
    yield ', "backward": {"loss": ' + json.dumps(back.loss(), allow_nan=False) + ', "d_output": '
    yield from _matrix(lambda rows: back.d_output()[rows.start : rows.stop], attention.T)
    for name, values in back.inputs().items():
        yield f', "d_{name}": '
        if values.ndim == 3:
            yield "[" + ", ".join(_whole(part) for part in values) + "]"
        else:
            yield _whole(values)
    if not per_head:
        yield ", "
        yield from _head_backward(attention.head(0))
    yield "}"


def _trained(scenario: Scenario, options):
    setting = loss(scenario)
    if setting is None or setting.train is None:
        return None
    from attn_tui.core.engine.training import train

    return train(scenario, options)


def _training(found) -> Iterator[str]:
    """``training``: the loss before any step and after each, and every learned matrix at the
    end."""
    if found is None:
        return
    yield ', "training": {"loss": ' + json.dumps(found.losses, allow_nan=False) + ', "learned": {'
    yield ", ".join(f'"{name}": {_whole(values)}' for name, values in found.learned.items()) + "}}"


def _whole(values: np.ndarray) -> str:
    text = json.dumps(values.tolist(), allow_nan=True)
    _refuse_non_finite(text)
    return text


def _stage_matrix(attention: Attention, stage, h: int | None) -> Iterator[str]:
    """A stage's matrix: a masked cell null (whatever the mask value), a row that sees nothing
    null."""
    cols = range(stage.column_count(attention.scenario))

    def rows_of(rows: range):
        values = attention.values(stage.name, h, rows, cols)
        return (
            np.where(attention.blocked(rows, cols), _NULL_MARK, values)
            if stage.arithmetic.masks
            else values
        )

    yield from _matrix(
        rows_of,
        stage.row_count(attention.scenario),
        empty=attention.empty if stage.arithmetic.empty_rows else None,
    )


def _matrix(rows_of, T: int, empty=None) -> Iterator[str]:
    """A matrix as a JSON list of rows, a block of rows at a time; -inf cells and the rows
    ``empty`` marks become null."""
    yield "["
    for start in range(0, T, BLOCK):
        rows = range(start, min(start + BLOCK, T))
        block = rows_of(rows)
        text = json.dumps(block.tolist(), allow_nan=True)[1:-1].replace("-Infinity", "null")
        if empty is not None and empty(rows).any():
            items = [None if e else row for e, row in zip(empty(rows), block.tolist())]
            text = json.dumps(items, allow_nan=True)[1:-1].replace("-Infinity", "null")
        _refuse_non_finite(text)
        yield ("," if start else "") + text
    yield "]"


def _rows(items_of, T: int) -> Iterator[str]:
    """A JSON list of one value per row, a block of rows at a time."""
    yield "["
    for start in range(0, T, BLOCK):
        items = items_of(range(start, min(start + BLOCK, T)))
        yield ("," if start else "") + json.dumps(items, allow_nan=False)[1:-1]
    yield "]"


def _vector(values_of, T: int, empty) -> Iterator[str]:
    yield "["
    for start in range(0, T, BLOCK):
        rows = range(start, min(start + BLOCK, T))
        items = [None if e else float(v) for e, v in zip(empty(rows), values_of(rows))]
        yield ("," if start else "") + json.dumps(items, allow_nan=False)[1:-1]
    yield "]"


def _refuse_non_finite(text: str) -> None:
    if "NaN" in text or "Infinity" in text:
        raise ValueError("a stage left float64's range (NaN or infinity): not valid JSON")


def to_json(scenario: Scenario, comparison: dict | None = None) -> dict:
    """The document as a Python object (for tests and small scenarios)."""
    return json.loads("".join(json_chunks(scenario, comparison)))
