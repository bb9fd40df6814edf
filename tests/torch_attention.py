"""An independent float64 PyTorch reference for attention's forward, its gradients and training.

It reads only a loaded Scenario's raw data (its input arrays, heads, kv_heads, the mask rules,
RoPE's settings, the bias/softcap settings' numbers, the options) and computes everything itself
with torch tensors, then lets autograd differentiate: none of attn_tui's arithmetic is used.

The forward, as core/ defines it (read from core/model/heads.py, core/model/rope.py,
core/model/masks.py and core/engine/stages/*.py, written again here from the formulas):

* per query head h (kv head g = h // (heads / kv_heads)): q, k, v read directly (3-D inputs per
  head; a 2-D K/V is shared by every head) or projected, q = X·Wq[:, h·d_k:(h+1)·d_k] (X_q in
  cross-attention), k = X·Wk[:, g·d_k:…], v = X·Wv[:, g·d_v:…];
* RoPE on q and k, positions 0 … T−1 each: pair k of the first r dimensions (all, or ``dims``)
  is (k, k + r/2) ("half") or (2k, 2k+1) ("interleaved"), angle p·base^(−2k/r);
* scores q·kᵀ, ÷ the divisor (√d_k, 1, or the given number);
* + the bias (a T_q×T_k matrix, one per head, or ALiBi's −m_h·|i − j|);
* softcap c·tanh(x / c);
* hidden keys (causal, window, padding, explicit mask) set to ``mask_value``;
* softmax over the keys; a row that sees no key gets weights exactly 0 (so output 0);
* P·v; the heads side by side; ·Wo + bo when Wo is given.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import torch

DTYPE = torch.float64


def alibi_slopes(n: int) -> list[float]:
    """Press et al.'s slopes for n heads: 2^(−8h/n) for n a power of two, else the nearest power
    of two's below and every other one of twice that (the paper's get_slopes)."""
    if n & (n - 1) == 0:
        return [2.0 ** (-8.0 * h / n) for h in range(1, n + 1)]
    below = 1 << (n.bit_length() - 1)
    return alibi_slopes(below) + alibi_slopes(2 * below)[0::2][: n - below]


def visible_keys(scenario, options) -> np.ndarray:
    """T_q × T_k booleans: True where query i may see key j under every mask rule."""
    T, T_k = len(scenario.row_tokens), len(scenario.tokens)
    i = np.arange(T)[:, None]
    j = np.arange(T_k)[None, :]
    visible = np.ones((T, T_k), bool)
    if options.causal:
        visible &= j <= i
    if scenario.window is not None:
        w = scenario.window
        visible &= (j > i - w) & (j <= i)
    if scenario.padding is not None:
        visible &= ~np.array(scenario.padding, bool)[None, :]
    if scenario.mask is not None:
        visible &= np.array(scenario.mask, bool)
    return visible


def rotate(x: torch.Tensor, rope) -> torch.Tensor:
    """x (positions × d) turned by RoPE at positions 0, 1, …"""
    n, d = x.shape
    r = d if rope.dims is None else rope.dims
    exponents = torch.arange(0, r, 2, dtype=DTYPE) / r
    inv_freq = torch.tensor(float(rope.base), dtype=DTYPE) ** (-exponents)
    theta = torch.arange(n, dtype=DTYPE)[:, None] * inv_freq[None, :]  # n × r/2
    cos, sin = torch.cos(theta), torch.sin(theta)
    if rope.pairs == "half":
        a, b = x[:, : r // 2], x[:, r // 2 : r]
        turned = torch.cat([a * cos - b * sin, b * cos + a * sin], dim=1)
    elif rope.pairs == "interleaved":
        a, b = x[:, 0:r:2], x[:, 1:r:2]
        turned = torch.stack([a * cos - b * sin, b * cos + a * sin], dim=2).reshape(n, r)
    else:
        raise ValueError(rope.pairs)
    return torch.cat([turned, x[:, r:]], dim=1)


def divisor_of(options, d_k: int) -> float:
    if options.scale is True:
        return math.sqrt(d_k)
    if options.scale is False:
        return 1.0
    return float(options.scale)


@dataclass
class Forward:
    """The final output and, per head, the tensors whose gradients the engine reports."""

    output: torch.Tensor
    raw_scores: list[torch.Tensor] = field(default_factory=list)  # q·kᵀ, before the divisor
    pre_mask: list[torch.Tensor] = field(default_factory=list)  # the scores the mask reads
    weights: list[torch.Tensor] = field(default_factory=list)  # P, as P·V reads it
    head_outputs: list[torch.Tensor] = field(default_factory=list)
    visible: np.ndarray | None = None
    empty: np.ndarray | None = None


def leaves_of(scenario, learn=None) -> dict[str, torch.Tensor]:
    """Every input as a float64 tensor (requiring grad: all, or those named in ``learn``)."""
    return {
        name: torch.tensor(
            np.array(array, dtype=np.float64),
            dtype=DTYPE,
            requires_grad=learn is None or name in learn,
        )
        for name, array in scenario.inputs.items()
    }


def forward(scenario, leaves: dict[str, torch.Tensor], options=None) -> Forward:
    options = options or scenario.options
    H, G = scenario.heads, scenario.kv_heads
    group = H // G
    cross = scenario.query_tokens is not None
    if "X" in leaves:
        X = leaves["X"]
        Xq = leaves["X_q"] if cross else X
        Wq, Wk, Wv = leaves["Wq"], leaves["Wk"], leaves["Wv"]
        d_k, d_v = Wq.shape[1] // H, Wv.shape[1] // G

        def q_of(h):
            return Xq @ Wq[:, h * d_k : (h + 1) * d_k]

        def k_of(g):
            return X @ Wk[:, g * d_k : (g + 1) * d_k]

        def v_of(g):
            return X @ Wv[:, g * d_v : (g + 1) * d_v]
    else:
        Q, K, V = leaves["Q"], leaves["K"], leaves["V"]
        d_k = Q.shape[-1]

        def q_of(h):
            return Q[h] if Q.dim() == 3 else Q

        def k_of(g):
            return K[g] if K.dim() == 3 else K

        def v_of(g):
            return V[g] if V.dim() == 3 else V

    divisor = divisor_of(options, d_k)
    visible = visible_keys(scenario, options)
    empty = ~visible.any(axis=1)
    hidden_t = torch.tensor(~visible)
    empty_t = torch.tensor(empty)[:, None]
    T, T_k = visible.shape
    bias_setting = scenario.stage_settings.get("bias")
    softcap_setting = scenario.stage_settings.get("softcap")
    distance = torch.abs(
        torch.arange(T, dtype=DTYPE)[:, None] - torch.arange(T_k, dtype=DTYPE)[None, :]
    )
    result = Forward(output=None, visible=visible, empty=empty)
    keys = [k_of(g) for g in range(G)]
    values = [v_of(g) for g in range(G)]
    if scenario.rope is not None:
        keys = [rotate(k, scenario.rope) for k in keys]
    for h in range(H):
        g = h // group
        q = q_of(h)
        if scenario.rope is not None:
            q = rotate(q, scenario.rope)
        raw = q @ keys[g].T
        result.raw_scores.append(raw)
        x = raw / divisor
        if bias_setting is not None:
            if bias_setting.alibi:
                slopes = bias_setting.slopes if bias_setting.slopes is not None else alibi_slopes(H)
                x = x + (-float(slopes[h])) * distance
            elif (
                "bias" in leaves
            ):  # an explicit bias is an input of the scenario's: a leaf with a gradient
                given = leaves["bias"]
                x = x + (given[h] if given.dim() == 3 else given)
            else:
                given = np.asarray(bias_setting.values, dtype=np.float64)
                x = x + torch.tensor(given[h] if given.ndim == 3 else given, dtype=DTYPE)
        if softcap_setting is not None:
            c = float(softcap_setting.cap)
            x = c * torch.tanh(x / c)
        result.pre_mask.append(x)
        masked = torch.where(hidden_t, torch.tensor(float(options.mask_value), dtype=DTYPE), x)
        logits = torch.where(empty_t, torch.zeros((), dtype=DTYPE), masked)  # no NaN from all −∞
        P = torch.where(empty_t, torch.zeros((), dtype=DTYPE), torch.softmax(logits, dim=1))
        result.weights.append(P)
        result.head_outputs.append(P @ values[g])
    concat = torch.cat(result.head_outputs, dim=1)
    if "Wo" in leaves:
        concat = concat @ leaves["Wo"]
        if "bo" in leaves:
            concat = concat + leaves["bo"].reshape(1, -1)
    result.output = concat
    return result


@dataclass
class Gradients:
    output: np.ndarray
    loss: float | None
    d_output: np.ndarray
    inputs: dict[str, np.ndarray]
    weights: list[np.ndarray]
    d_weights: list[np.ndarray]
    d_scores: list[np.ndarray]
    d_raw_scores: list[np.ndarray]
    visible: np.ndarray
    empty: np.ndarray


def gradients(scenario, options=None, *, target=None, grad=None) -> Gradients:
    """dL/d every input, dL/dP and dL/d the pre-mask scores of every head, for
    L = ½·Σ(output − target)² (``target``) or for dL/d output = ``grad`` given directly."""
    if (target is None) == (grad is None):
        raise ValueError("give target or grad")
    leaves = leaves_of(scenario)
    f = forward(scenario, leaves, options)
    if target is not None:
        diff = f.output - torch.tensor(np.asarray(target, np.float64), dtype=DTYPE)
        L = 0.5 * (diff * diff).sum()
        root, seed, loss, d_output = L, None, float(L.item()), diff.detach().numpy().copy()
    else:
        seed = torch.tensor(np.asarray(grad, np.float64), dtype=DTYPE)
        root, loss, d_output = f.output, None, seed.numpy().copy()
    names = list(leaves)
    wanted = [leaves[n] for n in names] + f.weights + f.pre_mask + f.raw_scores
    found = torch.autograd.grad(root, wanted, grad_outputs=seed, allow_unused=True)
    found = [torch.zeros_like(w) if d is None else d for w, d in zip(wanted, found)]
    n, H = len(names), len(f.weights)
    as_np = [d.detach().numpy().copy() for d in found]
    return Gradients(
        output=f.output.detach().numpy().copy(),
        loss=loss,
        d_output=d_output,
        inputs=dict(zip(names, as_np[:n])),
        weights=[P.detach().numpy().copy() for P in f.weights],
        d_weights=as_np[n : n + H],
        d_scores=as_np[n + H : n + 2 * H],
        d_raw_scores=as_np[n + 2 * H :],
        visible=f.visible,
        empty=f.empty,
    )


def loss_of(scenario, leaves, target, options=None) -> torch.Tensor:
    diff = forward(scenario, leaves, options).output - torch.tensor(
        np.asarray(target, np.float64), dtype=DTYPE
    )
    return 0.5 * (diff * diff).sum()


def train(
    scenario,
    *,
    learn,
    lr: float,
    steps: int,
    optimizer: str = "sgd",
    target,
    options=None,
    rounding: float = 1e-13,
) -> tuple[list[float], dict[str, np.ndarray], dict[str, np.ndarray]]:
    """``steps`` steps of torch.optim.SGD (plain, no momentum) or torch.optim.Adam (its defaults)
    on the inputs in ``learn``: the loss before any step and after each, the learned arrays, and
    per learned cell how far Adam may carry a gradient's rounding (else 0).

    Adam divides by √v̂ + ε, so a gradient that is 0 in truth (a row that sees one key: a one-hot
    softmax passes nothing back) but 2e-16 of rounding in another float64 implementation moves
    its cell by lr·2e-16/(2e-16 + 1e-8) ≈ lr·2e-8 a step, where torch's exact 0 does not move it.
    A gradient error δ moves a step by at most (lr / (1 − β₁ᵗ))·δ / (√v̂ + ε); with δ =
    ``rounding`` × the largest |gradient| of any input (all of Q, K's may be 0 in truth: one
    key), the sum over the steps is that slack."""
    leaves = leaves_of(
        scenario
    )  # (every input's gradient, for the rounding's scale; only ``learn`` moves)
    params = [leaves[name] for name in learn]
    if optimizer == "sgd":
        opt = torch.optim.SGD(params, lr=lr)
    elif optimizer == "adam":
        opt = torch.optim.Adam(params, lr=lr)
    else:
        raise ValueError(optimizer)
    slack = {name: np.zeros(leaves[name].shape) for name in learn}
    losses = []
    for step in range(steps + 1):
        opt.zero_grad()
        L = loss_of(scenario, leaves, target, options)
        losses.append(float(L.item()))
        if step < steps:
            L.backward()
            opt.step()
            if optimizer == "adam":
                largest = max(
                    float(leaf.grad.abs().max()) if leaf.grad is not None and leaf.numel() else 0.0
                    for leaf in leaves.values()
                )
                beta1, beta2 = opt.defaults["betas"]
                for name in learn:
                    state = opt.state[leaves[name]]
                    t = float(state["step"])
                    v_hat = state["exp_avg_sq"].detach().numpy() / (1 - beta2**t)
                    delta = rounding * largest
                    slack[name] += (
                        lr / (1 - beta1**t) * delta / (np.sqrt(v_hat) + opt.defaults["eps"])
                    )
    return losses, {name: leaves[name].detach().numpy().copy() for name in learn}, slack
