"""What one layer's attention used and produced, as float64 NumPy arrays: the capture's result,
before it is written as a scenario. Pure NumPy, so checking and writing it need no PyTorch."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass
class CapturedLayer:
    """One attention layer, run on one text.

    ``Q`` (H, T, d_k), ``K`` (G, T, d_k) and ``V`` (G, T, d_v) are what the scenario holds:
    with ``rope_base`` set, Q and K are before the rotary embedding (the scenario's Rotate stage
    applies it); otherwise they are what the scores are computed from. Query head h reads
    key/value head h // (H / G). ``model_weights`` (H, T, T) and ``model_output`` (T, d_out)
    are the model's own attention probabilities and attention output (before the residual),
    kept to check the scenario against.
    """

    family: str              # "GPT-2", "Llama": for the description
    Q: np.ndarray
    K: np.ndarray
    V: np.ndarray
    Wo: np.ndarray           # (H·d_v, d_out): output = concat(head outputs) · Wo + bo
    bo: np.ndarray | None    # (d_out,), or None when the model's output projection has no bias
    divisor: float           # what the model divides the scores by
    model_weights: np.ndarray
    model_output: np.ndarray
    rope_base: float | None = None
    # Q and K as the model rotated them (its own float32 angles), when rope_base is set: the
    # capture checks its arithmetic against these, and reports the exact angles' difference.
    Q_rotated: np.ndarray | None = None
    K_rotated: np.ndarray | None = None
    notes: list[str] = field(default_factory=list)  # sentences for the description
    inputs: str = ""         # one sentence: where Q, K and V come from in this model

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
    def d_k(self) -> int:
        return self.Q.shape[2]

    @property
    def d_v(self) -> int:
        return self.V.shape[2]

    def kv_head(self, head: int) -> int:
        """The key/value head that query head ``head`` reads (Hugging Face's repeat_kv)."""
        return head // (self.heads // self.kv_heads)
