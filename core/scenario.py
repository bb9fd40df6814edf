"""The scenario: tokens, input matrices and options, as one immutable value.

A Scenario is what the loader returns and what every edit produces anew; nothing in it changes
after it is made (its arrays are read-only), so a trace, an undo history and a saved file can
all refer to one safely.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from functools import cached_property
from types import MappingProxyType
from typing import Mapping

import numpy as np

from attn_tui.core.numpy_files import ArrayRef
from attn_tui.core.options import INPUT_SETS, Expected, Options, RandomSpec, Variant  # noqa: F401 (re-exported)
from attn_tui.core.yaml_source import Document

@dataclass(frozen=True, eq=False)
class Scenario:
    """Everything attention needs, plus where it came from (for messages and for saving)."""

    title: str
    tokens: tuple[str, ...]
    inputs: Mapping[str, np.ndarray]
    options: Options = Options()
    description: str = ""
    focus: int = -1
    precision: int = 3
    variants: tuple[Variant, ...] = ()
    random: RandomSpec | None = None
    files: Mapping[str, ArrayRef] = field(default_factory=dict)  # inputs read from .npy/.npz
    expect: Mapping[str, Expected] = field(default_factory=dict)  # a student's numbers, per stage
    expect_tolerance: float = 1e-6
    predict: tuple[str, ...] = ()  # stages whose cells start hidden in the app
    path: str | None = None
    source: Document | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        frozen = {}
        for name, array in self.inputs.items():
            array = np.array(array, dtype=np.float64)  # a copy: the caller's array stays theirs
            array.flags.writeable = False
            frozen[name] = array
        object.__setattr__(self, "inputs", MappingProxyType(frozen))
        expected = {}
        for stage, value in self.expect.items():
            if not isinstance(value, Expected):  # (values, given) as read from the file
                values, given = value
                values = np.array(values, dtype=np.float64)
                given = np.ones(values.shape, bool) if given is None else np.array(given, dtype=bool)
                value = Expected(values, given)
            expected[stage] = value
        object.__setattr__(self, "expect", MappingProxyType(expected))
        if self.focus < 0:
            object.__setattr__(self, "focus", len(self.tokens) + self.focus)

    @property
    def kind(self) -> str:
        """``"projection"`` when Q, K, V come from X and the W's, else ``"qkv"``."""
        return "projection" if "X" in self.inputs else "qkv"

    @property
    def editable(self) -> tuple[str, ...]:
        """The matrices a user edits: Q, K, V, or X, Wq, Wk, Wv for a projection scenario."""
        return INPUT_SETS[self.kind]

    @cached_property
    def Q(self) -> np.ndarray:
        return self._projected("Q", "Wq")

    @cached_property
    def K(self) -> np.ndarray:
        return self._projected("K", "Wk")

    @cached_property
    def V(self) -> np.ndarray:
        return self._projected("V", "Wv")

    def _projected(self, name: str, weight: str) -> np.ndarray:
        if name in self.inputs:
            return self.inputs[name]
        with np.errstate(over="ignore", invalid="ignore"):
            product = self.inputs["X"] @ self.inputs[weight]
        product.flags.writeable = False
        return product

    def matrix(self, name: str) -> np.ndarray:
        """An input matrix by name, or a projected Q, K, V."""
        return self.inputs[name] if name in self.inputs else getattr(self, name)

    @property
    def T(self) -> int:
        return len(self.tokens)

    @property
    def d_k(self) -> int:
        return self.Q.shape[1]

    @property
    def d_v(self) -> int:
        return self.V.shape[1]

    @property
    def display_name(self) -> str:
        """The file as the user named it, or the title for a scenario built in code."""
        return self.path or self.title

    def with_cell(self, name: str, row: int, col: int, value: float) -> Scenario:
        """This scenario with one input cell set to ``value``."""
        array = self.inputs[name].copy()
        array[row, col] = value
        return dataclasses.replace(self, inputs={**self.inputs, name: array})

    def with_options(self, **changes: object) -> Scenario:
        """This scenario with some options changed (``causal=False``, ``scale=True``, …)."""
        return dataclasses.replace(self, options=dataclasses.replace(self.options, **changes))

    def same_numbers(self, other: Scenario) -> bool:
        """Whether both have bit-for-bit the same inputs, options and variants (``-0.0`` ≠ 0)."""
        if (self.options, self.variants, self.expect_tolerance) != \
                (other.options, other.variants, other.expect_tolerance) \
                or self.inputs.keys() != other.inputs.keys() or self.expect.keys() != other.expect.keys():
            return False
        return all(bits_equal(self.inputs[name], other.inputs[name]) for name in self.inputs) and all(
            bits_equal(mine.values, theirs.values) and np.array_equal(mine.given, theirs.given)
            for mine, theirs in ((self.expect[name], other.expect[name]) for name in self.expect))


def bits_equal(a: np.ndarray, b: np.ndarray) -> bool:
    """Same shape and the same bits in every cell (so -0.0 differs from 0.0, and NaN equals NaN)."""
    return a.shape == b.shape and bool(np.all(a.view(np.int64) == b.view(np.int64)))
