"""The Bias stage's keys: ``alibi: true`` (ALiBi's distance penalty) or ``bias:`` — an explicit
matrix added to the scaled scores: T_q × T_k (the same for every head), a list of one such
matrix per head, ``{npy: file.npy}`` of either shape, or a member ``bias`` of the ``npz:``
archive (heads × T_q × T_k). Read as hostile as any input: shapes first, every number finite
and within ``LIMIT`` (so that a scaled score plus its bias cannot overflow float64)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from attn_tui.core.files.yaml_matrices import file_shape, file_values, largest, shape_of, values_of
from attn_tui.core.files.yaml_numbers import TAG, boolean, count, located, number, shorten
from attn_tui.core.files.yaml_source import Mapping, Scalar, Sequence, deref
from attn_tui.core.files.yaml_text import yaml_number
from attn_tui.core.limits import MAX_NUMBERS, MAX_T
from attn_tui.core.reading.files import Files
from attn_tui.core.reading.keys import Entry, check_keys, entries

KEYS = ("alibi", "bias")
LIMIT = (
    1e300  # |bias| at most; core.engine.overflow keeps a scaled score plus the largest bias finite
)
MAX_SLOPE = 1e6  # an ALiBi slope at most (× a distance below MAX_T: far inside LIMIT)


@dataclass(frozen=True, eq=False)
class BiasSetting:
    """What the scenario adds to its scaled scores: ALiBi's penalty, or ``values`` — nested
    lists of floats or an array, heads × T_q × T_k when ``per_head``, else T_q × T_k."""

    alibi: bool = False
    values: Any = None
    per_head: bool = False
    slopes: tuple[float, ...] | None = (
        None  # ALiBi's, when not the paper's for the scenario's heads
    )
    source: Any = None  # the ArrayRef it was read from (a file written whole refers to it)

    def of_head(self, h: int, heads: int) -> BiasSetting:
        """Head ``h``'s part alone, for that head taken as a scenario of its own."""
        if self.alibi:
            return BiasSetting(alibi=True, slopes=((self.slopes or alibi_slopes(heads))[h],))
        return BiasSetting(values=self.matrix[h], per_head=False) if self.per_head else self

    @cached_property
    def matrix(self):
        """The explicit bias as a read-only float64 array."""
        import numpy as np

        # (an array read from a file is used as it is: a copy would hold a 16M-number bias twice)
        array = np.asarray(self.values, dtype=np.float64).view()
        array.flags.writeable = False
        return array

    @cached_property
    def largest(self) -> float:
        """The largest |bias| (for ALiBi a bound: every slope is below 1, every distance below
        MAX_T), which ``core.engine.overflow`` adds to the largest scaled score."""
        if self.alibi:
            return float(MAX_T) * max((1.0, *(self.slopes or ())))
        return float(max(self.matrix.max(), -self.matrix.min()))  # (no |bias| the size of the bias)

    def describe(self) -> str:
        """How the header and the summary line name it."""
        return "ALiBi" if self.alibi else "a bias" + (" per head" if self.per_head else "")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, BiasSetting):
            return NotImplemented
        if self.alibi or other.alibi:
            return (self.alibi, self.slopes) == (other.alibi, other.slopes)
        # (the numbers of an explicit bias are the scenario's input "bias", compared with the
        # inputs: an edited one is the same setting)
        return self.per_head == other.per_head and self.matrix.shape == other.matrix.shape

    __hash__ = None  # equal by value, and holds an array

    def yaml(self, matrix) -> str:
        """Its keys for a file written whole; ``matrix(name, values, source)`` writes an array
        (or refers to the file it came from)."""
        if self.alibi:
            if self.slopes is None:
                return "alibi: true\n"
            return (
                "alibi: {slopes: [" + ", ".join(yaml_number(float(m)) for m in self.slopes) + "]}\n"
            )
        return ""  # (an explicit bias is an input: written with the others)


ALIBI_FORMS = (
    "alibi must be true (the paper's slopes, 2^(−8h/H) for head h of H), {slope: m} (one slope "
    "for every head) or {slopes: [m1, m2, …]} (one per head)"
)


