"""The QK-norm stage's key: ``qk_norm:``, each query and key divided by its root mean square
and multiplied by a learned gain before the scores, as four model families do it::

    qk_norm: {style: qwen3, q_weight: [...], k_weight: [...], eps: 1.0e-6}

``style`` is ``qwen3`` (per head, gain = weight, one weight of d_k numbers for every head),
``gemma3`` (per head, gain = 1 + weight), ``olmo2`` (over the whole projection before it is
split into heads: a weight of heads·d_k numbers for Q and kv_heads·d_k for K) or ``llama4`` (per
head, after RoPE, no weight). A weight left out is the model's initial one (a gain of 1).
``eps`` is ε under the root (default 1e-6, as the four configs).
"""

from __future__ import annotations

from dataclasses import dataclass

from attn_tui.core.files.yaml_matrices import shape_of, values_of
from attn_tui.core.files.yaml_numbers import count, located, number, scalar_text
from attn_tui.core.files.yaml_text import yaml_number
from attn_tui.core.reading.keys import Entry, check_keys, entries

KEYS = ("qk_norm",)
STYLES = {
    "qwen3": "Qwen3: RMSNorm of each head, gain w",
    "gemma3": "Gemma 3: RMSNorm of each head, gain 1 + w",
    "olmo2": "OLMo 2: RMSNorm of the whole projection, before the heads are split",
    "llama4": "Llama 4: RMS norm of each head after RoPE, no weight",
}
LARGEST_WEIGHT = 1e6  # |weight| at most: a normed q·k stays far inside float64
DEFAULT_EPS = 1e-6


@dataclass(frozen=True)
class QKNormSetting:
    """How the queries and keys are normed: the style, the weights as given (None: the
    model's initial one) and ε."""

    style: str
    q_weight: tuple[float, ...] | None = None
    k_weight: tuple[float, ...] | None = None
    eps: float = DEFAULT_EPS

    @property
    def whole(self) -> bool:
        """Whether a row is normed over every head's columns at once (OLMo 2)."""
        return self.style == "olmo2"

    @property
    def after_rope(self) -> bool:
        return self.style == "llama4"

    def gain(self, kind: str, width: int):
        """The gain of Q (``kind`` "q") or K: ``width`` numbers (d_k, or the whole
        projection's), as a read-only float64 array."""
        import numpy as np

        weight = self.q_weight if kind == "q" else self.k_weight
        if weight is None:
            gain = np.ones(width)
        else:
            gain = np.array(weight, dtype=np.float64) + (1.0 if self.style == "gemma3" else 0.0)
        gain.flags.writeable = False
        return gain

    def describe(self) -> str:
        return f"QK-norm ({self.style})"

    def yaml(self, matrix) -> str:
        parts = [f"style: {self.style}"]
        for name, weight in (("q_weight", self.q_weight), ("k_weight", self.k_weight)):
            if weight is not None:
                parts.append(f"{name}: [" + ", ".join(yaml_number(w) for w in weight) + "]")
        if self.eps != DEFAULT_EPS:
            parts.append(f"eps: {yaml_number(self.eps)}")
        return "qk_norm: {" + ", ".join(parts) + "}\n"

    def of_head(self, h: int, heads: int) -> None:
        return None  # a head taken alone is given its queries and keys already normed


def _weight(entry: Entry | None, name: str, width: int, what: str) -> tuple[float, ...] | None:
    if entry is None:
        return None
    shape = shape_of(entry.value, f"qk_norm {name}", (1,))
    if shape[0] != width:
        raise located(
            entry.value,
            f"qk_norm {name} has {count(shape[0], 'number')} but {what} has "
            f"{count(width, 'dimension')}: one gain per dimension",
        )
    values = values_of(entry.value, f"qk_norm {name}", shape)
    for value in values:
        if not abs(value) <= LARGEST_WEIGHT:
            raise located(
                entry.value,
                f"qk_norm {name} holds {value:g}: every weight must be a finite number "
                f"within ±{LARGEST_WEIGHT:g}",
            )
    return tuple(float(value) for value in values)


def read(files, top: dict[str, Entry], plan) -> QKNormSetting | None:
    if "qk_norm" not in top:
        return None
    node = top["qk_norm"].value
    found = entries(node, "qk_norm")
    check_keys(found, ("style", "q_weight", "k_weight", "eps"), "qk_norm")
    if "style" not in found:
        raise located(node, "qk_norm needs a style: " + ", ".join(STYLES))
    style = scalar_text(found["style"].value, "qk_norm style")
    if style not in STYLES:
        raise located(
            found["style"].value,
            f"qk_norm style must be one of {', '.join(STYLES)}, not {style!r}",
        )
    eps = DEFAULT_EPS
    if "eps" in found:
        eps = number(found["eps"].value, "qk_norm eps")
        if not (0 < eps <= 1):
            raise located(found["eps"].value, f"qk_norm eps must be in (0, 1], not {eps:g}")
    if style == "llama4":
        given = [name for name in ("q_weight", "k_weight") if name in found]
        if given:
            raise located(
                found[given[0]].key,
                "Llama 4's QK-norm has no weight: give style llama4 without q_weight or k_weight",
            )
        return QKNormSetting(style, eps=eps)
    if style == "olmo2":
        if plan.heads != plan.kv_heads:
            raise located(
                found["style"].value,
                "qk_norm style olmo2 norms the whole projection: it is stepped here only when "
                f"every head has its own keys (heads = kv_heads), not {plan.heads} heads "
                f"sharing {plan.kv_heads}",
            )
        q_width, k_width = plan.heads * plan.d_k, plan.kv_heads * plan.d_k
        q_what, k_what = "the whole query projection", "the whole key projection"
    else:
        q_width = k_width = plan.d_k
        q_what = k_what = "a head"
    return QKNormSetting(
        style,
        _weight(found.get("q_weight"), "q_weight", q_width, q_what),
        _weight(found.get("k_weight"), "k_weight", k_width, k_what),
        eps,
    )
