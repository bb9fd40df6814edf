"""Does the scenario reproduce the model? Attention recomputed in float64 from a captured
layer, head by head, compared with the model's own probabilities and output.

The capture refuses to write a scenario whose arithmetic differs from the model's (a mask,
scale, bias or head order it got wrong would show here as differences near 1, not 1e-7), and
reports how close it is. The mask the scenario declares (causal, window, padding) is also
compared cell by cell with the mask the model itself used, where the model hands one to its
attention. With RoPE the comparison is made twice: with the model's own rotation (the
arithmetic check) and with exact float64 angles, as the scenario's Rotate stage computes them;
the model computes its angles in float32, so at long positions the two drift apart a little.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attn_tui.capture.captured_layer import CapturedLayer, alibi_bias

# Far above float32's rounding (about 1e-7 on a probability), far below any real mistake.
TOLERANCE = 1e-3


@dataclass(frozen=True)
class Agreement:
    """Largest absolute differences between the scenario's numbers and the model's own."""

    weights: float  # attention probabilities, with the rotation the model used
    output: float  # attention output (before the residual), relative to its size
    weights_exact_angles: float | None = None  # with exact RoPE angles, as the scenario has them
    mask_cells: int = 0  # cells where the declared mask and the model's own differ
    # generated tokens: the rows the model computed with its KV cache, step by step, against
    # the same rows of the one pass over the whole text the scenario holds
    cache: float | None = None

    @property
    def ok(self) -> bool:
        return (
            self.weights <= TOLERANCE
            and self.output <= TOLERANCE
            and self.mask_cells == 0
            and (self.cache is None or self.cache <= TOLERANCE)
        )

    def describe(self) -> str:
        """One sentence for the YAML's header and the command's report."""
        text = (
            f"the weights computed from these arrays match the model's own attention "
            f"probabilities within {self.weights:.1e}, and the output its attention output "
            f"within {self.output:.1e} (relative)"
        )
        if self.weights_exact_angles is not None:
            text += (
                f"; with RoPE's exact angles (the model rounds them to float32) the weights "
                f"are within {self.weights_exact_angles:.1e}"
            )
        if self.cache is not None:
            text += (
                f"; each row the model computed while generating, with its KV cache, is "
                f"within {self.cache:.1e} of the same row here"
            )
        return text


def agreement(layer: CapturedLayer) -> Agreement:
    """Compare ``layer``'s arrays, put through attention in float64, with the model's own."""
    if layer.Q_rotated is None:
        Q, K = normed(layer.Q, layer.qk_norm, "q"), normed(layer.K, layer.qk_norm, "k")
    else:
        Q, K = layer.Q_rotated, layer.K_rotated
    visible = layer.visible()
    weights, output = _compare(layer, Q, K, visible)
    exact = None
    if layer.rope_base is not None:
        norm, after = layer.qk_norm, layer.qk_norm is not None and layer.qk_norm.after_rope
        turned = []
        for x, kind in ((layer.Q, "q"), (layer.K, "k")):
            x = x if after else normed(x, norm, kind)
            x = rotate(x, layer.rope_base, layer.rope_dims, layer.rope_pairs)
            turned.append(normed(x, norm, kind) if after else x)
        exact, _ = _compare(layer, *turned, visible)
    mask_cells = 0
    if layer.model_visible is not None:
        mask_cells = int(np.count_nonzero(layer.model_visible != visible))
    return Agreement(
        weights=weights, output=output, weights_exact_angles=exact, mask_cells=mask_cells
    )


def _compare(
    layer: CapturedLayer, Q: np.ndarray, K: np.ndarray, visible: np.ndarray
) -> tuple[float, float]:
    worst = 0.0
    concatenated = np.empty((layer.T, layer.heads * layer.d_v))
    alibi = alibi_bias(layer.heads, layer.T, layer.T_k) if layer.alibi else None
    hidden = ~visible
    scores = np.empty((layer.T, layer.T_k))  # one T × T matrix at a time, reused: 32 MB at T = 2048
    for head in range(layer.heads):
        kv = layer.kv_head(head)
        np.matmul(Q[head], K[kv].T, out=scores)
        scores /= layer.divisor
        if layer.bias is not None:
            scores += layer.bias if layer.bias.ndim == 2 else layer.bias[head]
        if alibi is not None:
            scores += alibi[head]
        if layer.softcap is not None:
            scores /= layer.softcap
            np.tanh(scores, out=scores)
            scores *= layer.softcap
        sink = None if layer.sinks is None else float(layer.sinks[head])
        weights = masked_softmax(scores, visible, hidden, out=scores, sink=sink)
        concatenated[:, head * layer.d_v : (head + 1) * layer.d_v] = weights @ layer.V[kv]
        difference = np.subtract(weights, layer.model_weights[head], out=scores)
        worst = max(worst, float(np.max(np.abs(difference, out=difference))))
    output = concatenated @ layer.Wo + (0.0 if layer.bo is None else layer.bo)
    size = max(1.0, float(np.max(np.abs(layer.model_output))))
    return worst, float(np.max(np.abs(output - layer.model_output))) / size


def masked_softmax(
    scores: np.ndarray,
    visible: np.ndarray,
    hidden: np.ndarray | None = None,
    out: np.ndarray | None = None,
    sink: float | None = None,
) -> np.ndarray:
    """Row-wise softmax with every hidden key's weight exactly 0 (a row that sees nothing is
    all 0); ``out`` may be ``scores`` itself (then it is overwritten), ``hidden`` is ~visible.
    ``sink``: a learned sink logit, one more column of every row, in its max and its sum but
    given no weight of its own here (gpt-oss), so the row sums to less than 1."""
    if out is None:
        out = np.array(scores, dtype=np.float64)
    elif out is not scores:
        out[...] = scores
    out[~visible if hidden is None else hidden] = -np.inf
    largest = out.max(axis=1, keepdims=True)
    if sink is not None:
        largest = np.maximum(largest, sink)
    out -= np.where(np.isfinite(largest), largest, 0.0)
    np.exp(out, out=out)
    sums = out.sum(axis=1, keepdims=True)
    if sink is not None:
        sums = np.where(sums > 0, sums + np.exp(sink - largest), sums)
    np.divide(out, sums, out=out, where=sums > 0)
    out[(sums == 0)[:, 0]] = 0.0
    return out


def causal_softmax(scores: np.ndarray) -> np.ndarray:
    """Row-wise softmax with every key after the query hidden (weight exactly 0)."""
    return masked_softmax(scores, np.tri(*scores.shape, dtype=bool))


def normed(x: np.ndarray, setting, kind: str) -> np.ndarray:
    """x (heads, T, d) through QK-norm as ``setting`` (a QKNormSetting, or None: x itself)
    says: each vector divided by √(mean(x²) + ε) and multiplied by the gain of ``kind`` ("q"
    or "k"), over each head's d numbers, or over every head's at once (OLMo 2)."""
    if setting is None:
        return x
    heads, T, d = x.shape
    rows = x.transpose(1, 0, 2).reshape(T, heads * d) if setting.whole else x
    gain = setting.gain(kind, rows.shape[-1])
    out = rows / np.sqrt(np.mean(rows * rows, axis=-1, keepdims=True) + setting.eps) * gain
    return out.reshape(T, heads, d).transpose(1, 0, 2) if setting.whole else out


def rotate(x: np.ndarray, base: float, dims: int | None = None, pairs: str = "half") -> np.ndarray:
    """RoPE with exact float64 angles on the first R = ``dims`` dimensions (all when None):
    position · base^(−2j/R), positions 0 … T−1; x of shape (heads, T, d); pairs (j, j + R/2) as
    Hugging Face's rotate_half, or (2j, 2j + 1) with ``pairs`` "interleaved" (Llama 4's complex
    multiplication, GPT-J's rotate_every_two). The other dimensions pass through unturned."""
    R = x.shape[-1] if dims is None else dims
    angles = np.arange(x.shape[1])[:, None] * base ** (-2.0 * np.arange(R // 2) / R)
    cos, sin = np.cos(angles), np.sin(angles)
    if pairs == "interleaved":
        evens, odds = x[..., 0:R:2], x[..., 1:R:2]
        turned = np.empty_like(x)
        turned[..., 0:R:2] = evens * cos - odds * sin
        turned[..., 1:R:2] = odds * cos + evens * sin
        turned[..., R:] = x[..., R:]
        return turned
    first, second = x[..., : R // 2], x[..., R // 2 : R]
    return np.concatenate(
        [first * cos - second * sin, second * cos + first * sin, x[..., R:]], axis=-1
    )
