"""What is known of a scenario file once it is checked, before any array is built: ``Checked``,
what :func:`core.loading.scenario_file.check` returns (enough for the app's header), and
``Plan``, what a stage's reader and ``expect:`` are given once the inputs are read.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from attn_tui.core.model.options import Options, Variant


@dataclass(frozen=True)
class Checked:
    """What checking a scenario file tells before anything is built: enough to draw the app's
    header, and the promise that :func:`load` will succeed on the same text."""

    title: str
    description: str
    tokens: tuple[str, ...]
    options: Options
    variants: tuple[Variant, ...]
    kind: str
    editable: tuple[str, ...]
    T: int
    d_k: int
    d_v: int
    path: str
    heads: int = 1
    query_tokens: tuple[str, ...] | None = None
    stage_settings: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Plan:
    """What is known of a scenario once its inputs are read, before any array is built: its
    layout, what its steps depend on (see ``Stage.applies``) and how many numbers it holds."""

    T: int
    T_k: int
    d_k: int
    d_v: int
    heads: int
    kv_heads: int
    d_out: int
    inputs: frozenset[str]
    cross: bool
    numbers: int
    rope: Any = None
    causal: bool = False
    window: int | None = None
    variants: tuple = ()  # the file's variants: (core.model.options.Variant, its node)
    stage_settings: dict[str, Any] = field(default_factory=dict)

    @property
    def multi_head(self) -> bool:
        return self.heads > 1 or "Wo" in self.inputs
