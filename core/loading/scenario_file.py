"""Reading a scenario file into a Scenario, with an error that names file, line and column.

Every check happens on the YAML nodes before any array is built: shapes and sizes first (so a
YAML alias bomb is refused before it is expanded), then the numbers one by one. This module
reads the scenario's top keys and hands each group to its reader in ``core/reading/`` — the
bytes (``text``), the inputs and heads (``inputs``, ``shapes``), the options and variants
(``options``), the masks (``masks``), RoPE (``rope``), the labels (``labels``), a student's
numbers (``expect``) — and a stage's own keys (``bias:``, …) to the reader its stage declares.

:func:`check` does all of it without NumPy for a scenario written in YAML with none of a
stage's own keys, ``expect:`` or ``predict:`` (the classroom server checks a file before its
apps start); :func:`load` builds the Scenario with its arrays. What a check tells is
``core.loading.checked_scenario``; the building, ``core.loading.scenario_arrays``; the search for
unknown keys, ``core.loading.unknown_keys``.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from attn_tui.core.errors import ScenarioError
from attn_tui.core.files.yaml_numbers import TAG, kind_of, located, scalar_text
from attn_tui.core.files.yaml_source import (
    Document,
    Mapping,
    Scalar,
    deref,
    line_col,
    parse,
)
from attn_tui.core.limits import MAX_DESCRIPTION_LENGTH, MAX_NUMBERS
from attn_tui.core.loading import expect
from attn_tui.core.loading.checked_scenario import Checked, Plan
from attn_tui.core.loading.scenario_arrays import build, surely_finite
from attn_tui.core.loading.unknown_keys import check_unknown_keys
from attn_tui.core.model.options import INPUT_SETS, Options
from attn_tui.core.reading import inputs, labels, masks, rope
from attn_tui.core.reading import options as option_reader
from attn_tui.core.reading.files import Files
from attn_tui.core.reading.generated import generated
from attn_tui.core.reading.keys import Entry, check_keys, entries
from attn_tui.core.reading.text import decode, read_text  # noqa: F401 (read from here by the app)

if TYPE_CHECKING:
    from attn_tui.core.model.scenario import Scenario

# The scenario's own keys; a stage adds its own (``core.engine.stages``: Stage.scenario_keys).
KEYS = (
    "title",
    "description",
    "tokens",
    "query_tokens",
    *inputs.INPUT_NAMES,
    "npz",
    "random",
    "heads",
    "kv_heads",
    "head_names",
    *option_reader.OPTION_KEYS,
    "window",
    "padding",
    "mask",
    "rope",
    "focus",
    "precision",
    "variants",
    *expect.KEYS,
    "generated",
    "lesson",
)


def load(path: str | os.PathLike[str]) -> Scenario:
    """Read and check the scenario at ``path``; ``ScenarioError`` names what is wrong and where."""
    name = os.fspath(path)
    return loads(read_text(name), name)


def loads(text: str, path: str = "<scenario>") -> Scenario:
    """Check a scenario given as YAML text and build it; ``path`` names it (and is where its
    data files are looked for)."""
    return build(_read(text, path))


def read_document(path: str | os.PathLike[str]) -> Document:
    """The scenario file at ``path`` parsed (YAML with positions), not yet read as a scenario:
    :func:`layout_of` sizes it, :func:`load_document` loads it without parsing it again."""
    name = os.fspath(path)
    try:
        return parse(read_text(name))
    except ScenarioError as error:
        raise error.located(name) from None


def layout_of(document: Document, path: str) -> dict[str, int]:
    """The heads, T, T_k, d_k, d_v and d_out that a parsed scenario's inputs give, its data files'
    arrays never read (their headers only): what ``core.loading.work_estimate`` needs. The rest
    of the file is checked when it is loaded."""
    try:
        top, files, _, _ = _top(document, path)
        return inputs.inputs(files, top, document.root, values=False)[4]
    except ScenarioError as error:
        raise error.located(path) from None


def load_document(document: Document, path: str) -> Scenario:
    """What :func:`load` returns, from the file's text parsed already (:func:`read_document`)."""
    try:
        found = fields(document, path)
    except ScenarioError as error:
        raise error.located(path) from None
    return build(found)


