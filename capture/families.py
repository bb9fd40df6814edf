"""The model families capture knows, by ``model_type`` in config.json: one table.

Each family is a small module (importing PyTorch, so imported only when a capture runs) with:

- ``NAME``: the family's name for the description ("GPT-2", "BERT");
- ``sites(model, part)``: one :class:`~attn_tui.capture.run_to_layer.Site` per layer of the
  part asked for, saying where its attention is and what to record there;
- ``layer(model, number, recorded, run)``: that layer as a
  :class:`~attn_tui.capture.captured_layer.CapturedLayer`, from what the run recorded.

Its kind says how the model is run and which ``--part`` it has: a decoder on the text alone; an
encoder on the text (or a pair of texts) with its attention mask and segment ids; an
encoder-decoder on the text and ``--target-text``, with its encoder's self-attention, its
decoder's causal self-attention or the decoder's cross-attention.
"""

from __future__ import annotations

from dataclasses import dataclass

DECODER, ENCODER, ENCODER_DECODER = "decoder", "encoder", "encoder-decoder"
PARTS = {
    DECODER: ("decoder",),
    ENCODER: ("encoder",),
    ENCODER_DECODER: ("encoder", "decoder", "cross"),
}


@dataclass(frozen=True)
class Family:
    module: str  # the module that knows where this family keeps its attention
    kind: str  # DECODER, ENCODER or ENCODER_DECODER

    @property
    def parts(self) -> tuple[str, ...]:
        return PARTS[self.kind]


def _family(name: str, kind: str = DECODER) -> Family:
    return Family(f"attn_tui.capture.{name}", kind)


FAMILIES: dict[str, Family] = {
    "gpt2": _family("gpt2"),
    "llama": _family("llama"),
    "mistral": _family("mistral"),
    "qwen2": _family("qwen2"),
    "gemma": _family("gemma"),
    "gemma2": _family("gemma2"),
    "phi3": _family("phi3"),
    "qwen3": _family("qwen3"),
    "gemma3_text": _family("gemma3"),
    "olmo2": _family("olmo2"),
    "smollm3": _family("smollm3"),
    "deepseek_v3": _family("deepseek_v3"),
    "gpt_oss": _family("gpt_oss"),
    "llama4_text": _family("llama4"),
    "gpt_neox": _family("gpt_neox"),
    "bloom": _family("bloom"),
    "bert": _family("bert", ENCODER),
    "roberta": _family("bert", ENCODER),
    "distilbert": _family("distilbert", ENCODER),
    "t5": _family("t5", ENCODER_DECODER),
    "bart": _family("bart", ENCODER_DECODER),
    "marian": _family("bart", ENCODER_DECODER),
}
