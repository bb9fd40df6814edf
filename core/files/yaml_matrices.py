"""Matrices of a scenario as they are written: YAML lists of rows (a list of such matrices for
one per head, a flat list for a vector), or NumPy files. Shapes are read from lengths alone
before any number is converted, so a file with too many numbers is refused before it costs
memory; then the numbers, one by one, each error naming its line.

A row (or a head's matrix) written as an alias of one already read is that same list: an
alias bomb costs one reading.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from attn_tui.core.files.numpy_files import ArrayRef, NumpyFileError, check_array, first_non_finite
from attn_tui.core.files.yaml_numbers import TAG, count, kind_of, located, number
from attn_tui.core.files.yaml_source import Node, Scalar, Sequence, deref
from attn_tui.core.limits import MAX_DIM, MAX_HEADS, MAX_T

if TYPE_CHECKING:
    import numpy as np

EXAMPLE = "[[1, 0], [0, 1]]"


def depth(node: Node) -> int:
    """How deeply a YAML value nests lists: a number 0, a vector 1, a matrix 2, a matrix per
    head 3."""
    found = 0
    node = deref(node)
    while isinstance(node, Sequence) and node.items:
        found += 1
        node = deref(node.items[0])
    return found


def shape_of(
    node: Node, name: str, dims: tuple[int, ...] = (2,), width: tuple[int, str] | None = None
) -> tuple[int, ...]:
    """The shape of a matrix (or vector, or matrix per head, as ``dims`` allow) written in YAML;
    ``width`` (how many numbers a row needs, and what each is: ``(4, "key")``) names a row of
    another length as the wrong one."""
    value = deref(node)
    if not isinstance(value, Sequence) and dims == (1, 2):
        raise located(
            value, f"{name} must be a list of numbers like [0.5, -0.5], not {kind_of(value)}"
        )
    if not isinstance(value, Sequence):
        raise located(value, f"{name} must be a list of rows like {EXAMPLE}, not {kind_of(value)}")
    if not value.items:
        raise located(value, f"{name} is empty; it needs at least one row like {EXAMPLE}")
    found = depth(value)
    if found == 1 and 1 in dims:
        return (_vector_length(value, name),)
    if found >= 3 and 3 in dims:
        if len(value.items) > MAX_HEADS:
            raise located(
                value, f"{name} has {len(value.items)} matrices (one per head); at most {MAX_HEADS}"
            )
        shapes = [
            matrix_shape(item, f"{name} of head {h}", width)
            for h, item in enumerate(value.items, 1)
        ]
        for h, shape in enumerate(shapes[1:], 2):
            if shape != shapes[0]:
                raise located(
                    value.items[h - 1],
                    f"{name} of head {h} is {shape[0]}×{shape[1]} but "
                    f"head 1's is {shapes[0][0]}×{shapes[0][1]}: every "
                    "head's matrix has the same shape",
                )
        return (len(shapes), *shapes[0])
    if found >= 3:
        raise located(
            value,
            f"{name} must be one matrix, a list of rows like {EXAMPLE}, not a list of "
            "matrices (only Q, K and V have one per head)",
        )
    if 2 in dims or found != 1:
        return matrix_shape(value, name, width)
    raise located(value, f"{name} must be a list of rows like {EXAMPLE}")


def _vector_length(node: Sequence, name: str) -> int:
    if len(node.items) > MAX_DIM:
        raise located(node, f"{name} has {len(node.items):,} numbers; at most {MAX_DIM:,}")
    return len(node.items)


def matrix_shape(node: Node, name: str, width: tuple[int, str] | None = None) -> tuple[int, int]:
    """Rows and columns of a matrix node, from lengths alone (nothing converted yet); with
    ``width`` (see :func:`shape_of`), the first row of another length is the one named."""
    matrix = deref(node)
    if not isinstance(matrix, Sequence):
        raise located(
            matrix, f"{name} must be a list of rows like {EXAMPLE}, not {kind_of(matrix)}"
        )
    if not matrix.items:
        raise located(matrix, f"{name} is empty; it needs at least one row like {EXAMPLE}")
    if len(matrix.items) > MAX_T:
        raise located(matrix, f"{name} has {len(matrix.items):,} rows; at most {MAX_T:,}")
    widths = []
    for i, row_node in enumerate(matrix.items, 1):
        row = deref(row_node)
        if not isinstance(row, Sequence):
            what = "a number" if isinstance(row, Scalar) else kind_of(row)
            raise located(
                row_node,
                f"{name} row {i} is {what}, not a list of numbers "
                f"(a matrix is a list of rows, like {EXAMPLE})",
            )
        if i == 1 and not row.items:
            raise located(row_node, f"{name} row 1 is empty")
        widths.append(len(row.items))
    if width is not None and len(set(widths)) > 1:
        wanted, what = width
        i = next((i for i, found in enumerate(widths) if found != wanted), None)
        if i is not None:
            raise located(
                matrix.items[i],
                f"{name} row {i + 1} has {count(widths[i], 'number')} but there "
                f"{'is' if wanted == 1 else 'are'} {count(wanted, what)}: "
                f"one number per {what} in every row",
            )
    if len(set(widths)) > 1:
        # the odd row out is the one that differs from most rows (row 1 may be it), or from the
        # first row when no width is the most common
        most = max(set(widths), key=lambda width: (widths.count(width), width == widths[0]))
        i = next(i for i, width in enumerate(widths) if width != most)
        if len(widths) == 2:
            others = f"row {2 - i} has"
        elif widths.count(most) == len(widths) - 1:
            others = "the other rows have"
        else:
            others = (
                f"{count(widths.count(most), 'row')} {'has' if widths.count(most) == 1 else 'have'}"
            )
        raise located(
            matrix.items[i],
            f"{name} row {i + 1} has {count(widths[i], 'number')} but {others} "
            f"{most}: every row needs the same length",
        )
    return len(matrix.items), widths[0]


def values_of(node: Node, name: str, shape: tuple[int, ...]) -> list:
    """The numbers of a matrix (vector, matrix per head) written in YAML, as nested lists of
    Python floats, in the shape :func:`shape_of` found."""
    if len(shape) == 1:
        return [number(cell, f"{name} number {j}") for j, cell in enumerate(deref(node).items, 1)]
    if len(shape) == 2:
        return matrix_values(node, name)
    read: dict[int, list] = {}
    heads = []
    for h, item in enumerate(deref(node).items, 1):
        target = deref(item)
        if id(target) not in read:
            read[id(target)] = matrix_values(target, f"{name} of head {h}")
        heads.append(read[id(target)])
    return heads


def matrix_values(node: Node, name: str) -> list[list[float]]:
    """The numbers of a matrix written in YAML, as rows of Python floats."""
    read: dict[int, list[float]] = {}
    rows = []
    for i, row in enumerate(deref(node).items):
        target = deref(row)
        if id(target) not in read:
            read[id(target)] = [
                number(cell, f"{name} row {i + 1} column {j + 1}")
                for j, cell in enumerate(target.items)
            ]
        rows.append(read[id(target)])
    return rows


def file_shape(
    ref: ArrayRef,
    name: str,
    node: Node,
    dims: tuple[int, ...] = (2,),
    kinds: str = "fiu",
    widest: int = MAX_DIM,
) -> tuple[int, ...]:
    """The shape of an array in a data file, checked: ``widest`` columns at most (a matrix's are
    dimensions; a bias's are keys)."""
    try:
        shape = check_array(*ref.header(), ref.label, dims, kinds)
    except NumpyFileError as error:
        raise located(node, f"{name}: {error}") from None
    if len(shape) == 3 and shape[0] > MAX_HEADS:
        raise located(node, f"{name}: {ref.label} holds {shape[0]} heads; at most {MAX_HEADS}")
    if len(shape) >= 2 and (shape[-2] > MAX_T or shape[-1] > widest):
        raise located(
            node,
            f"{name}: {ref.label} is {shape[-2]:,}×{shape[-1]:,}; at most "
            f"{MAX_T:,} rows and {widest:,} columns",
        )
    if len(shape) == 1 and shape[0] > MAX_DIM:
        raise located(node, f"{name}: {ref.label} has {shape[0]:,} numbers; at most {MAX_DIM:,}")
    return shape


def file_values(ref: ArrayRef, name: str, node: Node) -> np.ndarray:
    try:
        values = ref.load()
    except NumpyFileError as error:
        raise located(node, f"{name}: {error}") from None
    bad = first_non_finite(values)
    if bad is not None:
        raise located(
            node, f"{name}: {ref.label} {where(bad)} is {values[bad]}; numbers must be finite"
        )
    return values


def where(index: tuple[int, ...]) -> str:
    """``row 2 column 3`` (of ``head 1``) for an array index, counted from 1."""
    if len(index) == 1:
        return f"number {index[0] + 1}"
    text = f"row {index[-2] + 1} column {index[-1] + 1}"
    return f"head {index[0] + 1} {text}" if len(index) == 3 else text


def expected_values(node: Node, what: str, shape: tuple[int, ...]) -> tuple[list, list]:
    """A student's numbers (``expect:``) written in YAML in ``shape``: any number, NaN and
    infinities included (their code's bug), and null for a cell not given."""
    found = shape_of(node, what, (len(shape),))
    if found != shape:
        raise located(
            node, f"{what} is {_shape_text(found)} but that stage is {_shape_text(shape)}"
        )
    if len(shape) == 2:
        return _expected_matrix(node, what)
    pairs = [
        _expected_matrix(item, f"{what} of head {h}") for h, item in enumerate(deref(node).items, 1)
    ]
    return [values for values, _ in pairs], [given for _, given in pairs]


def _expected_matrix(node: Node, what: str) -> tuple[list, list]:
    values, given = [], []
    read: dict[int, tuple[list, list]] = {}
    for i, row in enumerate(deref(node).items):
        target = deref(row)
        if id(target) not in read:
            cells = [deref(cell) for cell in target.items]
            absent = [isinstance(cell, Scalar) and cell.tag == TAG + "null" for cell in cells]
            read[id(target)] = (
                [
                    0.0
                    if gone
                    else number(cell, f"{what} row {i + 1} column {j + 1}", finite=False)
                    for j, (cell, gone) in enumerate(zip(cells, absent))
                ],
                [not gone for gone in absent],
            )
        values.append(read[id(target)][0])
        given.append(read[id(target)][1])
    return values, given


def expected_file(ref: ArrayRef, what: str, node: Node, shape: tuple[int, ...]) -> tuple:
    try:
        found = check_array(*ref.header(), ref.label, (len(shape),))
        if found != shape:
            raise NumpyFileError(
                f"{ref.label} is {_shape_text(found)} but that stage is {_shape_text(shape)}"
            )
        values = ref.load()
    except NumpyFileError as error:
        raise located(node, f"{what}: {error}") from None
    return values, None


def _shape_text(shape: tuple[int, ...]) -> str:
    if len(shape) == 3:
        return f"{shape[0]} heads × {shape[1]}×{shape[2]}"
    return "×".join(str(n) for n in shape)


def largest(values) -> float:
    """The largest |value| of nested lists of floats (an aliased list seen once) or an array."""
    if not isinstance(values, list):
        return float(abs(values).max())
    seen: set[int] = set()
    best = 0.0
    stack = [values]
    while stack:
        item = stack.pop()
        if id(item) in seen:
            continue
        seen.add(id(item))
        if item and isinstance(item[0], list):
            stack.extend(item)
        elif item:
            best = max(best, max(abs(value) for value in item))
    return best