def check(path: str | os.PathLike[str]) -> Checked:
    """Check the scenario at ``path`` as :func:`load` would, without building its arrays."""
    name = os.fspath(path)
    return check_text(read_text(name), name)


def check_text(text: str, path: str = "<scenario>") -> Checked:
    found = _read(text, path)
    if not surely_finite(found) or found["lesson"]:  # a doubtful scenario (or a lesson's
        build(found)  # beats) is built and computed to make sure
    layout = found["layout"]
    kind = "projection" if "X" in found["shapes"] else "qkv"
    editable = [name for name in INPUT_SETS[kind]] + [
        name for name in inputs.OPTIONAL_INPUTS if name in found["shapes"]
    ]
    bias = found["stage_settings"].get("bias")
    if bias is not None and not bias.alibi:
        editable.append("bias")
    return Checked(
        found["title"],
        found["description"],
        found["tokens"],
        found["options"],
        found["variants"],
        kind,
        tuple(editable),
        layout["T"],
        layout["d_k"],
        layout["d_v"],
        path,
        layout["heads"],
        found["query_tokens"],
        found["stage_settings"],
    )


def _read(text: str, path: str) -> dict[str, Any]:
    try:
        return fields(parse(text), path)
    except ScenarioError as error:
        raise error.located(path) from None
    except UnicodeEncodeError as error:  # text (not a file) holding half of a UTF-16 pair
        line, col = line_col(text, error.start)
        raise ScenarioError(
            f"the text holds U+{ord(text[error.start]):04X}, half of a character "
            "(an unpaired surrogate): not valid Unicode",
            line,
            col,
            path,
        ) from None


def _top(document: Document, path: str) -> tuple[dict[str, Entry], Files, dict, dict]:
    """The scenario's top-level keys, checked to be a scenario's; where its files are; the
    arrays its ``npz:`` holds and the stages whose keys it gives."""
    root = document.root
    if root is None or (isinstance(root, Scalar) and root.tag == TAG + "null"):
        raise ScenarioError(
            "the file is empty; a scenario needs at least Q, K and V "
            "(see docs/scenarios.md: the format)",
            1,
            1,
        )
    if not isinstance(deref(root), Mapping):
        raise located(
            root, f"a scenario is a mapping of keys (title:, Q:, …), not {kind_of(deref(root))}"
        )
    top = entries(root, "the scenario")
    if "model_index" in top:  # a layer of an index naming an index: one error, not one per key
        raise located(
            top["model_index"].key,
            "this file is a model index (it lists layers), not a scenario: an "
            "index's layers each name one layer's scenario, never an index",
        )
    files = Files(path)
    archived = files.npz(top.get("npz"))  # a stage's own array may come from the archive too
    stage_keys = _stage_keys([*top, *archived])
    check_unknown_keys(top, KEYS + tuple(stage_keys))
    return top, files, archived, stage_keys


