"""Tiny, randomly initialised Hugging Face models with tokenizers built here, saved to a folder.

They stand in for real checkpoints in the capture tests and benchmark: the same classes, files
and code paths as GPT-2, Llama and the other families capture knows, small enough to build in a
fraction of a second, and nothing downloaded. Importing this module imports torch,
transformers and tokenizers. The tokenizers, one of each family's kind, are
tests/tiny_tokenizers.py.
"""

from __future__ import annotations

from pathlib import Path

import torch
import transformers
from transformers import GPT2Config, GPT2LMHeadModel, LlamaConfig, LlamaForCausalLM

from tests.tiny_tokenizers import (
    byte_level_tokenizer,
    sentencepiece_style_tokenizer,
    seq2seq_tokenizer,
    wordpiece_tokenizer,
)


def save_gpt2(
    folder: Path,
    *,
    layers: int = 3,
    hidden: int = 32,
    heads: int = 4,
    positions: int = 64,
    seed: int = 0,
    **config,
) -> Path:
    """A tiny GPT-2 (``model_type: gpt2``) with a byte-level tokenizer, saved to ``folder``."""
    tokenizer = byte_level_tokenizer()
    eos = tokenizer.convert_tokens_to_ids("<|endoftext|>")
    model = GPT2LMHeadModel(
        GPT2Config(
            vocab_size=len(tokenizer),
            n_positions=positions,
            n_embd=hidden,
            n_layer=layers,
            n_head=heads,
            bos_token_id=eos,
            eos_token_id=eos,
            **config,
        )
    )
    _spread_out(model, seed)
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


def save_llama(
    folder: Path,
    *,
    layers: int = 2,
    hidden: int = 64,
    heads: int = 4,
    kv_heads: int = 2,
    positions: int = 64,
    seed: int = 0,
    **config,
) -> Path:
    """A tiny Llama (RoPE, grouped-query attention, RMSNorm) with a SentencePiece-style
    tokenizer, saved to ``folder``."""
    tokenizer = sentencepiece_style_tokenizer()
    model = LlamaForCausalLM(
        LlamaConfig(
            vocab_size=len(tokenizer),
            hidden_size=hidden,
            intermediate_size=2 * hidden,
            num_hidden_layers=layers,
            num_attention_heads=heads,
            num_key_value_heads=kv_heads,
            max_position_embeddings=positions,
            bos_token_id=tokenizer.convert_tokens_to_ids("<s>"),
            eos_token_id=tokenizer.convert_tokens_to_ids("</s>"),
            **config,
        )
    )
    _spread_out(model, seed)
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


def save_family(
    family: str,
    folder: Path,
    *,
    layers: int = 2,
    hidden: int = 32,
    heads: int = 4,
    positions: int = 64,
    seed: int = 0,
    causal_lm: bool = False,
    **config,
) -> Path:
    """A tiny model of ``family`` (a model_type capture knows, other than gpt2 and llama) with a
    tokenizer of its kind, saved to ``folder``; ``config`` overrides the defaults below;
    ``causal_lm``: a decoder with its language-model head (``…ForCausalLM``), which generates."""
    build = _FAMILIES[family]
    tokenizer = build["tokenizer"]()
    settings = build["config"](len(tokenizer), layers, hidden, heads, positions, tokenizer)
    settings.update(config)
    name = build["model"]
    if causal_lm:
        name = build.get("causal_lm", name.removesuffix("Model") + "ForCausalLM")
    model = getattr(transformers, name)(getattr(transformers, build["class"])(**settings))
    _spread_out(model, seed, gains=build.get("gains"))
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


def _decoder(vocab, layers, hidden, heads, positions, tokenizer, kv_heads=2):
    return dict(
        vocab_size=vocab,
        hidden_size=hidden,
        intermediate_size=2 * hidden,
        num_hidden_layers=layers,
        num_attention_heads=heads,
        num_key_value_heads=kv_heads,
        max_position_embeddings=positions,
        bos_token_id=tokenizer.convert_tokens_to_ids("<s>"),
        eos_token_id=tokenizer.convert_tokens_to_ids("</s>"),
        pad_token_id=None,
    )


def _bert(vocab, layers, hidden, heads, positions, tokenizer):
    return dict(
        vocab_size=vocab,
        hidden_size=hidden,
        num_hidden_layers=layers,
        num_attention_heads=heads,
        intermediate_size=2 * hidden,
        max_position_embeddings=positions,
        pad_token_id=tokenizer.pad_token_id,
    )


