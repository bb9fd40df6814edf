"""Llama: rotary position embeddings (RoPE), grouped-query attention, RMSNorm before attention.

``q_proj``, ``k_proj`` and ``v_proj`` are Linear layers (x·Wᵀ + b) giving H query heads and
G ≤ H key/value heads of ``head_dim`` columns each; query head h reads key/value head
h // (H / G) (``repeat_kv``). Q and K are then rotated by RoPE (see capture.rotary). ``o_proj``
is Linear too, so Wo is its weight transposed. Scores are multiplied by the module's own
``scaling`` (1/√head_dim here).

Mistral, Qwen2, Gemma and Gemma 2 keep their attention the same way and differ only in what
:func:`decoder_layer` is told: a sliding window, a softcap, their own scaling.
"""

from __future__ import annotations

import torch

from attn_tui.capture import projections
from attn_tui.capture.captured_layer import CapturedLayer
from attn_tui.capture.projections import Run
from attn_tui.capture.rotary import grouped_note, with_rope
from attn_tui.capture.run_to_layer import Recorded, Site

NAME = "Llama"
INPUTS = (
    "Q, K and V are the layer's own projections q_proj, k_proj and v_proj of its "
    "input, the residual stream after RMSNorm (input_layernorm)."
)


def sites(model: torch.nn.Module, part: str) -> list[Site]:
    return [
        Site(
            block.self_attn,
            {"q": block.self_attn.q_proj, "k": block.self_attn.k_proj, "v": block.self_attn.v_proj},
        )
        for block in model.layers
    ]


def layer(model: torch.nn.Module, number: int, recorded: Recorded, run: Run) -> CapturedLayer:
    return decoder_layer(NAME, model, number, recorded)


def decoder_layer(
    name: str,
    model: torch.nn.Module,
    number: int,
    recorded: Recorded,
    Q=None,
    K=None,
    V=None,
    window: int | None = None,
    softcap: float | None = None,
    inputs: str = INPUTS,
    rope: bool = True,
    layer_type: str | None = None,
) -> CapturedLayer:
    """A RoPE decoder's layer ``number``: Q, K, V from q_proj, k_proj, v_proj unless given;
    ``rope`` False for a layer the model leaves unrotated (NoPE); ``layer_type``, the config's
    name of the layer's type where the RoPE parameters differ by type (Gemma 3's two bases)."""
    attention = model.layers[number].self_attn
    if Q is None:
        Q, K, V = projections.separate(recorded, attention.head_dim)
    captured = projections.layer(
        name,
        recorded,
        Q,
        K,
        V,
        attention.o_proj,
        divisor=1.0 / attention.scaling,
        inputs=inputs,
        mask=projections.given_mask(recorded),
        window=window,
        softcap=softcap,
    )
    if rope:
        with_rope(captured, recorded, model.config, model.rotary_emb, layer_type)
    else:
        captured.position = "nope"
        captured.notes.append(
            "This layer has no position information at all (NoPE): the model leaves its "
            "rotary embedding out here, so Q and K are the projections themselves and a "
            "token tells the others apart only by what earlier layers wrote into them."
        )
    grouped_note(captured)
    if window is not None:
        captured.notes.append(
            f"This layer attends through a sliding window of {window} tokens: each token sees "
            f"itself and the {window - 1} before it, no further back"
            + (
                " (the text is shorter, so here every token sees all before it)."
                if captured.T <= window
                else "."
            )
        )
    if softcap is not None:
        captured.notes.append(
            f"Its attention logits are softcapped: {softcap:g}·tanh(score / {softcap:g}), so no "
            f"score goes beyond ±{softcap:g} (the Softcap stage)."
        )
    return captured
