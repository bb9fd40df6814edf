"""Does the scenario reproduce the model? Attention recomputed in float64 from a captured
layer, head by head, compared with the model's own probabilities and output.

The capture refuses to write a scenario whose arithmetic differs from the model's (a mask,
scale or head order it got wrong would show here as differences near 1, not 1e-7), and
reports how close it is. With RoPE the comparison is made twice: with the model's own rotation
(the arithmetic check) and with exact float64 angles, as the scenario's Rotate stage computes
them; the model computes its angles in float32, so at long positions the two drift apart a little.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attn_tui.capture.captured_layer import CapturedLayer

# Far above float32's rounding (about 1e-7 on a probability), far below any real mistake.
TOLERANCE = 1e-3


@dataclass(frozen=True)
class Agreement:
    """Largest absolute differences between the scenario's numbers and the model's own."""

    weights: float                 # attention probabilities, with the rotation the model used
    output: float                  # attention output (before the residual), relative to its size
    weights_exact_angles: float | None = None  # with exact RoPE angles, as the scenario has them

    @property
    def ok(self) -> bool:
        return self.weights <= TOLERANCE and self.output <= TOLERANCE

    def describe(self) -> str:
        """One sentence for the YAML's header and the command's report."""
        text = (f"the weights computed from these arrays match the model's own attention "
                f"probabilities within {self.weights:.1e}, and the output its attention output "
                f"within {self.output:.1e} (relative)")
        if self.weights_exact_angles is not None:
            text += (f"; with RoPE's exact angles (the model rounds them to float32) the weights "
                     f"are within {self.weights_exact_angles:.1e}")
        return text


def agreement(layer: CapturedLayer) -> Agreement:
    """Compare ``layer``'s arrays, put through attention in float64, with the model's own."""
    Q = layer.Q if layer.Q_rotated is None else layer.Q_rotated
    K = layer.K if layer.K_rotated is None else layer.K_rotated
    weights, output = _compare(layer, Q, K)
    exact = None
    if layer.rope_base is not None:
        base = layer.rope_base
        exact, _ = _compare(layer, rotate(layer.Q, base), rotate(layer.K, base))
    return Agreement(weights=weights, output=output, weights_exact_angles=exact)


def _compare(layer: CapturedLayer, Q: np.ndarray, K: np.ndarray) -> tuple[float, float]:
    worst = 0.0
    concatenated = np.empty((layer.T, layer.heads * layer.d_v))
    for head in range(layer.heads):  # one T × T matrix at a time: 32 MB at T = 2048
        kv = layer.kv_head(head)
        weights = causal_softmax(Q[head] @ K[kv].T / layer.divisor)
        worst = max(worst, float(np.max(np.abs(weights - layer.model_weights[head]))))
        concatenated[:, head * layer.d_v:(head + 1) * layer.d_v] = weights @ layer.V[kv]
    output = concatenated @ layer.Wo + (0.0 if layer.bo is None else layer.bo)
    size = max(1.0, float(np.max(np.abs(layer.model_output))))
    return worst, float(np.max(np.abs(output - layer.model_output))) / size


def causal_softmax(scores: np.ndarray) -> np.ndarray:
    """Row-wise softmax with every key after the query hidden (weight exactly 0)."""
    scores = np.where(np.tri(*scores.shape, dtype=bool), scores, -np.inf)
    scores = scores - scores.max(axis=1, keepdims=True)
    exponentials = np.exp(scores)
    return exponentials / exponentials.sum(axis=1, keepdims=True)


def rotate(x: np.ndarray, base: float) -> np.ndarray:
    """RoPE with exact float64 angles, pairs (j, j + d/2) as Hugging Face's rotate_half:
    position · base^(−2j/d), positions 0 … T−1; x of shape (heads, T, d)."""
    d = x.shape[-1]
    angles = np.arange(x.shape[1])[:, None] * base ** (-2.0 * np.arange(d // 2) / d)
    cos, sin = np.cos(angles), np.sin(angles)
    first, second = x[..., :d // 2], x[..., d // 2:]
    return np.concatenate([first * cos - second * sin, second * cos + first * sin], axis=-1)