def _slopes(node, heads: int) -> tuple[float, ...]:
    """``alibi: {slope: m}`` or ``alibi: {slopes: [m1, …]}``: the slopes, checked."""
    found = entries(node, "alibi")
    check_keys(found, ("slope", "slopes"), "alibi")
    if len(found) != 1:
        raise located(node, ALIBI_FORMS + ", not " + ("both" if found else "an empty mapping"))
    if "slope" in found:
        values = [number(found["slope"].value, "alibi slope")] * heads
        where = [found["slope"].value] * heads
    else:
        listed = deref(found["slopes"].value)
        if not isinstance(listed, Sequence):
            raise located(found["slopes"].value, ALIBI_FORMS)
        if len(listed.items) != heads:
            raise located(
                listed,
                f"alibi slopes has {count(len(listed.items), 'slope')} but the scenario has "
                f"{count(heads, 'head')}: one slope per head",
            )
        values = [number(item, f"alibi slope {h}") for h, item in enumerate(listed.items, 1)]
        where = listed.items
    for value, item in zip(values, where):
        if not (value > 0 and value <= MAX_SLOPE):
            raise located(
                item,
                f"an alibi slope must be a positive number at most {MAX_SLOPE:g}, not {value:g}",
            )
    return tuple(values)


def read(files: Files, top: dict[str, Entry], plan) -> BiasSetting | None:
    """``alibi:`` or ``bias:`` (or the archive's ``bias``), checked against the scenario's
    layout ``plan``; None for ``alibi: false``."""
    if "alibi" in top and "bias" in top:
        later = max(top["alibi"].key, top["bias"].key, key=lambda key: (key.line, key.col))
        raise located(later, "give alibi: true or bias:, not both (ALiBi is a bias of its own)")
    # the archive's member counts as a bias: with alibi:, one of the two would go unused unsaid
    archived = "bias" not in top and "npz" in top and "bias" in files.npz(top["npz"])
    if "alibi" in top and archived:
        raise located(
            top["alibi"].key,
            "give alibi: or a bias, not both: the npz: archive holds a bias "
            "(its member bias), and ALiBi is a bias of its own",
        )
    if "alibi" in top:
        node = top["alibi"].value
        given, value = None, deref(node)
        if isinstance(value, Mapping):
            given = _slopes(node, plan.heads)
        elif isinstance(value, Scalar) and value.tag in (TAG + "int", TAG + "float"):
            slope = shorten(value.value)
            raise located(
                node,
                f"alibi must be true, false or a mapping, not the number {slope}: for one "
                f"slope give alibi: {{slope: {slope}}}, for one per head alibi: {{slopes: [...]}}",
            )
        elif not boolean(node, "alibi"):
            return None
        if plan.cross or plan.T != plan.T_k:
            raise located(
                top["alibi"].key,
                "alibi penalises the distance between a query's and a key's "
                "positions in one sequence: it needs self-attention, not "
                "cross-attention; give the bias itself as bias:",
            )
        return BiasSetting(alibi=True, slopes=given)
    if "bias" in top:
        node = top["bias"].value
        ref = files.npy_ref(node, "bias")
    elif archived:  # the archive's member
        node = top["npz"].value
        ref = files.npz(top["npz"])["bias"]
    else:  # the archive holds a member named after another of these keys (alibi): not a bias
        return None
    # (a bias's columns are keys: as many as there may be tokens, not dimensions)
    shape = (
        file_shape(ref, "bias", node, (2, 3), widest=MAX_T)
        if ref is not None
        else shape_of(node, "bias", (2, 3), (plan.T_k, "key"))
    )
    scores = (plan.T, plan.T_k)
    per_head = len(shape) == 3
    if tuple(shape[-2:]) != scores:
        raise located(
            node,
            f"bias is {shape[-2]}×{shape[-1]} but the scores are {scores[0]}×{scores[1]} "
            "(queries × keys): one number per score",
        )
    if per_head and shape[0] != plan.heads:
        held = "1 matrix" if shape[0] == 1 else f"{shape[0]} matrices"
        raise located(
            node,
            f"bias holds {held} but there {'is' if plan.heads == 1 else 'are'} "
            f"{count(plan.heads, 'head')}: one per head, or one matrix for every head",
        )
    size = shape[0] * shape[1] * (shape[2] if per_head else 1)
    if plan.numbers + size > MAX_NUMBERS:
        raise located(
            node,
            f"too many numbers: {plan.numbers + size:,} in all with the bias (the inputs and "
            f"what attention derives from them hold {plan.numbers:,}), at most {MAX_NUMBERS:,}",
        )
    values = file_values(ref, "bias", node) if ref is not None else values_of(node, "bias", shape)
    biggest = largest(values)
    if not biggest < LIMIT:
        raise located(
            node,
            f"bias holds {biggest:.3e}; keep every bias below {LIMIT:.0e} "
            "(to hide a key, use mask: or padding:)",
        )
    return BiasSetting(values=values, per_head=per_head, source=ref)


def alibi_slopes(heads: int) -> list[float]:
    """m_1 … m_H, as the paper's code computes them."""
    if math.log2(heads).is_integer():
        return [2.0 ** (-8.0 * h / heads) for h in range(1, heads + 1)]
    below = 2 ** math.floor(math.log2(heads))
    return alibi_slopes(below) + alibi_slopes(2 * below)[0::2][: heads - below]
