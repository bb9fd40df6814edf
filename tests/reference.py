"""The float64 reference for the tests: attention written from the source texts, the papers and
Hugging Face's formulas, importing nothing of attn_tui (so that a mistake in core's arithmetic
cannot hide in its own check). Random scenarios written as YAML text, with this reference's
result for each, are tests/random_scenarios.py; the PyTorch-autograd reference is
tests/torch_attention.py.

The source texts' own code comes first, as they print it (the chapter's practice code with its
softmax, the article's worked example, and a version in plain Python loops with no NumPy
arithmetic). Then the reference itself, one softmax and one attention:

scores = q·k (after RoPE: GPT-NeoX's partial rotary turns the first ``dims`` dimensions with
rotate_half, GPT-J's interleaved pairs 2k, 2k+1), scaled = scores / √d_k, ALiBi (Press et al.:
m_h = 2^(−8h/H), the paper's rule for H not a power of two) or an explicit bias added, Gemma 2's
softcap c·tanh(x/c), then the mask rules, a softmax over the visible keys, the weighted sum of V
(grouped-query attention: head h reads key/value head h // (H/G)), and the heads side by side
times Wo plus bo.
"""

from __future__ import annotations

import math

import numpy as np

# ---- the source texts' code ---------------------------------------------------------------------


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
    output = [
        [sum(weights[i][j] * float(V[j][c]) for j in range(T)) for c in range(d_v)]
        for i in range(T)
    ]
    return output, weights


# ---- the reference ------------------------------------------------------------------------------


def softmax(masked, axis=-1):
    """The softmax of each row over the last axis (or ``axis``: a student's softmax over the
    wrong one), shifted by the row's largest score; a hidden key is −∞ there and gets weight 0
    (a row that is −∞ throughout is all zeros)."""
    masked = np.asarray(masked, dtype=np.float64)
    top = masked.max(axis=axis, keepdims=True)
    e = np.exp(masked - np.where(np.isfinite(top), top, 0.0))
    total = e.sum(axis=axis, keepdims=True)
    return np.divide(e, total, out=np.zeros_like(e), where=total > 0)


def causal_softmax(scores):
    """The softmax of a square matrix of scores with the causal mask: query i sees keys 0 … i."""
    scores = np.asarray(scores, dtype=np.float64)
    return softmax(np.where(np.tri(*scores.shape[-2:], dtype=bool), scores, -math.inf))


def paper_slopes(n: int) -> list[float]:
    """ALiBi's get_slopes, from the paper's repository (ofirpress/attention_with_linear_biases)."""

    def power_of_2(n):
        start = 2 ** (-(2 ** -(math.log2(n) - 3)))
        ratio = start
        return [start * ratio**i for i in range(n)]

    if math.log2(n).is_integer():
        return power_of_2(n)
    closest = 2 ** math.floor(math.log2(n))
    return power_of_2(closest) + paper_slopes(2 * closest)[0::2][: n - closest]


