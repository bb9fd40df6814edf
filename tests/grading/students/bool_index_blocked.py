# A bool mask, True where a key is hidden, used as an index: it must be bool (a float mask of 1s
# and 0s is no index at all).
import numpy as np


def attention(Q, K, V, mask=None):
    scores = Q @ K.T / np.sqrt(Q.shape[-1])
    if mask is not None:
        scores[mask] = -np.inf
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights /= weights.sum(axis=-1, keepdims=True)
    return weights @ V, weights
