"""Scenarios written as YAML text, and random ones with the float64 reference's result for each
(tests/reference.py), so that the reader is tested with the arithmetic."""

from __future__ import annotations

import numpy as np

from tests.reference import attention, paper_slopes


def yaml_matrix(a: np.ndarray) -> str:
    """A matrix (or matrices) as a YAML flow list, every float written round-trip."""
    if a.ndim == 1:
        return "[" + ", ".join(repr(float(x)) for x in a) + "]"
    return "[" + ", ".join(yaml_matrix(x) for x in a) + "]"


def random_scenario(rng: np.random.Generator, folder=None):
    """(YAML text, npy files to write {name: array}, the reference's result, the layout)."""
    G = int(rng.choice([1, 2, 3]))
    H = G * int(rng.choice([1, 2]))
    heads_3d = H > 1 or rng.random() < 0.3
    cross = rng.random() < 0.25
    T_k = int(rng.integers(1, 7))
    T_q = int(rng.integers(1, 7)) if cross else T_k
    d_k = int(rng.integers(1, 6))
    d_v = int(rng.integers(1, 4))
    Q = rng.normal(size=(H, T_q, d_k)) * 2
    K = rng.normal(size=(G, T_k, d_k)) * 2
    V = rng.normal(size=(G, T_k, d_v))
    lines = ["tokens: [" + ", ".join(f"k{j}" for j in range(T_k)) + "]"]
    if cross:
        lines.append("query_tokens: [" + ", ".join(f"q{i}" for i in range(T_q)) + "]")
    if heads_3d:
        lines.append(f"heads: {H}")
        if G != H:
            lines.append(f"kv_heads: {G}")
        lines += [f"Q: {yaml_matrix(Q)}", f"K: {yaml_matrix(K)}", f"V: {yaml_matrix(V)}"]
    else:
        lines += [f"Q: {yaml_matrix(Q[0])}", f"K: {yaml_matrix(K[0])}", f"V: {yaml_matrix(V[0])}"]
    files = {}
    visible = np.ones((T_q, T_k), bool)
    rows, cols = np.arange(T_q)[:, None], np.arange(T_k)[None, :]
    causal = (not cross) and rng.random() < 0.6
    lines.append(f"causal: {'true' if causal else 'false'}")
    if causal:
        visible &= cols <= rows
    if not cross and rng.random() < 0.3:
        w = int(rng.integers(1, 4))
        lines.append(f"window: {w}")
        visible &= (cols > rows - w) & (cols <= rows)
    if rng.random() < 0.3:
        pad = rng.integers(0, 2, T_k)
        lines.append("padding: [" + ", ".join(str(int(p)) for p in pad) + "]")
        visible &= ~pad.astype(bool)[None, :]
    if rng.random() < 0.3:
        m = rng.integers(0, 2, (T_q, T_k))
        lines.append(
            "mask: "
            + "["
            + ", ".join("[" + ", ".join(str(int(x)) for x in row) + "]" for row in m)
            + "]"
        )
        visible &= m.astype(bool)
    bias = None
    kind = rng.choice(
        ["none", "alibi", "shared", "per_head", "npy"]
        if not cross
        else ["none", "shared", "per_head", "npy"]
    )
    if kind == "alibi":
        lines.append("alibi: true")
        slopes = paper_slopes(H)
        bias = np.stack([-slopes[h] * np.abs(rows - cols) for h in range(H)]).astype(np.float64)
    elif kind == "shared":
        shared = rng.normal(size=(T_q, T_k)) * 3
        lines.append(f"bias: {yaml_matrix(shared)}")
        bias = np.stack([shared] * H)
    elif kind == "per_head" and heads_3d:
        bias = rng.normal(size=(H, T_q, T_k)) * 3
        lines.append(f"bias: {yaml_matrix(bias)}")
    elif kind == "npy":
        bias = rng.normal(size=(H, T_q, T_k)) * 3
        files["bias.npy"] = bias if (heads_3d or rng.random() < 0.5) else bias[0]
        if files["bias.npy"].ndim == 3 and not heads_3d:
            pass  # one head, 1 × T_q × T_k: a list of one head's bias
        lines.append("bias: {npy: bias.npy}")
    softcap = None
    if rng.random() < 0.4:
        softcap = float(rng.choice([0.5, 2.0, 50.0]))
        lines.append(f"softcap: {softcap!r}")
    rope_spec = None
    if rng.random() < 0.5 and (d_k >= 2):
        pairs = str(rng.choice(["half", "interleaved"]))
        if d_k % 2 or rng.random() < 0.5:
            dims = 2 * int(rng.integers(1, d_k // 2 + 1))
            lines.append(f"rope: {{base: 100, pairs: {pairs}, dims: {dims}}}")
        else:
            dims = None
            lines.append(f"rope: {{base: 100, pairs: {pairs}}}")
        rope_spec = (100.0, dims, pairs)
    Wo = bo = None
    if rng.random() < 0.3:
        Wo, bo = rng.normal(size=(H * d_v, 2)), rng.normal(size=2)
        lines += [f"Wo: {yaml_matrix(Wo)}", f"bo: {yaml_matrix(bo)}"]
    expected = attention(
        Q, K, V, visible=visible, bias=bias, softcap=softcap, rope_spec=rope_spec, Wo=Wo, bo=bo
    )
    layout = dict(
        H=H,
        G=G,
        T_q=T_q,
        T_k=T_k,
        d_k=d_k,
        d_v=d_v,
        cross=cross,
        bias=str(kind),
        softcap=softcap,
        rope=rope_spec,
        visible=visible,
        Q=Q,
        K=K,
        V=V,
        bias_values=bias,
        Wo=Wo,
        bo=bo,
    )
    return "\n".join(lines) + "\n", files, expected, layout
