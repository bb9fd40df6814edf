# The right attention under a name of the student's own: the one function that takes (Q, K, V).
import numpy as np


def scaled_dot_product(Q, K, V, causal=True):
    s = Q @ K.T / np.sqrt(Q.shape[-1])
    if causal:
        s = np.where(np.triu(np.ones(s.shape, bool), k=1), -np.inf, s)
    w = np.exp(s - s.max(axis=-1, keepdims=True))
    w /= w.sum(axis=-1, keepdims=True)
    return w @ V, w


def show(w):
    print(w.round(2))
