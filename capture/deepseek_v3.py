"""DeepSeek-V3: multi-head latent attention (MLA).

Keys and values come from one small latent per token: ``kv_a_proj_with_mqa`` projects x to
c_kv (``kv_lora_rank`` numbers, then RMSNorm ``kv_a_layernorm``) and one k_rope
(``qk_rope_head_dim`` numbers) that every head shares; ``kv_b_proj`` lifts c_kv to each head's
k_nope and v. A query is [q_nope; q_rope], from ``q_proj`` or the low-rank path
``q_b_proj(q_a_layernorm(q_a_proj(x)))``.
RoPE turns q_rope and k_rope only, in interleaved pairs (``rope_interleave``) or rotate-half
pairs; a head's key is [k_nope; turned k_rope]; the scores are multiplied by the module's own
``scaling`` (1/√(qk_nope + qk_rope), times yarn's mscale² when the config asks), and v has a
width of its own (``v_head_dim``).

The scenario holds Q and K as the scores use them, every head's (the rotary part turned,
computed here in float64 from the model's recorded projections and its own cos and sin), and V:
exact, but the latent, its up-projection and the shared k_rope are not steps of the scenario,
and the rotation (of a head's last dimensions, not its first) is already done, not a Rotate step.
"""

from __future__ import annotations

import numpy as np

from attn_tui.capture import projections
from attn_tui.capture.projections import Run, by_head
from attn_tui.capture.rotary import rotate_half_pairs
from attn_tui.capture.run_to_layer import Site, as_numpy

NAME = "DeepSeek-V3"


def sites(model, part: str) -> list[Site]:
    found = []
    for block in model.layers:
        attention = block.self_attn
        query = attention.q_proj if attention.q_proj is not None else attention.q_b_proj
        record = {
            "q": query,
            "kv_a": attention.kv_a_proj_with_mqa,
            "kv_b": attention.kv_b_proj,
        }
        found.append(Site(attention, record))
    return found


def _turned(x: np.ndarray, cos: np.ndarray, sin: np.ndarray, interleaved: bool) -> np.ndarray:
    """RoPE on x (…, T, r) as the model applies it: interleaved pairs (x0, x1), (x2, x3), …
    written back as [turned evens, turned odds] (apply_rotary_pos_emb_interleave), or
    rotate-half pairs (j, j + r/2)."""
    if not interleaved:
        return rotate_half_pairs(x, cos, sin)
    cos, sin = cos[..., : cos.shape[-1] // 2], sin[..., : sin.shape[-1] // 2]
    evens, odds = x[..., 0::2], x[..., 1::2]
    return np.concatenate([evens * cos - odds * sin, odds * cos + evens * sin], axis=-1)


def layer(model, number: int, recorded, run: Run):
    attention = model.layers[number].self_attn
    config = model.config
    nope, rope, d_v = attention.qk_nope_head_dim, attention.qk_rope_head_dim, attention.v_head_dim
    rank = attention.kv_lora_rank
    cos, sin = (as_numpy(part) for part in recorded.attention_inputs["position_embeddings"])
    interleaved = bool(getattr(config, "rope_interleave", False))
    queries = by_head(as_numpy(recorded.outputs["q"]), nope + rope)  # (H, T, nope + rope)
    shared = as_numpy(recorded.outputs["kv_a"])[:, rank:]  # (T, rope): every head's k_rope
    lifted = by_head(as_numpy(recorded.outputs["kv_b"])[0], nope + d_v)  # (H, T, nope + d_v)
    H = queries.shape[0]
    Q = np.concatenate(
        [queries[..., :nope], _turned(queries[..., nope:], cos, sin, interleaved)], axis=-1
    )
    k_rope = np.broadcast_to(_turned(shared, cos, sin, interleaved), (H, *shared.shape))
    K = np.concatenate([lifted[..., :nope], k_rope], axis=-1)
    V = np.ascontiguousarray(lifted[..., nope:])
    low_rank = attention.q_lora_rank is not None
    query_path = (
        f"q_b_proj of q_a_proj's {attention.q_lora_rank}-number latent (after RMSNorm)"
        if low_rank
        else "q_proj"
    )
    captured = projections.layer(
        NAME,
        recorded,
        Q,
        K,
        V,
        attention.o_proj,
        divisor=1.0 / attention.scaling,
        inputs=(
            f"Multi-head latent attention: each query is [q_nope; q_rope] ({nope} + {rope} "
            f"numbers) from {query_path}; each token's keys and values come from one latent "
            f"c_kv of {rank} numbers (kv_a_proj_with_mqa, then RMSNorm), lifted by kv_b_proj to "
            f"every head's k_nope ({nope}) and v ({d_v}), and one k_rope ({rope}) that every "
            "head shares. Q and K here are as the scores use them, the last "
            f"{rope} of each head's {nope + rope} dimensions already turned by RoPE; the latent "
            "and its lifting are not steps of this scenario."
        ),
        mask=projections.given_mask(recorded),
        position="rope",
    )
    captured.notes.append(
        f"The scores are multiplied by {attention.scaling:.6g} (1/√(qk_nope + qk_rope) = "
        f"1/√{nope + rope}"
        + (
            ", with yarn's mscale"
            if not np.isclose(attention.scaling, (nope + rope) ** -0.5)
            else ""
        )
        + f"); V's width is {d_v}, not d_k."
    )
    return captured