def fields(document: Document, path: str) -> dict[str, Any]:
    """Every field of the Scenario, checked; the inputs as nested lists of floats (or arrays
    read from .npy files), not yet built."""
    root = document.root
    top, files, archived, stage_keys = _top(document, path)
    values, random, refs, shapes, layout, head_names = inputs.inputs(files, top, root)
    if "query_tokens" in top:  # cross-attention: tokens label the keys
        rows_of = "K" if "K" in shapes else "X"
    else:
        rows_of = "X" if "X" in shapes else "Q"
    tokens = labels.tokens(top.get("tokens"), layout["T_k"], rows_of, "tokens")
    query_tokens = None
    if "query_tokens" in top:
        query_rows = "X_q" if "X_q" in shapes else "Q"
        query_tokens = labels.tokens(top["query_tokens"], layout["T"], query_rows, "query_tokens")
    row_tokens = query_tokens if query_tokens is not None else tokens
    cross = query_tokens is not None
    # cross: no mask unless asked
    scenario_options = option_reader.options(top, Options(causal=not cross))
    variants = option_reader.variants(top.get("variants"), scenario_options)
    masks.check_causal(top, scenario_options, variants, layout)
    rotation = rope.rope(top.get("rope"), layout)
    window = masks.window(top.get("window"), layout)
    plan = Plan(
        **layout,
        inputs=frozenset(shapes) | {"Q", "K", "V"},
        cross=cross,
        rope=rotation,
        numbers=sum(_size(shape) for shape in shapes.values())  # random: makes its Q, K, V
        + (random.T * (2 * random.d_k + random.d_v) if random is not None else 0),
        causal=scenario_options.causal,
        window=window,
        variants=tuple(zip(variants, deref(top["variants"].value).items if variants else ())),
    )
    # what a stage's own array (a bias) adds is counted with what attention derives, not apart
    plan = Plan(**{**plan.__dict__, "numbers": _check_derived(plan, "X" in shapes, top)})
    settings = {}
    for stage in dict.fromkeys(
        stage for key, stage in stage_keys.items() if key in top or key in archived
    ):
        setting = stage.turned_on.read(files, top, plan)
        if setting is not None:
            settings[stage.name] = setting
    plan = Plan(**{**plan.__dict__, "stage_settings": settings})
    return dict(
        title=(
            scalar_text(top["title"].value, "title")
            if "title" in top
            else labels.default_title(path)
        ),
        description=(
            scalar_text(top["description"].value, "description", MAX_DESCRIPTION_LENGTH)
            if "description" in top
            else ""
        ),
        tokens=tokens,
        query_tokens=query_tokens,
        inputs=values,
        shapes=shapes,
        layout=layout,
        head_names=head_names,
        options=scenario_options,
        window=window,
        padding=masks.padding(top.get("padding"), tokens),
        mask=masks.mask(files, top.get("mask"), layout),
        rope=rotation,
        stage_settings=settings,
        heads_written="heads" in top,
        focus=labels.focus(top.get("focus"), row_tokens, "query tokens" if cross else "tokens"),
        precision=labels.precision(top.get("precision")),
        variants=variants,
        random=random,
        files=refs,
        path=path,
        source=document,
        first_input=(
            top.get("random") or top.get("Q") or top.get("X") or top.get("heads") or top["npz"]
        ).key,
        top=top,
        expect=expect.expectations(files, top, plan),
        expect_tolerance=expect.tolerance(top.get("expect_tolerance")),
        predict=expect.predict(top.get("predict"), plan),
        generated=generated(top.get("generated"), layout["T"], layout["T_k"]),
        lesson=top.get("lesson"),  # read once the scenario is built: see core.lessons.reader
    )


def _check_derived(plan: Plan, projected: bool, top: dict[str, Entry]) -> int:
    """Memory is bounded by what attention holds whole, not only by what the file holds: the
    projected Q, K, V of every head (X·W) and, under RoPE, their turned copies count against
    the limit with the inputs (a 230 KB archive of X 16,384 × 1 and W's 1 × 4,096 with 64 heads
    would derive 200 million numbers). Returns how many numbers that is."""
    queries = plan.T * plan.heads * plan.d_k
    keys = plan.T_k * plan.kv_heads * plan.d_k
    derived = (queries + keys + plan.T_k * plan.kv_heads * plan.d_v) if projected else 0
    turned = queries + keys if plan.rope is not None else 0
    total = plan.numbers + derived + turned
    if total <= MAX_NUMBERS:
        return total
    what = (
        [f"Q, K, V = X·W of {plan.heads} head{'s' if plan.heads > 1 else ''} ({derived:,})"]
        if derived
        else []
    )
    what += [f"Q and K turned by RoPE ({turned:,})"] if turned else []
    where = (
        top.get("heads") or top.get("X") or top.get("Q") or top.get("npz") or top.get("rope")
    ).key
    raise located(
        where,
        f"too many numbers: the inputs ({plan.numbers:,}) and what attention derives from "
        f"them ({', '.join(what)}) make {total:,}, at most {MAX_NUMBERS:,}; use fewer heads, "
        "tokens or dimensions",
    )


def _stage_keys(names: list[str]) -> dict:
    """The keys the stages declare, with their stages: asked of the registry (which brings in
    NumPy) only when the file (or its archive) has a name the scenario itself does not know."""
    if all(name in KEYS for name in names):
        return {}
    from attn_tui.core.engine.stages import scenario_keys

    return scenario_keys()


def _size(shape: tuple[int, ...]) -> int:
    size = 1
    for length in shape:
        size *= length
    return size


__all__ = [
    "Entry",
    "KEYS",
    "check",
    "check_keys",
    "check_text",
    "decode",
    "entries",
    "fields",
    "load",
    "loads",
    "read_text",
]
