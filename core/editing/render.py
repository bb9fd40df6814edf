"""A scenario written whole, for a file whose own text cannot take an edit and for Save As:
every field and every number, no comments; and how values read in YAML, which saving in place
writes too."""

from __future__ import annotations

import dataclasses
import math
import os

import numpy as np

from attn_tui.core.editing.data_files import data_file
from attn_tui.core.editing.lesson_writer import rendered_lesson
from attn_tui.core.files.yaml_text import yaml_number, yaml_quoted
from attn_tui.core.limits import MAX_YAML_NODES
from attn_tui.core.loading.scenario_file import loads
from attn_tui.core.model.scenario import Scenario, bits_equal


@dataclasses.dataclass
class SavePlan:
    """What saving writes: the scenario's text, and any matrices that go to .npy files."""

    text: str
    arrays: dict[str, np.ndarray] = dataclasses.field(
        default_factory=dict
    )  # absolute path → values


def render(scenario: Scenario, target: str | None = None) -> SavePlan:
    """A whole new file for the scenario at ``target``: every field, every number, no comments.

    For the scenarios whose own text cannot take an edit, and for Save As. Matrices read from
    data files and not edited are referred to where they are; edited ones, and matrices too
    large to write out in YAML, go to .npy files beside ``target`` (see :func:`data_file`).
    Text is written in double quotes with YAML escapes, so any token or title reads back as it was.
    """
    target = os.path.abspath(target or scenario.path or "scenario.yaml")
    folder = os.path.dirname(target)
    original = (
        loads(scenario.source.text, scenario.path) if scenario.source and scenario.path else None
    )
    arrays: dict[str, np.ndarray] = {}
    budget = [MAX_YAML_NODES // 2]  # values left to write out in YAML; beyond, .npy files

    def relative(path: str) -> str:
        return yaml_quoted(os.path.relpath(path, folder))

    def matrix(name: str, values: np.ndarray, source=None) -> str:
        """A matrix written out, into a .npy beside the target when too large for YAML, or (a
        stage's setting read from a .npy of its own, never edited) a reference to that file."""
        if source is not None and source.member is None:
            return f"{name}: {{npy: {relative(source.path)}}}\n"
        if name == "bo":  # a bias is a vector (kept as one row)
            values = values.reshape(-1)
        if values.size <= budget[0]:
            budget[0] -= values.size
            return (
                f"{name}:\n" + "".join(f"  - {flow(inner)}\n" for inner in values)
                if values.ndim > 1
                else f"{name}: {row_yaml(values)}\n"
            )
        path = data_file(target, name)
        arrays[path] = values
        return f"{name}: {{npy: {relative(path)}}}\n"

    out = [
        "# Written whole by attn-tui: every number as edited; the file's own comments and layout\n"
        "# could not take the edit.\n",
        f"title: {yaml_quoted(scenario.title)}\n",
    ]
    if scenario.description:
        out.append(f"description: {yaml_quoted(scenario.description)}\n")
    out.append("tokens: [" + ", ".join(yaml_quoted(token) for token in scenario.tokens) + "]\n")
    if scenario.query_tokens is not None:
        out.append(
            "query_tokens: ["
            + ", ".join(yaml_quoted(token) for token in scenario.query_tokens)
            + "]\n"
        )
    if scenario.heads > 1 or scenario.heads_written:
        out.append(f"heads: {scenario.heads}\n")
        if scenario.kv_heads != scenario.heads:
            out.append(f"kv_heads: {scenario.kv_heads}\n")
    if scenario.head_names != tuple(f"head {h}" for h in range(1, scenario.heads + 1)):
        out.append(
            "head_names: [" + ", ".join(yaml_quoted(name) for name in scenario.head_names) + "]\n"
        )
    if scenario.random is not None and inputs_equal(scenario, generated(scenario)):
        spec = scenario.random
        out.append(
            f"random: {{seed: {spec.seed}, T: {spec.T}, d_k: {spec.d_k}, d_v: {spec.d_v}}}\n"
        )
    else:
        archives = set()
        for name, values in scenario.inputs.items():
            ref = scenario.files.get(name)
            edited = original is None or not bits_equal(values, original.inputs[name])
            if ref is not None and not edited and ref.member is None:
                out.append(f"{name}: {{npy: {relative(ref.path)}}}\n")
            elif ref is not None and not edited:
                archives.add(ref.path)  # an explicit key below overrides the archive's array
            elif ref is not None:
                path = data_file(target, name)
                arrays[path] = values
                out.append(f"{name}: {{npy: {relative(path)}}}\n")
            else:
                out.append(matrix(name, values))
        out += [f"npz: {relative(path)}\n" for path in sorted(archives)]
    options = scenario.options
    out.append(
        f"causal: {option_text(options.causal)}\nscale: {option_text(options.scale)}\n"
        f"mask_value: {mask_yaml(options.mask_value)}\n"
    )
    if scenario.window is not None:
        out.append(f"window: {scenario.window}\n")
    if scenario.padding is not None:
        out.append(
            "padding: [" + ", ".join("1" if flag else "0" for flag in scenario.padding) + "]\n"
        )
    if scenario.mask is not None and scenario.mask.size <= budget[0]:
        budget[0] -= scenario.mask.size
        out.append(
            "mask:\n"
            + "".join(
                "  - [" + ", ".join("1" if flag else "0" for flag in row) + "]\n"
                for row in scenario.mask
            )
        )
    elif scenario.mask is not None:  # too large for YAML: 0/1 in a data file beside the scenario
        path = data_file(target, "mask")
        arrays[path] = scenario.mask.astype(np.float64)
        out.append(f"mask: {{npy: {relative(path)}}}\n")
    if scenario.rope is not None:
        dims = "" if scenario.rope.dims is None else f", dims: {scenario.rope.dims}"
        out.append(
            f"rope: {{base: {yaml_number(float(scenario.rope.base))}, "
            f"pairs: {scenario.rope.pairs}{dims}}}\n"
        )
    out += [setting.yaml(matrix) for name, setting in scenario.stage_settings.items()]
    out.append(f"focus: {scenario.focus + 1}\nprecision: {scenario.precision}\n")
    if scenario.generated is not None:
        out.append(scenario.generated.yaml())
    if scenario.variants:
        out.append("variants:\n")
        for variant in scenario.variants:
            out.append(f"  - name: {yaml_quoted(variant.name)}\n")
            for key in ("causal", "scale", "mask_value"):
                value = getattr(variant, key)
                if value is not None:
                    shown = mask_yaml(value) if key == "mask_value" else option_text(value)
                    out.append(f"    {key}: {shown}\n")
    if scenario.predict:
        out.append(f"predict: [{', '.join(scenario.predict)}]\n")
    if scenario.expect:
        out.append(f"expect_tolerance: {yaml_number(float(scenario.expect_tolerance))}\nexpect:\n")
        for stage, expected in scenario.expect.items():
            values = expected.values
            if values.size > budget[0] and expected.given.all() and np.isfinite(values).all():
                path = data_file(target, f"expect-{stage}")
                arrays[path] = values
                out.append(f"  {stage}: {{npy: {relative(path)}}}\n")
                continue
            budget[0] -= values.size
            out.append(
                f"  {stage}:\n"
                + "".join(
                    f"    - {expected_flow(inner, given)}\n"
                    for inner, given in zip(values, expected.given)
                )
            )
    out.append(rendered_lesson(scenario))
    return SavePlan("".join(out), arrays)


def generated(scenario: Scenario) -> Scenario:
    return dataclasses.replace(scenario, inputs=scenario.random.generate())


def mask_yaml(value: float) -> str:
    return "-.inf" if math.isinf(value) else yaml_number(float(value))


def expected_cell(value: float, given: bool) -> str:
    """A student's value as YAML: ~ where left out; NaN and infinities as YAML writes them."""
    if not given:
        return "~"
    if math.isnan(value):
        return ".nan"
    if math.isinf(value):
        return ".inf" if value > 0 else "-.inf"
    return yaml_number(float(value))


def inputs_equal(a: Scenario, b: Scenario) -> bool:
    return a.inputs.keys() == b.inputs.keys() and all(
        bits_equal(a.inputs[name], b.inputs[name]) for name in a.inputs
    )


def row_yaml(values: np.ndarray) -> str:
    return "[" + ", ".join(yaml_number(float(v)) for v in values) + "]"


def flow(values: np.ndarray) -> str:
    """A vector, matrix or matrix per head as a YAML flow list: ``[[1, 0], [0, 1]]``."""
    if values.ndim == 1:
        return row_yaml(values)
    return "[" + ", ".join(flow(inner) for inner in values) + "]"


def expected_flow(values: np.ndarray, given: np.ndarray) -> str:
    """A student's values as a flow list, ~ where a cell was left out."""
    if values.ndim == 1:
        return "[" + ", ".join(expected_cell(v, g) for v, g in zip(values, given)) + "]"
    return "[" + ", ".join(expected_flow(v, g) for v, g in zip(values, given)) + "]"


def option_text(value: bool | float) -> str:
    if value is True:
        return "true"
    if value is False:
        return "false"
    return yaml_number(float(value))
