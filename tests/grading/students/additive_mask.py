# The mask is added to the scores: 0 where seen, -inf (or -1e9) where hidden; returns out only.
import numpy as np


def attention(Q, K, V, attn_mask=None):
    scores = Q @ K.transpose(0, 2, 1) / np.sqrt(Q.shape[-1])  # only batched (B, T, d) arrays
    if attn_mask is not None:
        scores = scores + attn_mask
    w = np.exp(scores - scores.max(-1, keepdims=True))
    return (w / w.sum(-1, keepdims=True)) @ V
