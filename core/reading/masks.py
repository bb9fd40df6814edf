"""The mask rules a scenario may add to causal: ``window:``, ``padding:`` and an explicit
``mask:`` (YAML 0/1 rows or a ``.npy`` file), and where causal cannot apply."""

from __future__ import annotations

from attn_tui.core.errors import ScenarioError
from attn_tui.core.files.yaml_matrices import file_shape, file_values, shape_of
from attn_tui.core.files.yaml_matrices import where as where_in
from attn_tui.core.files.yaml_numbers import (
    TAG,
    boolean,
    describe_scalar,
    kind_of,
    located,
    named,
    number,
    whole_number,
)
from attn_tui.core.files.yaml_source import Node, Scalar, Sequence, deref
from attn_tui.core.limits import MAX_T
from attn_tui.core.model.options import Options, Variant
from attn_tui.core.reading.files import Files
from attn_tui.core.reading.keys import Entry

MASK_HELP = (
    "for cross-attention, hide keys with mask: (a T_q × T_k matrix of 0/1, 1 = may attend) "
    "or padding: (one 0/1 per key, 1 = never attended)"
)


def check_causal(
    top: dict[str, Entry], options: Options, variants: tuple[Variant, ...], layout: dict[str, int]
) -> None:
    """The causal mask compares a query's position with a key's: only where they are the
    same sequence's (as many queries as keys)."""
    if layout["T"] == layout["T_k"]:
        return
    if options.causal:
        raise located(
            top["causal"].value,
            f"causal: true needs as many queries as keys ({layout['T']} "
            f"queries, {layout['T_k']} keys); {MASK_HELP}",
        )
    for variant, node in zip(variants, deref(top["variants"].value).items if variants else ()):
        if variant.causal:
            raise located(
                node,
                f"variant {named(variant.name)}: causal needs as many queries as keys "
                f"({layout['T']} queries, {layout['T_k']} keys); {MASK_HELP}",
            )


def window(entry: Entry | None, layout: dict[str, int]) -> int | None:
    if entry is None:
        return None
    if layout["T"] != layout["T_k"]:
        raise located(
            entry.key,
            f"window needs as many queries as keys ({layout['T']} queries, "
            f"{layout['T_k']} keys): it counts positions back from the query's; "
            f"{MASK_HELP}",
        )
    return whole_number(entry.value, "window", 1, MAX_T)


def padding(entry: Entry | None, tokens: tuple[str, ...]) -> tuple[bool, ...] | None:
    if entry is None:
        return None
    node = deref(entry.value)
    if not isinstance(node, Sequence):
        raise located(
            node,
            "padding must be a list with one 0 or 1 per token, like [0, 0, 1] "
            "(1 = padding, never attended)",
        )
    if len(node.items) != len(tokens):
        raise located(
            node,
            f"padding has {len(node.items)} flags but there are {len(tokens)} tokens "
            "(keys): one 0 or 1 per token",
        )
    return tuple(flag(item, f"padding {i}") for i, item in enumerate(node.items, 1))


def mask(files: Files, entry: Entry | None, layout: dict[str, int]) -> list | None:
    if entry is None:
        return None
    shape = (layout["T"], layout["T_k"])
    ref = files.npy_ref(entry.value, "mask")
    if ref is not None:
        found = file_shape(ref, "mask", entry.value, kinds="fiub")  # booleans: a mask's own type
        if found != shape:
            raise located(
                entry.value,
                f"mask: {ref.label} is {found[0]}×{found[1]} but the scores are "
                f"{shape[0]}×{shape[1]} (queries × keys)",
            )
        values = file_values(ref, "mask", entry.value)
        bad = [
            tuple(int(i) for i in index)
            for index in zip(*((values != 0) & (values != 1)).nonzero())
        ]
        if bad:
            raise located(
                entry.value,
                f"mask: {ref.label} {where_in(bad[0])} is {values[bad[0]]:g}; "
                "a mask holds 0 (hidden) or 1 (may attend)",
            )
        return values
    found = shape_of(entry.value, "mask")
    if found != shape:
        raise located(
            entry.value,
            f"mask is {found[0]}×{found[1]} but the scores are {shape[0]}×{shape[1]} "
            "(queries × keys): one 0 or 1 per score",
        )
    read: dict[int, list[bool]] = {}
    rows = []
    for i, row in enumerate(deref(entry.value).items, 1):
        target = deref(row)
        if id(target) not in read:
            read[id(target)] = [
                flag(cell, f"mask row {i} column {j}") for j, cell in enumerate(target.items, 1)
            ]
        rows.append(read[id(target)])
    return rows


def flag(node: Node, what: str) -> bool:
    """A 0/1 (or false/true) flag of a mask or of padding; a number that is exactly 0 or 1
    (``1.0``, ``0.0``, as NumPy writes a mask out) is one too."""
    value = deref(node)
    if isinstance(value, Scalar) and value.tag == TAG + "bool":
        return boolean(value, what)
    if isinstance(value, Scalar) and value.tag == TAG + "int" and value.value in ("0", "1"):
        return value.value == "1"
    if isinstance(value, Scalar) and value.tag in (TAG + "int", TAG + "float", TAG + "str"):
        try:
            number_value = number(value, what)
        except ScenarioError:
            number_value = None
        if number_value in (0.0, 1.0):
            return number_value == 1.0
    shown = describe_scalar(value) if isinstance(value, Scalar) else kind_of(value)
    raise located(value, f"{what} must be 0 or 1 (or false or true), not {shown}")
