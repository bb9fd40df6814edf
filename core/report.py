"""The headless views of a scenario: ``--json`` (every stage, machine-readable) and ``--print``
(the chapter-style walk-through as text). Both read the same traces the TUI shows."""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import numpy as np

from attn_tui.core.attention import STAGE_TITLES, STAGES, Trace, compute_all
from attn_tui.core.explanation import explain
from attn_tui.core.numbers import decimals_needed, fixed, mask_text
from attn_tui.core.scenario import Scenario
from attn_tui.core.stages import stage_heading
from attn_tui.core.text import visible


def to_json(scenario: Scenario, traces: dict[str, Trace] | None = None) -> dict[str, Any]:
    """Every stage as lists of rows at full float64 precision; a masked cell is ``None`` (null),
    and so is an infinite ``mask_value``, so the result is strict RFC 8259 JSON."""
    traces = traces or compute_all(scenario)
    document: dict[str, Any] = {
        "title": scenario.title,
        "description": scenario.description,
        "tokens": list(scenario.tokens),
        "focus": scenario.tokens[scenario.focus],
        "precision": scenario.precision,
    }
    document.update(_trace_json(traces[""]))
    if scenario.kind == "projection":
        document["inputs"] = {name: array.tolist() for name, array in scenario.inputs.items()}
    if scenario.variants:
        document["variants"] = [{"name": variant.name, **_trace_json(traces[variant.name])}
                                for variant in scenario.variants]
    return document


def _trace_json(trace: Trace) -> dict[str, Any]:
    options = trace.options
    masked = np.where(trace.blocked, None, trace.masked).tolist()
    return {
        "d_k": trace.d_k,
        "d_v": trace.d_v,
        "causal": options.causal,
        "divisor": trace.divisor,
        "mask_value": None if math.isinf(options.mask_value) else options.mask_value,
        "Q": trace.Q.tolist(),
        "K": trace.K.tolist(),
        "V": trace.V.tolist(),
        "scores": trace.scores.tolist(),
        "scaled": trace.scaled.tolist(),
        "masked": masked,
        "row_max": trace.row_max.tolist(),
        "row_sum": trace.row_sum.tolist(),  # of exp(masked − row_max); weights × row_sum gives exp
        "weights": trace.weights.tolist(),
        "output": trace.output.tolist(),
        "diagnostics": [{"max_weight": float(m), "entropy": float(e)}
                        for m, e in zip(trace.max_weight, trace.entropy)],
    }


