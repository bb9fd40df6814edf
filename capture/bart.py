"""BART and Marian: encoder-decoders with textbook attention: ``q_proj``, ``k_proj``,
``v_proj`` and ``out_proj`` are Linear layers with biases, scores divided by √head_dim, learned
(BART) or sinusoidal (Marian) position embeddings added before layer 0. The encoder's
self-attention sees every token (but padding), the decoder's is causal, and the decoder's
cross-attention (``encoder_attn``) reads the encoder's final output."""

from __future__ import annotations

from attn_tui.capture import projections
from attn_tui.capture.projections import Run
from attn_tui.capture.run_to_layer import Site

NAME = "BART"


def _attention(model, part: str, number: int):
    stack = model.encoder if part == "encoder" else model.decoder
    block = stack.layers[number]
    return block.encoder_attn if part == "cross" else block.self_attn


def sites(model, part: str) -> list[Site]:
    stack = model.encoder if part == "encoder" else model.decoder
    found = []
    for number in range(len(stack.layers)):
        attention = _attention(model, part, number)
        found.append(
            Site(attention, {"q": attention.q_proj, "k": attention.k_proj, "v": attention.v_proj})
        )
    return found


def layer(model, number: int, recorded, run: Run):
    attention = _attention(model, run.part, number)
    name = "Marian" if model.config.model_type == "marian" else NAME
    Q, K, V = projections.separate(recorded, attention.head_dim)
    where = {
        "encoder": "the encoder layer's projections q_proj, k_proj and v_proj (biases "
        "included) of its input",
        "decoder": "the decoder layer's projections q_proj, k_proj and v_proj (biases "
        "included) of its input, the target tokens so far",
        "cross": "the decoder layer's cross-attention (encoder_attn): Q its q_proj of the "
        "target tokens, K and V its k_proj and v_proj of the encoder's final "
        "output (the source text)",
    }[run.part]
    return projections.layer(
        name,
        recorded,
        Q,
        K,
        V,
        attention.out_proj,
        divisor=1.0 / attention.scaling,
        mask=projections.given_mask(recorded),
        causal=run.part == "decoder",
        padding=run.padding if run.part != "decoder" else None,
        cross=run.part == "cross",
        position="sinusoidal" if model.config.model_type == "marian" else "learned",
        inputs=f"Q, K and V are {where}.",
    )