def rope(x: np.ndarray, base: float, dims: int | None, pairs: str) -> np.ndarray:
    """x (positions × d) turned: NeoX's rotate_half on the first ``dims`` (or all) dimensions,
    or GPT-J's rotate_every_two."""
    d = x.shape[1]
    r = d if dims is None else dims
    inv_freq = 1.0 / (base ** (np.arange(0, r, 2, dtype=np.float64) / r))
    t = np.arange(x.shape[0], dtype=np.float64)
    freqs = np.outer(t, inv_freq)  # positions × r/2
    out = x.copy()
    rot = x[:, :r]
    if pairs == "half":
        emb = np.concatenate([freqs, freqs], axis=1)
        cos, sin = np.cos(emb), np.sin(emb)
        half = np.concatenate([-rot[:, r // 2 :], rot[:, : r // 2]], axis=1)
        out[:, :r] = rot * cos + half * sin
    else:
        cos, sin = np.repeat(np.cos(freqs), 2, axis=1), np.repeat(np.sin(freqs), 2, axis=1)
        every_two = np.empty_like(rot)
        every_two[:, 0::2] = -rot[:, 1::2]
        every_two[:, 1::2] = rot[:, 0::2]
        out[:, :r] = rot * cos + every_two * sin
    return out


def rotate_half(x, base):
    """RoPE as Hugging Face's rotate_half pairs dimensions: at position p, dimension j and
    j + d/2 are turned together by the angle p · base^(−2j/d), j = 0 … d/2 − 1."""
    return rope(np.asarray(x, dtype=np.float64), base, None, "half")


def attention(
    Q,
    K,
    V,
    *,
    visible,
    bias=None,
    softcap=None,
    rope_spec=None,
    Wo=None,
    bo=None,
    divisor=None,
    mask_value=-math.inf,
    sinks=None,
    qk_norm=None,
):
    """Q: H × T_q × d_k, K: G × T_k × d_k, V: G × T_k × d_v; visible: T_q × T_k;
    bias: H × T_q × T_k or None; rope_spec (base, dims or None, "half" or "interleaved") or None;
    a hidden cell's score is mask_value (−∞, or a finite value that leaks); sinks: each head's
    learned sink logit, softmaxed as one more column of every row and then dropped, as
    transformers' gpt_oss/modeling_gpt_oss.py eager_attention_forward does. Returns per head a
    dict of stages (q and k after RoPE, scores, scaled, biased and capped where there are such,
    masked, weights, output), then concat, and projected (None without Wo)."""
    H, G = len(Q), len(K)
    d_k = Q.shape[2]
    divisor = math.sqrt(d_k) if divisor is None else divisor
    heads = []
    for h in range(H):
        g = h // (H // G)
        q, k, v = Q[h], K[g], V[g]
        if rope_spec is not None:
            q, k = rope(q, *rope_spec), rope(k, *rope_spec)
        if qk_norm is not None:
            assert qk_norm["style"] == "llama4", "this reference norms as Llama 4 only"
            eps = float(qk_norm.get("eps", 1e-6))
            q, k = (x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps) for x in (q, k))
        scores = q @ k.T
        scaled = scores / divisor
        stage = dict(q=q, k=k, scores=scores, scaled=scaled)
        x = scaled
        if bias is not None:
            x = x + bias[h]
            stage["biased"] = x
        if softcap is not None:
            x = softcap * np.tanh(x / softcap)
            stage["capped"] = x
        masked = np.where(visible, x, mask_value)
        stage["masked"] = masked
        if sinks is None:
            weights = softmax(masked)
        else:
            column = np.full((masked.shape[0], 1), float(sinks[h]))
            weights = softmax(np.concatenate([masked, column], axis=1))[:, :-1]
        weights[~visible.any(axis=1)] = 0.0  # a row that sees no key has no weights at all
        stage["weights"] = weights
        stage["output"] = weights @ v
        heads.append(stage)
    concat = np.concatenate([stage["output"] for stage in heads], axis=1)
    projected = None if Wo is None else concat @ Wo + (0 if bo is None else bo)
    return heads, concat, projected


def online_walk(scores, counted, V, Bc: int, skipped) -> list[dict]:
    """FlashAttention's Algorithm 1 (Dao et al. 2022) for one query row, in plain Python: after
    each tile of ``Bc`` keys, the tile's largest counted score, the running largest m (−∞ before
    any), the running sum l, the correction exp(m_old − m_new) (None until a tile counts) and the
    unnormalised acc. ``counted[j]``: whether key j's score takes part (the visible keys; every key
    under a finite mask value); ``skipped[t]``: a tile the whole query tile sees nothing of."""
    m, l, acc = -math.inf, 0.0, [0.0] * V.shape[1]
    walk = []
    for t, start in enumerate(range(0, len(scores), Bc)):
        keys = range(start, min(len(scores), start + Bc))
        seen = [j for j in keys if counted[j] and not skipped[t]]
        tile_max = max((scores[j] for j in seen), default=None)
        correction = None
        if seen:
            m_new = max(m, tile_max)
            correction = math.exp(m - m_new) if m != -math.inf else None
            keep = 0.0 if correction is None else correction
            p = {j: math.exp(scores[j] - m_new) for j in seen}
            l = l * keep + math.fsum(p.values())
            acc = [
                acc[c] * keep + math.fsum(p[j] * V[j, c] for j in seen) for c in range(V.shape[1])
            ]
            m = m_new
        walk.append(
            dict(
                keys=[keys.start, keys.stop],
                skipped=bool(skipped[t]),
                tile_max=tile_max,
                m=m,
                l=l,
                correction=correction,
                acc=list(acc),
            )
        )
    return walk


def skipped_tiles(visible: np.ndarray, Br: int, Bc: int, i: int) -> list[bool]:
    """The key tiles FlashAttention skips for query row i: those every row of its query tile (of
    ``Br`` rows) sees nothing of."""
    first = i - i % Br
    rows = visible[first : first + Br]
    return [not rows[:, start : start + Bc].any() for start in range(0, visible.shape[1], Bc)]


def rms_normed(x: np.ndarray, qk_norm: dict, weight) -> np.ndarray:
    """x (heads × T × d) through the RMSNorm of transformers' Qwen3RMSNorm (qwen3: x ·
    rsqrt(mean(x²) + eps) · w), Gemma3RMSNorm (gemma3: the same times 1 + w) or Olmo2RMSNorm
    (olmo2: over each token's whole projection, every head's columns at once); a weight not
    given is a gain of 1."""
    heads, T, d = x.shape
    whole = qk_norm["style"] == "olmo2"
    rows = x.transpose(1, 0, 2).reshape(T, heads * d) if whole else x
    eps = float(qk_norm.get("eps", 1e-6))
    gain = 1.0 if weight is None else np.asarray(weight, dtype=np.float64)
    if qk_norm["style"] == "gemma3":
        gain = gain + 1.0 if weight is not None else 1.0
    out = rows / np.sqrt(np.mean(rows**2, axis=-1, keepdims=True) + eps) * gain
    return out.reshape(T, heads, d).transpose(1, 0, 2) if whole else out


def scenario_attention(scenario: dict, arrays: dict):
    """Every head's weights (H × T_q × T_k) and the layer's output, by :func:`attention`, for a
    scenario as plain YAML reads it (a dict: ``scale``, ``causal``, ``window``, ``chunk``,
    ``padding``, ``alibi``, ``softcap``, ``rope``, ``sinks``, ``qk_norm``) with its matrices in
    ``arrays`` (``Q``, ``K``, ``V`` per head, ``bias``, ``Wo``, ``bo``), as ``attn-tui capture``
    writes them."""
    Q, K, V = (np.asarray(arrays[name], dtype=np.float64) for name in "QKV")
    H, T_q, d_k = Q.shape
    T_k = K.shape[1]
    rows, cols = np.arange(T_q)[:, None], np.arange(T_k)[None, :]
    visible = np.ones((T_q, T_k), bool)
    if scenario.get("causal"):
        visible &= cols <= rows
    if "window" in scenario:  # a query sees itself and the window − 1 keys before it
        visible &= (cols <= rows) & (cols > rows - scenario["window"])
    if "chunk" in scenario:  # a query sees only its own block of C positions
        visible &= rows // scenario["chunk"] == cols // scenario["chunk"]
    if "padding" in scenario:
        visible &= ~np.array(scenario["padding"], bool)[None, :]
    bias = np.zeros((H, T_q, T_k)) + arrays["bias"] if "bias" in arrays else None
    if scenario.get("alibi"):
        slopes = paper_slopes(H)
        alibi = np.stack([-slopes[h] * np.abs(rows - cols) for h in range(H)]).astype(np.float64)
        bias = alibi if bias is None else bias + alibi
    rope_spec = None
    if "rope" in scenario:
        rope_spec = (
            float(scenario["rope"]["base"]),
            scenario["rope"].get("dims"),
            scenario["rope"].get("pairs", "half"),
        )
    qk_norm = scenario.get("qk_norm")
    if qk_norm is not None and qk_norm["style"] != "llama4":  # before RoPE: normed here
        Q, K = (
            rms_normed(x, qk_norm, weight)
            for x, weight in ((Q, qk_norm.get("q_weight")), (K, qk_norm.get("k_weight")))
        )
        qk_norm = None
    scale = scenario.get("scale", True)
    divisor = math.sqrt(d_k) if scale is True else 1.0 if scale is False else float(scale)
    heads, concat, projected = attention(
        Q,
        K,
        V,
        visible=visible,
        bias=bias,
        softcap=scenario.get("softcap"),
        rope_spec=rope_spec,
        divisor=divisor,
        Wo=arrays.get("Wo"),
        bo=arrays.get("bo"),
        sinks=scenario.get("sinks"),
        qk_norm=qk_norm,
    )
    return np.stack([head["weights"] for head in heads]), concat if projected is None else projected
