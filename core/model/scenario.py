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

from attn_tui.core.files.numpy_files import ArrayRef
from attn_tui.core.files.yaml_source import Document
from attn_tui.core.model.generation import Generation
from attn_tui.core.model.lesson import Lesson
from attn_tui.core.model.masks import Visibility
from attn_tui.core.model.options import INPUT_SETS, Expected, Options, RandomSpec, Variant  # noqa: F401 (re-exported)
from attn_tui.core.model.rope import Rope
from attn_tui.core.model.settings import StageSetting


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
    query_tokens: tuple[str, ...] | None = None  # cross-attention: the T_q query rows' labels
    heads: int = 1
    kv_heads: int = 0  # key/value heads (grouped-query attention); 0: as many as heads
    head_names: tuple[str, ...] = ()
    window: int | None = None  # a query sees only the w most recent positions, itself included
    padding: tuple[bool, ...] | None = None  # per key: True = padding, never attended
    mask: np.ndarray | None = field(default=None, repr=False)  # T_q × T_k, True = may attend
    rope: Rope | None = None
    # what a stage's own keys gave it (``Stage.scenario_keys``), by stage name: a bias, …
    stage_settings: Mapping[str, StageSetting] = field(default_factory=dict)
    # a setting the command line gave (--tiles, --decode): the file's own (None: it had none),
    # which saving keeps while the setting stays as the command line made it (a view of one run)
    file_settings: Mapping[str, object | None] = field(default_factory=dict)
    heads_written: bool = (
        False  # the file says heads: (then --json is per head, whatever the count)
    )
    lesson: Lesson | None = None  # a teacher's beats (core.model.lesson)
    generated: Generation | None = None  # the tokens a model chose itself, and how surely

    def __post_init__(self) -> None:
        frozen = {}
        for name, array in self.inputs.items():
            if not (
                isinstance(array, np.ndarray)
                and array.dtype == np.float64
                and not array.flags.writeable
            ):
                array = np.array(array, dtype=np.float64)  # a copy: the caller's array stays theirs
                array.flags.writeable = False
            frozen[name] = array  # (a read-only float64 array is shared: edits copy, never write)
        object.__setattr__(self, "inputs", MappingProxyType(frozen))
        expected = {}
        for stage, value in self.expect.items():
            if not isinstance(value, Expected):  # (values, given) as read from the file
                values, given = value
                values = np.array(values, dtype=np.float64)
                given = (
                    np.ones(values.shape, bool) if given is None else np.array(given, dtype=bool)
                )
                value = Expected(values, given)
            expected[stage] = value
        object.__setattr__(self, "expect", MappingProxyType(expected))
        if self.focus < 0:
            object.__setattr__(self, "focus", len(self.row_tokens) + self.focus)
        if not self.kv_heads:
            object.__setattr__(self, "kv_heads", self.heads)
        if not self.head_names:
            object.__setattr__(
                self, "head_names", tuple(f"head {h + 1}" for h in range(self.heads))
            )
        if self.mask is not None:
            mask = np.array(self.mask, dtype=bool)
            mask.flags.writeable = False
            object.__setattr__(self, "mask", mask)

    @property
    def kind(self) -> str:
        """``"projection"`` when Q, K, V come from X and the W's, else ``"qkv"``."""
        return "projection" if "X" in self.inputs else "qkv"

    @property
    def editable(self) -> tuple[str, ...]:
        """The matrices a user edits: Q, K, V, or X (X_q), Wq, Wk, Wv; and Wo, bo if given."""
        names = [name for name in INPUT_SETS[self.kind] if name in self.inputs]
        if self.kind == "projection" and self.cross:
            names.insert(1, "X_q")
        return tuple(names + [name for name in ("Wo", "bo", "bias") if name in self.inputs])

    @property
    def cross(self) -> bool:
        """Cross-attention: the queries come from another sequence than the keys and values."""
        return self.query_tokens is not None

    @property
    def row_tokens(self) -> tuple[str, ...]:
        """The labels of the query rows (``tokens`` unless this is cross-attention)."""
        return self.query_tokens if self.query_tokens is not None else self.tokens

    @property
    def multi_head(self) -> bool:
        """Several heads, or one head with an output projection: concat and project apply."""
        return self.heads > 1 or "Wo" in self.inputs

    @cached_property
    def Q(self) -> np.ndarray:
        """Head 1's queries before any rotation (one head: the queries)."""
        return self._projected("Q")

    @cached_property
    def K(self) -> np.ndarray:
        return self._projected("K")

    @cached_property
    def V(self) -> np.ndarray:
        return self._projected("V")

    def _projected(self, name: str) -> np.ndarray:
        if name in self.inputs:
            array = self.inputs[name]
            return array[0] if array.ndim == 3 else array
        X = self.inputs["X_q" if name == "Q" and self.cross else "X"]
        W = self.inputs["W" + name.lower()]
        width = self.d_v if name == "V" else self.d_k
        with np.errstate(over="ignore", invalid="ignore"):
            product = X @ W[:, :width]
        product.flags.writeable = False
        return product

    def matrix(self, name: str) -> np.ndarray:
        """An input matrix by name, or head 1's projected Q, K, V."""
        return self.inputs[name] if name in self.inputs else getattr(self, name)

    @property
    def T(self) -> int:
        """The number of query rows."""
        return len(self.row_tokens)

    @property
    def T_k(self) -> int:
        """The number of keys (and values)."""
        return len(self.tokens)

    @property
    def d_k(self) -> int:
        if self.kind == "qkv":
            return self.inputs["Q"].shape[-1]
        return self.inputs["Wq"].shape[1] // self.heads

    @property
    def d_v(self) -> int:
        if self.kind == "qkv":
            return self.inputs["V"].shape[-1]
        return self.inputs["Wv"].shape[1] // self.kv_heads

    @property
    def d_out(self) -> int:
        """The width of the final output: Wo's columns, else the concatenated heads'."""
        return self.inputs["Wo"].shape[1] if "Wo" in self.inputs else self.heads * self.d_v

    def describe(self, options: Options | None = None) -> str:
        """The options and every mask rule in one line: ``causal · window 3 · ÷√2 = 1.414 ·
        mask −∞`` (and padding, an explicit mask, RoPE)."""
        parts = [(options or self.options).describe(self.d_k)]
        extra = []
        if self.window is not None:
            extra.append(f"window {self.window}")
        if self.padding is not None:
            padded = sum(self.padding)
            extra.append(f"padding ({padded} key{'s' if padded != 1 else ''})")
        if self.mask is not None:
            extra.append("an explicit mask")
        if self.rope is not None:
            turned = (
                ""
                if self.rope.dims is None
                else f", the first {self.rope.dims} of {self.d_k} dimensions"
            )
            extra.append(f"RoPE (base {self.rope.base:g}{turned})")
        if self.stage_settings:
            extra += [setting.describe() for setting in self.stage_settings.values()]
        return " · ".join(parts + extra)

    def visibility(self, options: Options | None = None, causal_offset: int = 1) -> Visibility:
        """The mask rules in force under ``options`` (default: the scenario's own)."""
        options = options or self.options
        padding = None if self.padding is None else np.array(self.padding, dtype=bool)
        chunked = self.stage_settings.get("mask")  # (chunk: C, core.reading.chunk)
        # the chunks start at the first token after the left padding
        start = 0 if padding is None or padding.all() else int(np.argmin(padding))
        return Visibility(
            causal=options.causal,
            window=self.window,
            padding=padding,
            explicit=self.mask,
            causal_offset=causal_offset,
            chunk=None if chunked is None else chunked.size,
            chunk_start=start,
        )

    @property
    def display_name(self) -> str:
        """The file as the user named it, or the title for a scenario built in code."""
        return self.path or self.title

    def with_cell(
        self, name: str, row: int, col: int, value: float, head: int | None = None
    ) -> Scenario:
        """This scenario with one input cell set to ``value`` (of ``head``, in a 3-D input)."""
        array = self.inputs[name].copy()
        array[(row, col) if head is None else (head, row, col)] = value
        array.flags.writeable = False
        return dataclasses.replace(self, inputs={**self.inputs, name: array})

    def with_options(self, **changes: object) -> Scenario:
        """This scenario with some options changed (``causal=False``, ``scale=True``, …)."""
        return dataclasses.replace(self, options=dataclasses.replace(self.options, **changes))

    def same_numbers(self, other: Scenario) -> bool:
        """Whether both have bit-for-bit the same inputs, options and variants (``-0.0`` ≠ 0)."""
        if (
            (self.options, self.variants, self.expect_tolerance)
            != (other.options, other.variants, other.expect_tolerance)
            or self.inputs.keys() != other.inputs.keys()
            or self.expect.keys() != other.expect.keys()
        ):
            return False
        return all(
            bits_equal(self.inputs[name], other.inputs[name]) for name in self.inputs
        ) and all(
            bits_equal(mine.values, theirs.values) and np.array_equal(mine.given, theirs.given)
            for mine, theirs in ((self.expect[name], other.expect[name]) for name in self.expect)
        )


def bits_equal(a: np.ndarray, b: np.ndarray) -> bool:
    """Same shape and the same bits in every cell (so -0.0 differs from 0.0, and NaN equals NaN)."""
    return a.shape == b.shape and bool(np.all(a.view(np.int64) == b.view(np.int64)))


def working_copy(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A float64 copy of an input to write edits into in place, and the read-only view of it a
    Scenario holds (nothing outside the writer can change it)."""
    working = np.array(values, dtype=np.float64)
    view = working.view()
    view.flags.writeable = False
    return working, view