def _seq2seq(vocab, layers, hidden, heads, positions, tokenizer):
    return dict(
        vocab_size=vocab,
        d_model=hidden,
        encoder_layers=layers,
        decoder_layers=layers,
        encoder_attention_heads=heads,
        decoder_attention_heads=heads,
        encoder_ffn_dim=2 * hidden,
        decoder_ffn_dim=2 * hidden,
        max_position_embeddings=positions,
        pad_token_id=0,
        eos_token_id=1,
        bos_token_id=3,
        forced_eos_token_id=1,
    )


_SENTENCEPIECE = sentencepiece_style_tokenizer
_FAMILIES = {
    "mistral": {
        "tokenizer": _SENTENCEPIECE,
        "class": "MistralConfig",
        "model": "MistralModel",
        "config": _decoder,
    },
    "qwen2": {
        "tokenizer": _SENTENCEPIECE,
        "class": "Qwen2Config",
        "model": "Qwen2Model",
        "config": _decoder,
    },
    "gemma": {
        "tokenizer": _SENTENCEPIECE,
        "class": "GemmaConfig",
        "model": "GemmaModel",
        "config": lambda *a: dict(_decoder(*a), head_dim=12),
    },
    "gemma2": {
        "tokenizer": _SENTENCEPIECE,
        "class": "Gemma2Config",
        "model": "Gemma2Model",
        "config": lambda *a: dict(_decoder(*a), head_dim=12, query_pre_attn_scalar=20),
    },
    "phi3": {
        "tokenizer": _SENTENCEPIECE,
        "class": "Phi3Config",
        "model": "Phi3Model",
        "config": _decoder,
    },
    "qwen3": {
        "tokenizer": _SENTENCEPIECE,
        "class": "Qwen3Config",
        "model": "Qwen3Model",
        "config": lambda *a: dict(_decoder(*a), head_dim=8),
        "gains": 0.5,
    },
    "gemma3_text": {
        "tokenizer": _SENTENCEPIECE,
        "class": "Gemma3TextConfig",
        "model": "Gemma3TextModel",
        "causal_lm": "Gemma3ForCausalLM",
        # a sliding (local) layer, then a full (global) one, each with its own RoPE base
        "config": lambda *a: dict(
            _decoder(*a),
            head_dim=12,
            query_pre_attn_scalar=20,
            sliding_window=3,
            layer_types=["sliding_attention", "full_attention"],
            rope_parameters={
                "sliding_attention": {"rope_type": "default", "rope_theta": 10_000.0},
                "full_attention": {"rope_type": "default", "rope_theta": 1_000_000.0},
            },
        ),
        "gains": 0.5,
    },
    "olmo2": {
        "tokenizer": _SENTENCEPIECE,
        "class": "Olmo2Config",
        "model": "Olmo2Model",
        "config": _decoder,
        # its norm spreads each vector over every head: larger gains keep the heads uneven
        "gains": 1.5,
    },
    "smollm3": {
        "tokenizer": _SENTENCEPIECE,
        "class": "SmolLM3Config",
        "model": "SmolLM3Model",
        # layer 0 turns Q and K by RoPE, layer 1 has no position at all (NoPE)
        "config": lambda *a: dict(_decoder(*a), no_rope_layers=[1, 0]),
    },
    "deepseek_v3": {
        "tokenizer": _SENTENCEPIECE,
        "class": "DeepseekV3Config",
        "model": "DeepseekV3Model",
        # multi-head latent attention, small: a low-rank query path, a latent of 16, a shared
        # k_rope of 4, d_v ≠ d_k; one dense layer, then one of 4 experts
        "config": lambda *a: dict(
            _decoder(*a, kv_heads=a[3]),
            q_lora_rank=24,
            kv_lora_rank=16,
            qk_rope_head_dim=4,
            qk_nope_head_dim=8,
            v_head_dim=6,
            moe_intermediate_size=16,
            n_routed_experts=4,
            num_experts_per_tok=2,
            n_group=1,
            topk_group=1,
            first_k_dense_replace=1,
        ),
        "gains": 0.5,
    },
    "gpt_oss": {
        "tokenizer": _SENTENCEPIECE,
        "class": "GptOssConfig",
        "model": "GptOssModel",
        # a sliding layer of 3, then a full one; plain RoPE (the real models' is yarn); 4 experts
        "config": lambda *a: dict(
            _decoder(*a),
            head_dim=8,
            sliding_window=3,
            num_local_experts=4,
            num_experts_per_tok=2,
            rope_parameters={"rope_type": "default", "rope_theta": 10_000.0},
        ),
    },
    "llama4_text": {
        "tokenizer": _SENTENCEPIECE,
        "class": "Llama4TextConfig",
        "model": "Llama4TextModel",
        "causal_lm": "Llama4ForCausalLM",
        # layer 0: RoPE (plain, interleaved pairs), L2 QK-norm and chunks of 4; layer 1: NoPE,
        # full, with a temperature that changes every 4 tokens (floor_scale 4, not 8192); dense
        # feed-forward layers (no experts), the least that builds
        "config": lambda *a: dict(
            _decoder(*a),
            head_dim=8,
            intermediate_size_mlp=64,
            moe_layers=[],
            no_rope_layers=[1, 0],
            attention_chunk_size=4,
            floor_scale=4,
            attn_scale=0.5,
            rope_parameters={"rope_type": "default", "rope_theta": 10_000.0},
        ),
    },
    "gpt_neox": {
        "tokenizer": _SENTENCEPIECE,
        "class": "GPTNeoXConfig",
        "model": "GPTNeoXModel",
        "config": lambda *a: dict(_decoder(*a), num_key_value_heads=None, attention_bias=True),
    },
    "bloom": {
        "tokenizer": byte_level_tokenizer,
        "class": "BloomConfig",
        "model": "BloomModel",
        "config": lambda vocab, layers, hidden, heads, positions, tokenizer: dict(
            vocab_size=vocab, hidden_size=hidden, n_layer=layers, n_head=heads
        ),
    },
    "bert": {
        "tokenizer": wordpiece_tokenizer,
        "class": "BertConfig",
        "model": "BertModel",
        "config": _bert,
    },
    "roberta": {
        "tokenizer": wordpiece_tokenizer,
        "class": "RobertaConfig",
        "model": "RobertaModel",
        "config": lambda *a: dict(_bert(*a), max_position_embeddings=a[4] + 2, type_vocab_size=1),
    },
    "distilbert": {
        "tokenizer": wordpiece_tokenizer,
        "class": "DistilBertConfig",
        "model": "DistilBertModel",
        "config": lambda vocab, layers, hidden, heads, positions, tokenizer: dict(
            vocab_size=vocab,
            dim=hidden,
            n_layers=layers,
            n_heads=heads,
            hidden_dim=2 * hidden,
            max_position_embeddings=positions,
            pad_token_id=tokenizer.pad_token_id,
        ),
    },
    "t5": {
        "tokenizer": lambda: seq2seq_tokenizer(bos=False),
        "class": "T5Config",
        "model": "T5Model",
        "config": lambda vocab, layers, hidden, heads, positions, tokenizer: dict(
            vocab_size=vocab,
            d_model=hidden,
            d_kv=hidden // heads,
            d_ff=2 * hidden,
            num_layers=layers,
            num_decoder_layers=layers,
            num_heads=heads,
            relative_attention_num_buckets=8,
            relative_attention_max_distance=16,
            pad_token_id=0,
            eos_token_id=1,
            decoder_start_token_id=0,
        ),
    },
    "bart": {
        "tokenizer": lambda: seq2seq_tokenizer(bos=True),
        "class": "BartConfig",
        "model": "BartModel",
        "config": lambda *a: dict(_seq2seq(*a), decoder_start_token_id=1),
    },
    "marian": {
        "tokenizer": lambda: seq2seq_tokenizer(bos=False),
        "class": "MarianConfig",
        "model": "MarianModel",
        "config": lambda *a: dict(_seq2seq(*a), decoder_start_token_id=0),
    },
}


def _spread_out(model: torch.nn.Module, seed: int, gains: float | None = None) -> None:
    """Draw the weights afresh, large enough that attention is far from uniform.

    At the usual initialisation (std 0.02) a tiny model's scores are all near 0 and every head
    attends almost evenly, which would let a wrong mask, scale or head order pass a test. Learned
    attention sinks (gpt-oss) are drawn around 0 with a spread of 1, so that a row gives a sink
    from a few to most of its weight and a sink left out would show. Drawn
    from ``seed`` in the order of the parameters' names, the weights depend on nothing but the
    names, the shapes and PyTorch's generator, not on how a transformers release initialises.
    ``gains``: the norms' gains drawn too, around that value, where a norm is part of
    attention (QK-norm), so that a gain left out would show.
    """
    torch.manual_seed(seed)
    with torch.no_grad():
        for name, parameter in sorted(model.named_parameters()):
            if parameter.dim() >= 2:
                parameter.normal_(0.0, 0.2)
            elif name.endswith("sinks"):
                parameter.normal_(0.0, 1.0)
            elif name.endswith("bias"):
                parameter.normal_(0.0, 0.2)
            elif gains is not None:
                parameter.normal_(gains, 0.3)
