# Returns a 6,000 × 6,000 array (275 MB) for a 3 × 2 output: over what an answer may be.
import numpy as np


def attention(Q, K, V, causal=True):
    return np.ones((6000, 6000))
