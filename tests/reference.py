"""Independent implementations of attention, written from the source texts, not from attn_tui.core."""

from __future__ import annotations

import math

import numpy as np


def chapter_attention(Q, K, V, causal=True):
    """The chapter's practice code, verbatim (Chapter 24, "implement attention yourself")."""

    def softmax(x, axis=-1):
        x = x - x.max(axis=axis, keepdims=True)
        e = np.exp(x)
        return e / e.sum(axis=axis, keepdims=True)

    d_k = Q.shape[-1]
    scores = Q @ K.T / np.sqrt(d_k)
    if causal:
        n = scores.shape[0]
        mask = np.triu(np.ones((n, n)), k=1).astype(bool)
        scores[mask] = -np.inf
    weights = softmax(scores)
    return weights @ V, weights


def article_attention(Q, K, V, scale=True, causal=False):
    """The article's worked example generalised: optional scaling, its -1e9 causal mask."""
    d_k = Q.shape[-1]
    scores = Q @ K.T / (np.sqrt(d_k) if scale else 1.0)
    if causal:
        T = scores.shape[0]
        mask = np.triu(np.ones((T, T)), k=1).astype(bool)
        scores = np.where(mask, -1e9, scores)
    scores = scores - scores.max(axis=-1, keepdims=True)
    weights = np.exp(scores)
    weights /= weights.sum(axis=-1, keepdims=True)
    return weights @ V, weights


def naive_attention(Q, K, V, divisor, causal, mask_value=-math.inf):
    """Plain Python loops and math.exp: no NumPy vector arithmetic at all."""
    T, d_v = len(Q), len(V[0])
    weights = []
    for i in range(T):
        scores = []
        for j in range(T):
            if causal and j > i:
                scores.append(mask_value)
            else:
                scores.append(sum(float(a) * float(b) for a, b in zip(Q[i], K[j])) / divisor)
        top = max(scores)
        exps = [math.exp(s - top) for s in scores]
        total = sum(exps)
        weights.append([e / total for e in exps])
    output = [[sum(weights[i][j] * float(V[j][c]) for j in range(T)) for c in range(d_v)]
              for i in range(T)]
    return output, weights


def rotate_half(x, base):
    """RoPE as Hugging Face's rotate_half pairs dimensions: at position p, dimension j and
    j + d/2 are turned together by the angle p · base^(−2j/d), j = 0 … d/2 − 1."""
    T, d = x.shape
    turned = np.array(x, dtype=np.float64)
    for p in range(T):
        for j in range(d // 2):
            angle = p * base ** (-2 * j / d)
            a, b = x[p, j], x[p, j + d // 2]
            turned[p, j] = a * math.cos(angle) - b * math.sin(angle)
            turned[p, j + d // 2] = a * math.sin(angle) + b * math.cos(angle)
    return turned
