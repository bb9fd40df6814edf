"""The text as the model takes it, and the one forward pass that runs the model on it.

A decoder runs on the text's token ids alone. An encoder runs on the text, or a pair of texts
(``--text A --text B``: ``[CLS] A [SEP] B [SEP]`` with segment ids), padded to ``--pad-to`` tokens
if asked, with the attention mask that hides the padding. An encoder-decoder's encoder runs on
the text; its decoder on ``--target-text``, started by the model's ``decoder_start_token_id``
(the decoder's input is that token, then the target's tokens: what the decoder reads while it
writes the target), its cross-attention reading the encoder's output for the text.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass

from attn_tui.capture.errors import CaptureError
from attn_tui.capture.families import DECODER, ENCODER, ENCODER_DECODER


@dataclass(frozen=True)
class Prepared:
    """The token ids the model runs on."""

    ids: list[int]  # the text (an encoder-decoder's source)
    token_type_ids: list[int] | None = None  # segment ids of a pair
    padding: tuple[int, ...] | None = None  # per token of the text: 1 = padding
    target_ids: list[int] | None = None  # the decoder's input: start token, then the target


def prepare(
    tokenizer,
    config,
    kind: str,
    part: str,
    texts: list[str],
    target: str | None,
    pad_to: int | None,
) -> Prepared:
    """Tokenize as the model expects; :class:`CaptureError` for what the user can fix."""
    if len(texts) > 1 and kind != ENCODER:
        raise CaptureError(
            "--text twice makes a pair of sentences, which only encoders (bert, "
            "roberta, distilbert) read; give --text once"
        )
    if pad_to is not None and kind == DECODER:
        raise CaptureError("--pad-to pads an encoder's text; a decoder runs on the text alone")
    options = {}
    if pad_to is not None:
        if tokenizer.pad_token_id is None:
            raise CaptureError("--pad-to: this model's tokenizer has no padding token")
        options = {"padding": "max_length", "max_length": pad_to}
    if len(texts) > 1:  # a pair's segment ids, even from a tokenizer that leaves them out
        options["return_token_type_ids"] = True
    encoded = tokenizer(*texts, **options)
    ids = list(encoded["input_ids"])
    if pad_to is not None and len(ids) > pad_to:
        raise CaptureError(f"--pad-to {pad_to}: the text is already {len(ids)} tokens long")
    padding = None
    if pad_to is not None and "attention_mask" in encoded:
        mask = list(encoded["attention_mask"])
        if 0 in mask:
            padding = tuple(1 - int(value) for value in mask)
    types = encoded.get("token_type_ids") if len(texts) > 1 else None
    target_ids = None
    if kind == ENCODER_DECODER and part != "encoder":
        if target is None:
            raise CaptureError(
                f"--part {part} reads the decoder: give --target-text (the "
                "sentence the decoder writes)"
            )
        start = getattr(config, "decoder_start_token_id", None)
        if start is None:
            raise CaptureError("the model's config has no decoder_start_token_id")
        target_ids = [int(start), *tokenizer(text_target=target)["input_ids"]]
    elif target is not None:
        raise CaptureError(
            "--target-text is for the decoder of an encoder-decoder (--part decoder or cross)"
        )
    return Prepared(ids, None if types is None else list(types), padding, target_ids)


def forward(model, kind: str, part: str, prepared: Prepared):
    """The one forward pass, as a function of no arguments (see run_to_layer.run_to_sites)."""
    import torch

    def tensor(values):
        return torch.tensor([values])

    if kind == DECODER:
        return lambda: model(input_ids=tensor(prepared.ids), use_cache=False)
    inputs = {"input_ids": tensor(prepared.ids)}
    mask = (
        [1] * len(prepared.ids) if prepared.padding is None else [1 - p for p in prepared.padding]
    )
    inputs["attention_mask"] = tensor(mask)
    if kind == ENCODER:
        if prepared.token_type_ids is not None and _takes(model, "token_type_ids"):
            inputs["token_type_ids"] = tensor(prepared.token_type_ids)
        return lambda: model(**inputs)
    if part == "encoder":
        return lambda: model.get_encoder()(**inputs)
    return lambda: model(**inputs, decoder_input_ids=tensor(prepared.target_ids), use_cache=False)


def _takes(model, name: str) -> bool:
    return name in inspect.signature(model.forward).parameters
