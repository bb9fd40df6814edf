# The mask off by one (k=0 hides the diagonal too), written with -1e9 instead of -inf: the first
# token sees nothing, and its row of -1e9s gives uniform weights where -inf would give NaN.
import numpy as np


def attention(Q, K, V, causal=True):
    s = Q @ K.T / np.sqrt(Q.shape[-1])
    if causal:
        T = s.shape[0]
        mask = np.triu(np.ones((T, T)), k=0)
        s = np.where(mask == 1, -1e9, s)
    w = np.exp(s - s.max(axis=-1, keepdims=True))
    w /= w.sum(axis=-1, keepdims=True)
    return w @ V, w
