"""The input matrices of a scenario: Q, K and V (one matrix, one per head, or a list of hand-made
heads), or X with Wq, Wk and Wv, or ``random:``; Wo and bo; from YAML rows, ``.npy`` files or an
``npz:`` archive. Shapes are read first, and the numbers only once every shape fits
(``core.reading.shapes``) and their total is within the limit."""

from __future__ import annotations

import math
import os
from typing import Any

from attn_tui.core.files.numpy_files import ArrayRef
from attn_tui.core.files.yaml_matrices import (
    file_shape,
    file_values,
    matrix_shape,
    matrix_values,
    shape_of,
    values_of,
)
from attn_tui.core.files.yaml_numbers import located, named, scalar_text, whole_number
from attn_tui.core.files.yaml_source import Node, Sequence, deref
from attn_tui.core.limits import MAX_DIM, MAX_HEADS, MAX_NUMBERS, MAX_T, MAX_TOKEN_LENGTH
from attn_tui.core.model.options import INPUT_SETS, RandomSpec
from attn_tui.core.reading.files import Files
from attn_tui.core.reading.keys import Entry, check_keys, entries
from attn_tui.core.reading.shapes import layout_of

INPUT_NAMES = ("Q", "K", "V", "X", "X_q", "Wq", "Wk", "Wv", "Wo", "bo")
OPTIONAL_INPUTS = ("X_q", "Wo", "bo")
RANDOM_KEYS = ("seed", "T", "d_k", "d_v")
HEAD_KEYS = ("name", "Q", "K", "V")
DIMS = {"Q": (2, 3), "K": (2, 3), "V": (2, 3), "bo": (1, 2)}  # the rest are matrices

INPUT_HELP = (
    "give Q, K and V; or X with Wq, Wk and Wv (each a list of rows or {npy: file.npy}, "
    "or all from npz: file.npz); or random: {seed, T, d_k}; or heads: a list of heads, "
    "each with its own Q, K and V"
)


def npz_arrays(files: Files, entry: Entry | None) -> dict[str, ArrayRef]:
    """The input arrays (Q, K, V, X, W's) a ``npz:`` file holds, by name."""
    if entry is None:
        return {}
    members = files.npz(entry)
    found = {name: ref for name, ref in members.items() if name in INPUT_NAMES}
    if not found:
        held = ", ".join(members) or "nothing"
        raise located(
            entry.value,
            f"npz: {os.path.basename(files.external_path(entry.value, 'npz'))} holds "
            f"no Q, K, V or X, Wq, Wk, Wv (it holds {held})",
        )
    return found


