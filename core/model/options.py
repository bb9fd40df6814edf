"""A scenario's options, variants, limits and random inputs: plain values, no NumPy.

Kept apart from ``core.model.scenario`` so that checking a scenario file (which the command line
does before it starts the app) needs neither NumPy nor anything that imports it.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

from attn_tui.core.numbers import fixed, mask_text

if TYPE_CHECKING:
    import numpy as np

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
            return math.sqrt(d_k)  # correctly rounded, the same bits as np.sqrt
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
        overrides = {
            key: value
            for key in ("causal", "scale", "mask_value")
            if (value := getattr(self, key)) is not None
        }
        return dataclasses.replace(base, **overrides)


@dataclass(frozen=True)
class RandomSpec:
    """``random: {seed, T, d_k, d_v}``: the article's ``np.random.seed(seed)`` exercise."""

    seed: int
    T: int
    d_k: int
    d_v: int

    def generate(self) -> dict[str, np.ndarray]:
        """Q, K, V exactly as
        ``np.random.seed(seed); randn(T, d_k); randn(T, d_k); randn(T, d_v)``."""
        import numpy as np

        state = np.random.RandomState(self.seed)  # the legacy stream np.random.seed uses
        Q = state.randn(self.T, self.d_k)
        K = state.randn(self.T, self.d_k)
        V = state.randn(self.T, self.d_v)
        return {"Q": Q, "K": K, "V": V}


@dataclass(frozen=True)
class Expected:
    """A student's values for one stage; ``given`` is False where they left a cell out (null)."""

    values: np.ndarray
    given: np.ndarray
