"""The scenario: tokens, input matrices and options, as one immutable value.

A Scenario is what the loader returns and what every edit produces anew; nothing in it changes
after it is made (its arrays are read-only), so a trace, an undo history and a saved file can
all refer to one safely.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from functools import cached_property
from types import MappingProxyType
from typing import Mapping

import numpy as np

from core.numbers import fixed, mask_text
from core.yaml_source import Document

MAX_T = 4096
MAX_DIM = 4096
MAX_NUMBERS = 4_000_000

INPUT_SETS: dict[str, tuple[str, ...]] = {
    "qkv": ("Q", "K", "V"),
    "projection": ("X", "Wq", "Wk", "Wv"),
}


@dataclass(frozen=True)
class Options:
    """How the scores become weights: the causal mask, the divisor and the mask value.

    ``scale`` is True (divide by √d_k), False (do not divide) or a positive number to divide by.
    """

    causal: bool = True
    scale: bool | float = True
    mask_value: float = -math.inf

    def divisor(self, d_k: int) -> float:
        """What the scores are divided by: √d_k, 1 when unscaled, or the given number."""
        if self.scale is True:
            return float(np.sqrt(d_k))
        if self.scale is False:
            return 1.0
        return float(self.scale)

    def scale_text(self, d_k: int) -> str:
        """The divisor as a header shows it: ``÷√2 = 1.414``, ``÷4`` or ``none``."""
        if self.scale is True:
            return f"÷√{d_k} = {fixed(self.divisor(d_k), 3)}"
        if self.scale is False:
            return "none"
        return f"÷{self.scale:g}"

    def describe(self, d_k: int) -> str:
        """One line naming every option: ``causal · ÷√2 = 1.414 · mask −∞``."""
        causal = "causal" if self.causal else "not causal"
        scale = self.scale_text(d_k)
        scale = "unscaled" if scale == "none" else scale
        return f"{causal} · {scale} · mask {mask_text(self.mask_value)}"


@dataclass(frozen=True)
class Variant:
    """A named override of some options, computed as a trace of its own beside the others.

    An option the variant leaves as None follows the scenario's own, so toggling the causal
    mask in the app toggles it in every variant that does not set ``causal`` itself.
    """

    name: str
    causal: bool | None = None
    scale: bool | float | None = None
    mask_value: float | None = None

    def options(self, base: Options) -> Options:
        """The options this variant runs with, on top of the scenario's ``base`` options."""
        overrides = {key: value for key in ("causal", "scale", "mask_value")
                     if (value := getattr(self, key)) is not None}
        return dataclasses.replace(base, **overrides)


@dataclass(frozen=True)
class RandomSpec:
    """``random: {seed, T, d_k, d_v}``: the article's ``np.random.seed(seed)`` exercise."""

    seed: int
    T: int
    d_k: int
    d_v: int

    def generate(self) -> dict[str, np.ndarray]:
        """Q, K, V exactly as ``np.random.seed(seed); randn(T, d_k); randn(T, d_k); randn(T, d_v)``."""
        state = np.random.RandomState(self.seed)  # the legacy stream np.random.seed uses
        Q = state.randn(self.T, self.d_k)
        K = state.randn(self.T, self.d_k)
        V = state.randn(self.T, self.d_v)
        return {"Q": Q, "K": K, "V": V}


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
    path: str | None = None
    source: Document | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        frozen = {}
        for name, array in self.inputs.items():
            array = np.array(array, dtype=np.float64)  # a copy: the caller's array stays theirs
            array.flags.writeable = False
            frozen[name] = array
        object.__setattr__(self, "inputs", MappingProxyType(frozen))
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
        if (self.options, self.variants) != (other.options, other.variants) \
                or self.inputs.keys() != other.inputs.keys():
            return False
        return all(_bits_equal(self.inputs[name], other.inputs[name]) for name in self.inputs)


def _bits_equal(a: np.ndarray, b: np.ndarray) -> bool:
    return a.shape == b.shape and bool(np.all(a.view(np.int64) == b.view(np.int64)))
