import numpy as np


def attention(Q, K, V, causal):
    Q, K, V = (a.astype(np.float32) for a in (Q, K, V))
    s = Q @ K.T / np.float32(np.sqrt(Q.shape[1]))
    if causal:
        s = s + np.triu(np.full(s.shape, -1e9, np.float32), 1)
    s = s - s.max(axis=1, keepdims=True)
    w = np.exp(s)
    w /= w.sum(axis=1, keepdims=True)
    return w @ V, w