def to_text(scenario: Scenario, traces: dict[str, Trace] | None = None,
            rows: list[int] | None = None) -> str:
    """The walk-through: inputs, each stage's matrix with token labels, then the arithmetic of
    the focus row (or of ``rows``) stage by stage, then the variants side by side."""
    traces = visible_traces(traces or compute_all(scenario))
    trace = traces[""]
    p = scenario.precision
    tokens = list(trace.tokens)  # as a terminal may show them, as is all text from the file below
    title = visible(scenario.title)
    out: list[str] = [title, "=" * len(title)]
    tokens_count = f"{scenario.T} token{'s' if scenario.T != 1 else ''}"
    out.append(f"{visible(scenario.display_name)} · {tokens_count} · d_k = {scenario.d_k} · "
               f"d_v = {scenario.d_v} · {scenario.options.describe(scenario.d_k)}")
    if scenario.description:
        out += ["", visible(scenario.description.strip(), multiline=True)]

    out += ["", "Inputs"]
    dims = {name: [f"d{j + 1}" for j in range(array.shape[1])] for name, array in scenario.inputs.items()}
    for name in ("X", "Wq", "Wk", "Wv"):
        if name in scenario.inputs:
            labels = tokens if name == "X" else [f"x{i + 1}" for i in range(scenario.inputs[name].shape[0])]
            out += _matrix(f"{name} {_shape(scenario.inputs[name])}", scenario.inputs[name], labels,
                           dims[name], decimals_needed(scenario.inputs[name], p))
    derived = " = X·W" if scenario.kind == "projection" else ""
    for name, role in (("Q", "queries"), ("K", "keys"), ("V", "values")):
        array = scenario.matrix(name)
        columns = [f"d{j + 1}" for j in range(array.shape[1])]
        out += _matrix(f"{name} ({role}{derived and derived + name[0].lower()}) {_shape(array)}",
                       array, tokens, columns, decimals_needed(array, p))

    for number, stage in enumerate(STAGES, 1):
        values = trace.stage(stage)
        columns = tokens if stage != "output" else [f"d{j + 1}" for j in range(trace.d_v)]
        decimals = decimals_needed(values, p) if stage == "score" else p
        extra = None
        if stage == "softmax":
            extra = (("max", trace.max_weight), ("H", trace.entropy))
        title = f"Step {number} — {STAGE_TITLES[stage]}: {stage_heading_with_columns(stage, trace)}"
        out += _matrix(title, values, tokens,
                       columns, decimals, trace.blocked if stage == "mask" else None,
                       trace.options.mask_value, extra)

    for row in rows if rows is not None else [scenario.focus]:
        title = f"Row {row + 1}, {tokens[row]!r}, step by step"
        out += ["", title, "-" * len(title)]
        for stage in STAGES:
            out += ["", explain(trace, stage, row, fold=None).plain()]

    if scenario.variants:
        out += ["", "Variants: each row's largest weight"]
        names = [variant.name for variant in scenario.variants]
        shown = [visible(name) for name in names]
        width = max(8, *(len(name) for name in shown))
        label_width = max(len(token) for token in tokens)
        out.append("  " + " " * label_width + "".join(f"  {name:>{width}}" for name in shown))
        for i, token in enumerate(tokens):
            cells = "".join(f"  {fixed(traces[name].max_weight[i], p):>{width}}" for name in names)
            out.append(f"  {token:>{label_width}}{cells}")
        for variant, name in zip(scenario.variants, shown):
            out.append(f"  {name}: {variant.options(scenario.options).describe(scenario.d_k)}")
    return "\n".join(out) + "\n"


def visible_traces(traces: dict[str, Trace]) -> dict[str, Trace]:
    """The same traces with their tokens as a terminal may show them (``core.text.visible``):
    the explanations quote tokens, so this is where a view's tokens become inert text."""
    tokens = tuple(visible(token) for token in next(iter(traces.values())).tokens)
    return {name: dataclasses.replace(trace, tokens=tokens) for name, trace in traces.items()}


def _shape(array: np.ndarray) -> str:
    return f"({array.shape[0]}×{array.shape[1]})"


def _matrix(title: str, values: np.ndarray, rows: list[str], columns: list[str], decimals: int,
            blocked: np.ndarray | None = None, mask_value: float = -math.inf,
            extra: tuple[tuple[str, np.ndarray], ...] | None = None) -> list[str]:
    def cell(i: int, j: int) -> str:
        if blocked is not None and blocked[i, j]:
            return mask_text(mask_value)
        return fixed(values[i, j], decimals)

    texts = [[cell(i, j) for j in range(values.shape[1])] for i in range(values.shape[0])]
    extras = [[fixed(column[i], decimals) for _, column in extra or ()] for i in range(values.shape[0])]
    heads = list(columns) + [name for name, _ in extra or ()]
    width = max(len(text) for text in heads + [t for row in texts + extras for t in row])
    label_width = max(len(label) for label in rows)
    lines = ["", title, "  " + " " * label_width + "".join(f"  {head:>{width}}" for head in heads)]
    for label, row, more in zip(rows, texts, extras):
        lines.append(f"  {label:>{label_width}}" + "".join(f"  {text:>{width}}" for text in row + more))
    return lines


def stage_heading_with_columns(stage: str, trace: Trace) -> str:
    """A stage's heading in a printed table, naming the extra columns the softmax table has."""
    text = stage_heading(stage, trace.options, trace.d_k)
    return text + " (max = largest weight, H = entropy in nats)" if stage == "softmax" else text