def inputs(
    files: Files, top: dict[str, Entry], root: Node, values: bool = True
) -> tuple[
    dict[str, Any],
    RandomSpec | None,
    dict[str, ArrayRef],
    dict[str, tuple[int, ...]],
    dict[str, int],
    tuple[str, ...],
]:
    """The input matrices (values, the files they come from, their shapes), the layout
    they imply (heads, T, T_k, d_k, d_v, d_out) and the heads' names. ``values=False``: no
    values (none read from a data file: its header only), the rest as checked."""
    npz = npz_arrays(files, top.get("npz"))
    heads_node = deref(top["heads"].value) if "heads" in top else None
    if isinstance(heads_node, Sequence):
        return head_list(files, top, npz, heads_node)
    given = [name for name in (*INPUT_NAMES, "random") if name in top or name in npz]
    kinds = {kind for kind, names in INPUT_SETS.items() for name in given if name in names}
    if "random" in given:
        kinds.add("random")
    if len(kinds) > 1:
        later = top[given[-1]].key if given[-1] in top else top["npz"].key
        raise located(later, f"{given[-1]} cannot be combined with {given[0]}: {INPUT_HELP}")
    if not kinds:
        raise located(root, f"no input matrices: {INPUT_HELP}")
    kind = kinds.pop()
    if kind == "random":
        for name in ("npz", "heads", "kv_heads", "query_tokens", *OPTIONAL_INPUTS):
            if name in top:
                raise located(
                    top[name].key,
                    f"{name} cannot be combined with random (one head of "
                    f"self-attention): {INPUT_HELP}",
                )
        spec = random_spec(top["random"].value)
        layout = dict(
            heads=1, kv_heads=1, T=spec.T, T_k=spec.T, d_k=spec.d_k, d_v=spec.d_v, d_out=spec.d_v
        )
        return {}, spec, {}, {}, layout, head_names(top, 1)
    names = INPUT_SETS[kind]
    missing = [name for name in names if name not in top and name not in npz]
    if missing:
        have = ", ".join(name for name in names if name in given)
        where = f" (nor in {os.path.basename(top['npz'].value.value)})" if "npz" in top else ""
        raise located(root, f"missing {' and '.join(missing)}{where} ({have} given): {INPUT_HELP}")
    names += tuple(name for name in OPTIONAL_INPUTS if name in top or name in npz)
    # explicit keys win over arrays of the same name in the npz file
    sources = {name: (top[name].value if name in top else top["npz"].value) for name in names}
    refs = {name: npz[name] for name in names if name not in top}
    for name in names:
        if name in top and (ref := files.npy_ref(top[name].value, name)) is not None:
            refs[name] = ref
    dims = {name: DIMS.get(name, (2,)) for name in names}
    shapes = {
        name: file_shape(refs[name], name, sources[name], dims[name])
        if name in refs
        else shape_of(sources[name], name, dims[name])
        for name in names
    }
    layout = layout_of(kind, shapes, sources, top)
    check_total(shapes, sources[names[0]])
    if not values:
        return {}, None, refs, shapes, layout, head_names(top, layout["heads"])
    read = {
        name: file_values(refs[name], name, sources[name])
        if name in refs
        else values_of(sources[name], name, shapes[name])
        for name in names
    }
    return read, None, refs, shapes, layout, head_names(top, layout["heads"])


def head_list(
    files: Files, top: dict[str, Entry], npz: dict[str, ArrayRef], node: Sequence
) -> tuple:
    """``heads:`` as a list, each head with its own name, Q, K and V written in YAML (a
    teacher's hand-made heads)."""
    for name in ("Q", "K", "V", "X", "X_q", "Wq", "Wk", "Wv", "random", "kv_heads", "head_names"):
        if name in top or name in npz:
            where = top[name].key if name in top else top["npz"].key
            raise located(
                where,
                f"{name} cannot be combined with heads: a list of heads (each head "
                "has its own name, Q, K and V)",
            )
    if not node.items:
        raise located(
            node, "heads: the list is empty; give each head as {name: …, Q: …, K: …, V: …}"
        )
    if len(node.items) > MAX_HEADS:
        raise located(node, f"{len(node.items)} heads; at most {MAX_HEADS}")
    names, per_head, first = [], {"Q": [], "K": [], "V": []}, {}
    for h, item in enumerate(node.items, 1):
        found = entries(item, f"head {h}")
        check_keys(found, HEAD_KEYS, f"head {h}")
        for key in ("Q", "K", "V"):
            if key not in found:
                raise located(
                    item, f"head {h} needs {key} (each head: {{name: …, Q: …, K: …, V: …}})"
                )
            if files.npy_ref(found[key].value, f"head {h} {key}") is not None:
                raise located(
                    found[key].value,
                    f"head {h} {key}: in a list of heads the matrices are "
                    "written as rows; for data in .npy files give Q, K and V "
                    "as one 3-D array each, with heads: N",
                )
            shape = matrix_shape(found[key].value, f"{key} of head {h}")
            if key in first and shape != first[key][1]:
                raise located(
                    found[key].value,
                    f"{key} of head {h} is {shape[0]}×{shape[1]} but head 1's "
                    f"is {first[key][1][0]}×{first[key][1][1]}: every head's "
                    "matrix has the same shape",
                )
            first.setdefault(key, (found[key].value, shape))
            per_head[key].append(found[key].value)
        names.append(
            (
                scalar_text(found["name"].value, f"head {h}'s name", MAX_TOKEN_LENGTH).strip(),
                found["name"].value,
            )
            if "name" in found
            else (f"head {h}", item)
        )
    heads = len(node.items)
    shapes = {key: (heads, *first[key][1]) for key in ("Q", "K", "V")}
    sources = {key: first[key][0] for key in ("Q", "K", "V")}
    refs: dict[str, ArrayRef] = {}
    for name in ("Wo", "bo"):
        if name in top or name in npz:
            sources[name] = top[name].value if name in top else top["npz"].value
            ref = npz.get(name) if name not in top else files.npy_ref(top[name].value, name)
            if ref is not None:
                refs[name] = ref
            dims = DIMS.get(name, (2,))
            shapes[name] = (
                file_shape(ref, name, sources[name], dims)
                if ref is not None
                else shape_of(sources[name], name, dims)
            )
    layout = layout_of("qkv", shapes, sources, top)
    check_total(shapes, node)
    values: dict[str, Any] = {
        key: [
            matrix_values(matrix, f"{key} of head {h}") for h, matrix in enumerate(per_head[key], 1)
        ]
        for key in ("Q", "K", "V")
    }
    for name in ("Wo", "bo"):
        if name in shapes:
            values[name] = (
                file_values(refs[name], name, sources[name])
                if name in refs
                else values_of(sources[name], name, shapes[name])
            )
    return values, None, refs, shapes, layout, _distinct_names(names)


