"""QK-norm's arithmetic: each query and key (a row) divided by its root mean square and
multiplied by a learned gain, before the scores, and that division's gradient.

    y = g ∘ x / rms(x),   rms(x) = √(mean(x²) + ε)

is transformers' ``Qwen3RMSNorm`` (g = its weight, per head), ``Gemma3RMSNorm`` (g = 1 + its
weight), ``Olmo2RMSNorm`` (over the whole projection, every head's columns at once) and
``Llama4TextL2Norm`` (no weight, g = 1; despite its name it divides by the root mean square, not
the length). Whatever the size of x, ‖x / rms(x)‖ ≤ √n for n numbers, so ‖y‖ ≤ √n · max|g|.
"""

from __future__ import annotations

import numpy as np


def rms(x: np.ndarray, eps: float) -> np.ndarray:
    """Each row's root mean square (with ε under the root), as a column. A row whose squares
    overflow float64 is measured in units of its largest |value| (ε is nothing beside it)."""
    with np.errstate(over="ignore"):
        found = np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps)
    huge = ~np.isfinite(found[:, 0]) if found.ndim == 2 else None
    if huge is not None and huge.any():
        rows = x[huge]
        unit = np.abs(rows).max(axis=-1, keepdims=True)
        found[huge] = unit * np.sqrt(np.mean((rows / unit) ** 2, axis=-1, keepdims=True))
    return found


def normed(x: np.ndarray, gain: np.ndarray, eps: float) -> np.ndarray:
    """Each row of ``x`` divided by its root mean square, times ``gain``."""
    with np.errstate(over="ignore", invalid="ignore"):
        return gain * (x / rms(x, eps))


def normed_back(x: np.ndarray, gain: np.ndarray, eps: float, dy: np.ndarray) -> np.ndarray:
    """dL/dx from dL/dy for y = normed(x): with r = 1 / rms(x) and n numbers a row,

    dx_j = r·g_j·dy_j − x_j · r³ · Σ_i g_i·dy_i·x_i / n

    (the first term as if rms were a constant; the second because every x_i moves rms)."""
    r = 1.0 / rms(x, eps)
    along = np.sum(gain * dy * x, axis=-1, keepdims=True) / x.shape[-1]
    return r * gain * dy - x * r**3 * along
