# A mask of 1 = blocked, added to the scores times -1e9: a row whose every key is hidden has
# -1e9 added to every score, which the softmax does not see (its weights are the row unmasked).
import numpy as np


def attention(Q, K, V, mask=None):
    scores = Q @ K.T / np.sqrt(Q.shape[-1])
    if mask is not None:
        scores = scores + mask * -1e9
    w = np.exp(scores - scores.max(axis=-1, keepdims=True))
    w /= w.sum(axis=-1, keepdims=True)
    return w @ V, w