def head_names(top: dict[str, Entry], heads: int) -> tuple[str, ...]:
    if "head_names" not in top:
        return tuple(f"head {h}" for h in range(1, heads + 1))
    node = deref(top["head_names"].value)
    if not isinstance(node, Sequence):
        raise located(node, "head_names must be a list like [previous token, itself]")
    if len(node.items) != heads:
        raise located(
            node,
            f"head_names has {len(node.items)} names but there are {heads} heads: "
            "one name per head",
        )
    return _distinct_names(
        [
            (scalar_text(item, f"head name {h}", MAX_TOKEN_LENGTH).strip(), item)
            for h, item in enumerate(node.items, 1)
        ]
    )


def check_total(shapes: dict[str, tuple[int, ...]], where: Node) -> None:
    total = sum(math.prod(shape) for shape in shapes.values())
    if total > MAX_NUMBERS:
        raise located(where, f"too many numbers: {total:,} in all, at most {MAX_NUMBERS:,}")


def random_spec(node: Node) -> RandomSpec:
    found = entries(node, "random")
    check_keys(found, RANDOM_KEYS, "random")
    for required in ("seed", "T", "d_k"):
        if required not in found:
            raise located(node, f"random needs {required} (random: {{seed: 0, T: 5, d_k: 8}})")
    seed = whole_number(found["seed"].value, "random seed", 0, 2**32 - 1)
    T = whole_number(found["T"].value, "random T", 1, MAX_T)
    d_k = whole_number(found["d_k"].value, "random d_k", 1, MAX_DIM)
    d_v = whole_number(found["d_v"].value, "random d_v", 1, MAX_DIM) if "d_v" in found else d_k
    total = T * (2 * d_k + d_v)
    if total > MAX_NUMBERS:
        raise located(
            node, f"too many numbers: T × (2·d_k + d_v) = {total:,}, at most {MAX_NUMBERS:,}"
        )
    return RandomSpec(seed, T, d_k, d_v)


def _distinct_names(named_nodes: list[tuple[str, Node]]) -> tuple[str, ...]:
    """Heads' names: each non-empty, no two the same (a name is how a student picks a head)."""
    seen: dict[str, int] = {}
    for h, (name, node) in enumerate(named_nodes, 1):
        if not name:
            raise located(node, f"head {h} has an empty name")
        if name in seen:
            raise located(
                node, f"heads {seen[name]} and {h} are both named {named(name)}; names must differ"
            )
        seen[name] = h
    return tuple(name for name, _ in named_nodes)
