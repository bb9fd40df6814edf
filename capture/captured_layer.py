"""What one layer's attention used and produced, as float64 NumPy arrays: the capture's result,
before it is written as a scenario. Pure NumPy, so checking and writing it need no PyTorch."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from attn_tui.core.reading.qk_norm import QKNormSetting


@dataclass
class CapturedLayer:
    """One attention layer, run on one text.

    ``Q`` (H, T_q, d_k), ``K`` (G, T_k, d_k) and ``V`` (G, T_k, d_v) are what the scenario holds:
    with ``rope_base`` set, Q and K are before the rotary embedding (the scenario's Rotate stage
    applies it to their first ``rope_dims`` dimensions); otherwise they are what the scores are
    computed from. Query head h reads key/value head h // (H / G). ``model_weights``
    (H, T_q, T_k) and ``model_output`` (T_q, d_out) are the model's own attention probabilities
    and attention output (before the residual), kept to check the scenario against.

    The scores go: Q·Kᵀ ÷ ``divisor``, + ``bias`` (H × T_q × T_k, T5's relative position bias)
    or ALiBi's −slope·|i − j| (``alibi``), then ``softcap``·tanh(x / ``softcap``) (Gemma 2), then
    the mask: ``causal``, a sliding ``window`` (a query sees the w most recent positions, itself
    included), a ``chunk`` (a query sees only the keys of its own block of C positions),
    ``padding`` (1 = a key never attended). ``sinks`` (H,), gpt-oss's learned sink logits: each
    head's is one more column of every row's scores in the softmax, dropped after it, so a row's
    weights sum to less than 1.
    """

    family: str  # "GPT-2", "Llama": for the description
    Q: np.ndarray
    K: np.ndarray
    V: np.ndarray
    Wo: np.ndarray  # (H·d_v, d_out): output = concat(head outputs) · Wo + bo
    bo: np.ndarray | None  # (d_out,), or None when the model's output projection has no bias
    divisor: float  # what the model divides the scores by
    model_weights: np.ndarray
    model_output: np.ndarray
    rope_base: float | None = None
    rope_dims: int | None = None  # how many of each head's dimensions turn (None: all of them)
    rope_pairs: str = "half"  # "half": (j, j + R/2), rotate_half; "interleaved": (2j, 2j + 1)
    # Q and K as the model rotated them (its own float32 angles), and normed when qk_norm is
    # set, when rope_base is set: as the scores use them. The capture checks its arithmetic
    # against these, and reports the exact angles' difference.
    Q_rotated: np.ndarray | None = None
    K_rotated: np.ndarray | None = None
    causal: bool = True
    window: int | None = None
    chunk: int | None = None
    sinks: np.ndarray | None = None
    # QK-norm, as the scenario's qk_norm: writes it: Q and K are then before the norm
    qk_norm: QKNormSetting | None = None
    padding: tuple[int, ...] | None = None
    bias: np.ndarray | None = None
    alibi: bool = False
    softcap: float | None = None
    cross: bool = False  # the queries come from another sequence than the keys (T_q ≠ T_k)
    # which keys the model's own mask let each query see (T_q × T_k), where the model gave one
    model_visible: np.ndarray | None = None
    # how position reaches this layer's attention, as the index records it: "rope", "nope" (no
    # position at all), "learned" or "sinusoidal" (added to the embeddings before layer 0),
    # "alibi", "relative" (a bias on the scores); None: not said
    position: str | None = None
    notes: list[str] = field(default_factory=list)  # sentences for the description
    inputs: str = ""  # one sentence: where Q, K and V come from in this model

    @property
    def heads(self) -> int:
        return self.Q.shape[0]

    @property
    def kv_heads(self) -> int:
        return self.K.shape[0]

    @property
    def T(self) -> int:
        return self.Q.shape[1]

    @property
    def T_k(self) -> int:
        return self.K.shape[1]

    @property
    def d_k(self) -> int:
        return self.Q.shape[2]

    @property
    def d_v(self) -> int:
        return self.V.shape[2]

    def kv_head(self, head: int) -> int:
        """The key/value head that query head ``head`` reads (Hugging Face's repeat_kv)."""
        return head // (self.heads // self.kv_heads)

    def visible(self) -> np.ndarray:
        """Which keys each query may see under this layer's declared mask (T_q × T_k)."""
        rows, cols = np.arange(self.T)[:, None], np.arange(self.T_k)[None, :]
        seen = np.ones((self.T, self.T_k), dtype=bool)
        if self.causal:
            seen &= cols <= rows
        if self.window is not None:
            seen &= (cols > rows - self.window) & (cols <= rows)
        if self.chunk is not None:
            seen &= rows // self.chunk == cols // self.chunk
        if self.padding is not None:
            seen &= ~np.asarray(self.padding, dtype=bool)[None, :]
        return seen


def alibi_slopes(heads: int) -> np.ndarray:
    """ALiBi's slope of each head (Press et al.): 2^(−8h/H) for h = 1…H when H is a power of
    two; otherwise those of the power of two n below H, then every other slope of 2n's."""

    def powers_of_two(n: int) -> list[float]:
        return [2.0 ** (-8.0 * h / n) for h in range(1, n + 1)]

    n = 1 << (heads.bit_length() - 1)
    slopes = powers_of_two(n)
    if n < heads:
        slopes += powers_of_two(2 * n)[0::2][: heads - n]
    return np.array(slopes)


def alibi_bias(heads: int, T_q: int, T_k: int) -> np.ndarray:
    """ALiBi's bias, −slope·|i − j|, for every head (H × T_q × T_k)."""
    distance = np.abs(np.arange(T_q)[:, None] - np.arange(T_k)[None, :])
    return -alibi_slopes(heads)[:, None, None] * distance[None]
