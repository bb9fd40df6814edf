# Right weights, but the weighted sum uses the weights' transpose: weights.T @ V.
import numpy as np


def attention(Q, K, V, causal=True):
    scores = Q @ K.T / np.sqrt(Q.shape[-1])
    if causal:
        scores = np.where(np.triu(np.ones(scores.shape, bool), k=1), -np.inf, scores)
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights /= weights.sum(axis=-1, keepdims=True)
    return weights.T @ V, weights
