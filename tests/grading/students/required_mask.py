# The mask is a required argument (no default): True = may attend. Given None it would hide
# every key (np.where(None, …) takes the -inf side everywhere).
import numpy as np


def attention(q, k, v, mask):
    scores = q @ k.T / np.sqrt(q.shape[-1])
    scores = np.where(mask, scores, -np.inf)
    w = np.exp(scores - scores.max(axis=-1, keepdims=True))
    w /= w.sum(axis=-1, keepdims=True)
    return w @ v, w
