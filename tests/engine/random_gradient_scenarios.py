"""Random scenarios written as YAML text, for the engine's gradients and training against the
PyTorch-autograd reference (tests/engine/test_backward_exact.py,
tests/engine/test_training_is_torch_optim.py): self- and cross-attention, every mask rule, biases,
softcap, RoPE, heads and grouped keys/values, projections, Wo/bo and every kind of scale, each a
feature of FEATURES that a case can be made to have."""

from __future__ import annotations

import numpy as np

from tests.random_scenarios import yaml_matrix

FEATURES = (
    "cross",
    "causal",
    "window",
    "padding",
    "mask",
    "empty_row",
    "finite_mask",
    "leaky_mask",
    "alibi",
    "bias2d",
    "bias3d",
    "softcap",
    "rope_half",
    "rope_interleaved",
    "rope_partial",
    "heads",
    "gqa",
    "projection",
    "wo",
    "wo_bo",
    "unscaled",
    "custom_scale",
)


def case(rng: np.random.Generator, force: str | None = None) -> dict:
    """A random scenario: its YAML (without loss:), a target and a dL/d output for it, and the
    layout. ``force`` names one feature it must have (one of FEATURES)."""
    f = force
    kind = (
        "projection"
        if f == "projection" or (f not in ("heads", "gqa") and rng.random() < 0.45)
        else "qkv"
    )
    if f == "gqa":  # fewer key/value heads than query heads
        G = int(rng.choice([1, 2]))
        H = G * int(rng.choice([2, 3]))
    else:
        G = int(rng.choice([1, 1, 2, 3] if f == "heads" else [1, 1, 2]))
        H = G * int(rng.choice([1, 2]))
        if f == "heads" and H == 1:
            H = G = 2
    cross = f == "cross" or (f not in ("window", "alibi", "causal") and rng.random() < 0.3)
    T_k = (
        int(rng.integers(1, 6))
        if f not in ("window", "alibi", "causal")
        else int(rng.integers(2, 6))
    )
    T_q = int(rng.integers(1, 6)) if cross else T_k
    if cross and f == "cross" and T_q == T_k:
        T_q = T_k + 1
    rope_wanted = f in ("rope_half", "rope_interleaved", "rope_partial") or rng.random() < 0.35
    d_k = int(rng.integers(2 if rope_wanted else 1, 5))
    if f == "rope_partial":
        d_k = max(d_k, 3)
    d_v = int(rng.integers(1, 4))
    lines = ["tokens: [" + ", ".join(f"k{j}" for j in range(T_k)) + "]"]
    if cross:
        lines.append("query_tokens: [" + ", ".join(f"q{i}" for i in range(T_q)) + "]")
    per_head_written = H > 1 or rng.random() < 0.3
    if kind == "qkv":
        if per_head_written:
            lines.append(f"heads: {H}")
        shared_kv = G == 1 and H > 1 and rng.random() < 0.4  # one K, V matrix for every head
        size = 1.5 if rng.random() < 0.85 else 4.0  # now and then scores of ~30: a peaky softmax
        Q = rng.normal(size=(H, T_q, d_k)) * size
        K = rng.normal(size=(G, T_k, d_k)) * size
        V = rng.normal(size=(G, T_k, d_v))
        if G != H and not shared_kv:
            lines.append(f"kv_heads: {G}")
        lines.append(f"Q: {yaml_matrix(Q if per_head_written else Q[0])}")
        kv_3d = per_head_written and not shared_kv
        lines += [
            f"K: {yaml_matrix(K if kv_3d else K[0])}",
            f"V: {yaml_matrix(V if kv_3d else V[0])}",
        ]
    else:
        d_model = int(rng.integers(1, 5))
        if H > 1:
            lines.append(f"heads: {H}")
        if G != H:
            lines.append(f"kv_heads: {G}")
        lines.append(f"X: {yaml_matrix(rng.normal(size=(T_k, d_model)))}")
        if cross:
            lines.append(f"X_q: {yaml_matrix(rng.normal(size=(T_q, d_model)))}")
        lines += [
            f"Wq: {yaml_matrix(rng.normal(size=(d_model, H * d_k)))}",
            f"Wk: {yaml_matrix(rng.normal(size=(d_model, G * d_k)))}",
            f"Wv: {yaml_matrix(rng.normal(size=(d_model, G * d_v)))}",
        ]
    same_length = T_q == T_k
    causal = same_length and (f == "causal" or (f != "cross" and rng.random() < 0.5))
    lines.append(f"causal: {'true' if causal else 'false'}")
    if f == "unscaled" or (f is None and rng.random() < 0.15):
        lines.append("scale: false")
    elif f == "custom_scale" or rng.random() < 0.2:
        lines.append(f"scale: {float(rng.choice([0.7, 2.5, 4.0]))!r}")
    if f == "finite_mask" or (f is None and rng.random() < 0.15):
        lines.append("mask_value: -1.0e+9")
    elif f == "leaky_mask" or (f is None and rng.random() < 0.15):
        lines.append(f"mask_value: {float(rng.choice([-2.0, -0.5, -30.0]))!r}")
    if f in ("finite_mask", "leaky_mask") and not causal:  # something to hide
        f = "mask"
    if not cross and (f == "window" or rng.random() < 0.25):
        lines.append(f"window: {int(rng.integers(1, 4))}")
    if f == "padding" or rng.random() < 0.3:
        pad = rng.integers(0, 2, T_k) if rng.random() < 0.85 else np.ones(T_k, int)
        lines.append("padding: [" + ", ".join(str(int(p)) for p in pad) + "]")
    if f in ("mask", "empty_row") or rng.random() < 0.3:
        m = (rng.random((T_q, T_k)) < 0.65).astype(int)
        if f == "empty_row" or rng.random() < 0.4:
            m[int(rng.integers(T_q))] = 0  # a row that sees no key at all
        lines.append(
            "mask: ["
            + ", ".join("[" + ", ".join(str(int(x)) for x in row) + "]" for row in m)
            + "]"
        )
    biases = ["none", "bias2d", "bias3d"] + (["alibi"] if same_length and not cross else [])
    bias = (
        f
        if f in ("alibi", "bias2d", "bias3d")
        else (str(rng.choice(biases)) if f is None or rng.random() < 0.5 else "none")
    )
    if bias == "alibi":
        lines.append("alibi: true")
    elif bias == "bias2d":
        lines.append(f"bias: {yaml_matrix(rng.normal(size=(T_q, T_k)) * 2)}")
    elif bias == "bias3d":
        lines.append(f"bias: {yaml_matrix(rng.normal(size=(H, T_q, T_k)) * 2)}")
    if f == "softcap" or rng.random() < 0.35:
        lines.append(f"softcap: {float(rng.choice([0.5, 2.0, 50.0]))!r}")
    if rope_wanted:
        pairs = {"rope_half": "half", "rope_interleaved": "interleaved"}.get(f) or str(
            rng.choice(["half", "interleaved"])
        )
        base = float(rng.choice([100.0, 10000.0]))
        if f == "rope_partial" or d_k % 2 or rng.random() < 0.4:
            dims = 2 * int(rng.integers(1, d_k // 2 + 1))
            if f == "rope_partial" and dims == d_k:
                dims -= 2
            lines.append(f"rope: {{base: {base!r}, pairs: {pairs}, dims: {dims}}}")
        else:
            lines.append(f"rope: {{base: {base!r}, pairs: {pairs}}}")
    wo = f in ("wo", "wo_bo") or rng.random() < 0.35
    d_out = H * d_v
    if wo:
        d_out = int(rng.integers(1, 4))
        lines.append(f"Wo: {yaml_matrix(rng.normal(size=(H * d_v, d_out)))}")
        if f == "wo_bo" or (f != "wo" and rng.random() < 0.7):
            lines.append(f"bo: {yaml_matrix(rng.normal(size=d_out))}")
    return dict(
        yaml="\n".join(lines) + "\n",
        target=rng.normal(size=(T_q, d_out)),
        grad=rng.normal(size=(T_q, d_out)),
        kind=kind,
        H=H,
        G=G,
        T_q=T_q,
        T_k=T_k,
    )


def with_loss(c: dict, form: str = "target") -> str:
    return c["yaml"] + f"loss: {{{form}: {yaml_matrix(c[form])}}}\n"


def cases(seeds, force=None):
    for seed in seeds:
        yield (
            seed,
            case(np.random.default_rng([seed, FEATURES.index(force) + 1 if force else 0]), force),
        )
