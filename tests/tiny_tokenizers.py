"""Tokenizers built here, one of each kind the tiny models of tests/tiny_models.py need, trained
in a fraction of a second on a few sentences: GPT-2's byte-level BPE, Llama 2's SentencePiece-style
BPE with byte fallback, BERT's WordPiece, and the seq2seq models'. Nothing is downloaded.
Importing this module imports tokenizers and transformers.
"""

from __future__ import annotations

import json

from tokenizers import (
    Tokenizer,
    decoders,
    models,
    normalizers,
    pre_tokenizers,
    processors,
    trainers,
)
from transformers import PreTrainedTokenizerFast

SENTENCES = [
    "The cat sat on the mat.",
    "The dog sat on the log.",
    "A cat and a dog sat together.",
    "the mat, the log, the cat",
] * 4


def byte_level_tokenizer() -> PreTrainedTokenizerFast:
    """GPT-2's kind: byte-level BPE (a space is "Ġ"), no BOS, ``<|endoftext|>`` as special."""
    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=300,
        special_tokens=["<|endoftext|>"],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
    )
    tokenizer.train_from_iterator(SENTENCES, trainer)
    return PreTrainedTokenizerFast(
        tokenizer_object=tokenizer,
        bos_token="<|endoftext|>",
        eos_token="<|endoftext|>",
        unk_token="<|endoftext|>",
    )


def sentencepiece_style_tokenizer() -> PreTrainedTokenizerFast:
    """Llama 2's kind: BPE over "▁"-marked words, byte fallback (``<0x0A>``), ``<s>`` first."""
    trained = Tokenizer(models.BPE(unk_token="<unk>"))
    trained.pre_tokenizer = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="first")
    trained.train_from_iterator(
        SENTENCES, trainers.BpeTrainer(vocab_size=200, special_tokens=["<unk>", "<s>", "</s>"])
    )
    state = json.loads(trained.to_str())["model"]
    vocab = dict(state["vocab"])
    for byte in range(256):  # the byte-fallback pieces, as Llama 2's vocabulary has them
        vocab.setdefault(f"<0x{byte:02X}>", len(vocab))
    merges = [
        tuple(merge.split(" ")) if isinstance(merge, str) else tuple(merge)
        for merge in state["merges"]
    ]
    tokenizer = Tokenizer(
        models.BPE(vocab=vocab, merges=merges, unk_token="<unk>", byte_fallback=True)
    )
    tokenizer.add_special_tokens(["<unk>", "<s>", "</s>"])
    tokenizer.normalizer = normalizers.Sequence([])
    tokenizer.pre_tokenizer = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="first")
    tokenizer.decoder = decoders.Sequence(
        [
            decoders.Replace("▁", " "),
            decoders.ByteFallback(),
            decoders.Fuse(),
            decoders.Strip(" ", 1, 0),
        ]
    )
    tokenizer.post_processor = processors.TemplateProcessing(
        single="<s> $A", special_tokens=[("<s>", vocab["<s>"])]
    )
    return PreTrainedTokenizerFast(
        tokenizer_object=tokenizer, bos_token="<s>", eos_token="</s>", unk_token="<unk>"
    )


def wordpiece_tokenizer() -> PreTrainedTokenizerFast:
    """BERT's kind: lower-cased WordPiece ("##" continues a word), ``[CLS] A [SEP] B [SEP]``
    with segment ids 0 then 1, ``[PAD]`` first (id 0, as BERT's config expects)."""
    tokenizer = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tokenizer.normalizer = normalizers.BertNormalizer(lowercase=True)
    tokenizer.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tokenizer.train_from_iterator(
        SENTENCES,
        trainers.WordPieceTrainer(
            vocab_size=200, special_tokens=["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
        ),
    )
    cls, sep = tokenizer.token_to_id("[CLS]"), tokenizer.token_to_id("[SEP]")
    tokenizer.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]",
        pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", cls), ("[SEP]", sep)],
    )
    tokenizer.decoder = decoders.WordPiece()
    return PreTrainedTokenizerFast(
        tokenizer_object=tokenizer,
        unk_token="[UNK]",
        pad_token="[PAD]",
        cls_token="[CLS]",
        sep_token="[SEP]",
        mask_token="[MASK]",
    )


def seq2seq_tokenizer(bos: bool) -> PreTrainedTokenizerFast:
    """T5's and Marian's kind (``$A </s>``), or BART's (``<s> $A </s>``, ``bos``): "▁"-marked
    words, ``<pad>`` id 0 (T5's and Marian's decoder start), ``</s>`` id 1."""
    specials = ["<pad>", "</s>", "<unk>", "<s>"]
    tokenizer = Tokenizer(models.BPE(unk_token="<unk>"))
    tokenizer.pre_tokenizer = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="always")
    tokenizer.decoder = decoders.Metaspace(replacement="▁", prepend_scheme="always")
    tokenizer.train_from_iterator(
        SENTENCES, trainers.BpeTrainer(vocab_size=200, special_tokens=specials)
    )
    ids = {name: tokenizer.token_to_id(name) for name in specials}
    tokenizer.post_processor = processors.TemplateProcessing(
        single="<s> $A </s>" if bos else "$A </s>",
        special_tokens=[("<s>", ids["<s>"]), ("</s>", ids["</s>"])],
    )
    return PreTrainedTokenizerFast(
        tokenizer_object=tokenizer,
        pad_token="<pad>",
        eos_token="</s>",
        unk_token="<unk>",
        bos_token="<s>",
    )
