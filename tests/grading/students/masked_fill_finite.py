# A boolean mask (True = may attend), hidden scores replaced by -1e9 (not -inf): a row whose
# every key is hidden gets uniform weights.
import numpy as np


def attention(q, k, v, mask=None):
    scores = q @ k.T / np.sqrt(q.shape[-1])
    if mask is not None:
        scores = np.where(mask, scores, -1e9)
    w = np.exp(scores - scores.max(axis=-1, keepdims=True))
    w /= w.sum(axis=-1, keepdims=True)
    return w @ v, w
