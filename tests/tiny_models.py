"""Tiny, randomly initialised Hugging Face models with tokenizers built here, saved to a folder.

They stand in for real checkpoints in the capture tests and benchmark: the same classes, files
and code paths as GPT-2 and Llama, small enough to build in a fraction of a second, and nothing
downloaded. Importing this module imports torch, transformers and tokenizers.
"""

from __future__ import annotations

import json
from pathlib import Path

import torch
from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, processors
from tokenizers import trainers
from transformers import GPT2Config, GPT2LMHeadModel, LlamaConfig, LlamaForCausalLM
from transformers import PreTrainedTokenizerFast

SENTENCES = ["The cat sat on the mat.", "The dog sat on the log.", "A cat and a dog sat together.",
             "the mat, the log, the cat"] * 4


def byte_level_tokenizer() -> PreTrainedTokenizerFast:
    """GPT-2's kind: byte-level BPE (a space is "Ġ"), no BOS, ``<|endoftext|>`` as special."""
    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=300, special_tokens=["<|endoftext|>"],
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tokenizer.train_from_iterator(SENTENCES, trainer)
    return PreTrainedTokenizerFast(tokenizer_object=tokenizer, bos_token="<|endoftext|>",
                                   eos_token="<|endoftext|>", unk_token="<|endoftext|>")


def sentencepiece_style_tokenizer() -> PreTrainedTokenizerFast:
    """Llama 2's kind: BPE over "▁"-marked words, byte fallback (``<0x0A>``), ``<s>`` first."""
    trained = Tokenizer(models.BPE(unk_token="<unk>"))
    trained.pre_tokenizer = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="first")
    trained.train_from_iterator(SENTENCES, trainers.BpeTrainer(
        vocab_size=200, special_tokens=["<unk>", "<s>", "</s>"]))
    state = json.loads(trained.to_str())["model"]
    vocab = dict(state["vocab"])
    for byte in range(256):  # the byte-fallback pieces, as Llama 2's vocabulary has them
        vocab.setdefault(f"<0x{byte:02X}>", len(vocab))
    merges = [tuple(merge.split(" ")) if isinstance(merge, str) else tuple(merge)
              for merge in state["merges"]]
    tokenizer = Tokenizer(models.BPE(vocab=vocab, merges=merges, unk_token="<unk>",
                                     byte_fallback=True))
    tokenizer.add_special_tokens(["<unk>", "<s>", "</s>"])
    tokenizer.normalizer = normalizers.Sequence([])
    tokenizer.pre_tokenizer = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="first")
    tokenizer.decoder = decoders.Sequence([decoders.Replace("▁", " "), decoders.ByteFallback(),
                                           decoders.Fuse(), decoders.Strip(" ", 1, 0)])
    tokenizer.post_processor = processors.TemplateProcessing(
        single="<s> $A", special_tokens=[("<s>", vocab["<s>"])])
    return PreTrainedTokenizerFast(tokenizer_object=tokenizer, bos_token="<s>", eos_token="</s>",
                                   unk_token="<unk>")


def save_gpt2(folder: Path, *, layers: int = 3, hidden: int = 32, heads: int = 4,
              positions: int = 64, seed: int = 0, **config) -> Path:
    """A tiny GPT-2 (``model_type: gpt2``) with a byte-level tokenizer, saved to ``folder``."""
    tokenizer = byte_level_tokenizer()
    eos = tokenizer.convert_tokens_to_ids("<|endoftext|>")
    model = GPT2LMHeadModel(GPT2Config(
        vocab_size=len(tokenizer), n_positions=positions, n_embd=hidden, n_layer=layers,
        n_head=heads, bos_token_id=eos, eos_token_id=eos, **config))
    _spread_out(model, seed)
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


def save_llama(folder: Path, *, layers: int = 2, hidden: int = 64, heads: int = 4,
               kv_heads: int = 2, positions: int = 64, seed: int = 0, **config) -> Path:
    """A tiny Llama (RoPE, grouped-query attention, RMSNorm) with a SentencePiece-style
    tokenizer, saved to ``folder``."""
    tokenizer = sentencepiece_style_tokenizer()
    model = LlamaForCausalLM(LlamaConfig(
        vocab_size=len(tokenizer), hidden_size=hidden, intermediate_size=2 * hidden,
        num_hidden_layers=layers, num_attention_heads=heads, num_key_value_heads=kv_heads,
        max_position_embeddings=positions, bos_token_id=tokenizer.convert_tokens_to_ids("<s>"),
        eos_token_id=tokenizer.convert_tokens_to_ids("</s>"), **config))
    _spread_out(model, seed)
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


def _spread_out(model: torch.nn.Module, seed: int) -> None:
    """Draw the weights afresh, large enough that attention is far from uniform.

    At the usual initialisation (std 0.02) a tiny model's scores are all near 0 and every head
    attends almost evenly, which would let a wrong mask, scale or head order pass a test. Drawn
    from ``seed`` in the order of the parameters' names, the weights depend on nothing but the
    names, the shapes and PyTorch's generator, not on how a transformers release initialises.
    """
    torch.manual_seed(seed)
    with torch.no_grad():
        for name, parameter in sorted(model.named_parameters()):
            if parameter.dim() >= 2:
                parameter.normal_(0.0, 0.2)
            elif name.endswith("bias"):
                parameter.normal_(0.0, 0.2)
