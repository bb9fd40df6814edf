"""``attn-tui capture demo``: a small GPT-2 whose weights are set by hand, so that its heads show
the patterns a class looks for — a previous-token head, a first-token head, a self head and, in
its second layer, an induction head — built here in a second, with no hub and no download.

A random tiny model scores about 0.18 on every pattern and teaches nothing; this one is wired:

- its embedding has three parts: the token (a random unit vector of 64 numbers), the position
  (one-hot, 64 positions) and, empty until layer 0 writes it, the previous token;
- layer 0, head 0 matches a query's position p with the key of position p − 1 (previous token),
  and its value and output projection copy that token into the "previous token" part;
- layer 0, head 1 has one query for every position (from the layer norm's bias) matching only
  position 0 (first token); head 2 matches a token with itself (self); head 3 is left at zero
  weights, so it averages (uniform);
- layer 1, head 0 matches a query's token with each key's *previous* token, which layer 0 wrote:
  in "The cat sat. The cat sat." the second "cat" attends to the first "sat" (induction); its
  other heads repeat layer 0's previous-token, first-token and self heads.

The MLPs are zero, so nothing else moves the residual stream. Importing this module imports
nothing heavy; :func:`build` imports torch, transformers and tokenizers (the models extra).
"""

from __future__ import annotations

import os

NAME = "demo"
TOKEN, POSITION, PREVIOUS, SPARE = 0, 64, 128, 192  # where each part of the embedding starts
PART = 64
HIDDEN = 256
HEADS = 4
LAYERS = 2
HEAD_DIM = HIDDEN // HEADS
POSITIONS = 64
SHARP = 1.0  # the previous-token and self heads' weights (scores of ~12 against ~0)
FIRST = 3.0  # the first-token head's
INDUCTION = 1.5
SENTENCES = [
    "The cat sat on the mat.",
    "The dog sat on the log.",
    "A cat and a dog sat together.",
    "When Mary and John went to the store, John gave a drink to Mary.",
] * 4


def build(folder: str) -> str:
    """Write the demo model and its tokenizer to ``folder`` (made if missing); returns it."""
    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import GPT2Config, GPT2LMHeadModel, PreTrainedTokenizerFast

    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    tokenizer.train_from_iterator(
        SENTENCES,
        trainers.BpeTrainer(
            vocab_size=320,
            special_tokens=["<|endoftext|>"],
            initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
            show_progress=False,
        ),
    )  # (its bar wrote blank lines to stdout, before the one line capture says)
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tokenizer,
        bos_token="<|endoftext|>",
        eos_token="<|endoftext|>",
        unk_token="<|endoftext|>",
    )
    eos = fast.convert_tokens_to_ids("<|endoftext|>")
    config = GPT2Config(
        vocab_size=len(fast),
        n_positions=POSITIONS,
        n_embd=HIDDEN,
        n_layer=LAYERS,
        n_head=HEADS,
        bos_token_id=eos,
        eos_token_id=eos,
        resid_pdrop=0.0,
        embd_pdrop=0.0,
        attn_pdrop=0.0,
    )
    model = GPT2LMHeadModel(config)
    generator = torch.Generator().manual_seed(0)
    with torch.no_grad():
        for parameter in model.parameters():
            parameter.zero_()
        tokens = torch.randn(len(fast), PART, generator=generator)
        model.transformer.wte.weight[:, TOKEN : TOKEN + PART] = tokens / tokens.norm(
            dim=1, keepdim=True
        )
        model.transformer.wpe.weight[:, POSITION : POSITION + PART] = torch.eye(POSITIONS, PART)
        for block in model.transformer.h:
            for norm in (block.ln_1, block.ln_2):
                norm.weight.fill_(1.0)
            block.ln_1.bias[SPARE] = (
                1.0  # a constant for every position: the first-token head's query
            )
        model.transformer.ln_f.weight.fill_(1.0)
        first, second = model.transformer.h
        _previous_token(first.attn, 0, copy=True)
        _first_token(first.attn, 1)
        _self(first.attn, 2)
        _induction(second.attn, 0)
        _previous_token(second.attn, 1, copy=False)
        _first_token(second.attn, 2)
        _self(second.attn, 3)
    os.makedirs(folder, exist_ok=True)
    model.save_pretrained(folder)
    fast.save_pretrained(folder)
    return folder


def _columns(head: int, which: str) -> slice:
    """Head ``head``'s columns of GPT-2's fused c_attn (query, key or value)."""
    start = {"q": 0, "k": HIDDEN, "v": 2 * HIDDEN}[which] + head * HEAD_DIM
    return slice(start, start + HEAD_DIM)


def _previous_token(attention, head: int, copy: bool) -> None:
    """Position p's query against position p − 1's key; with ``copy``, that key's token is
    written into the embedding's previous-token part."""
    import torch

    weight = attention.c_attn.weight  # (in, out): y = x @ W
    q, k, v = (_columns(head, which) for which in "qkv")
    shift = torch.zeros(PART, HEAD_DIM)
    for p in range(PART - 1):
        shift[p, p + 1] = SHARP  # key of position p lands where the query of p + 1 is
    weight[POSITION : POSITION + PART, q] = torch.eye(PART, HEAD_DIM) * SHARP
    weight[POSITION : POSITION + PART, k] = shift
    if copy:
        weight[TOKEN : TOKEN + PART, v] = torch.eye(PART, HEAD_DIM)
        # (the layer norm scales the embedding by about √(256/2) ≈ 11: scaled back here)
        rows = slice(head * HEAD_DIM, head * HEAD_DIM + PART)
        attention.c_proj.weight[rows, PREVIOUS : PREVIOUS + PART] = (
            torch.eye(PART) / (HIDDEN / 2) ** 0.5
        )


def _first_token(attention, head: int) -> None:
    """One query for every position (the layer norm's constant) against position 0's key."""
    weight = attention.c_attn.weight
    q, k = _columns(head, "q"), _columns(head, "k")
    weight[SPARE, q.start] = FIRST
    weight[POSITION, k.start] = FIRST


def _self(attention, head: int) -> None:
    """A token's query against the keys of the same token (itself, and its repeats)."""
    import torch

    weight = attention.c_attn.weight
    weight[TOKEN : TOKEN + PART, _columns(head, "q")] = torch.eye(PART, HEAD_DIM) * SHARP
    weight[TOKEN : TOKEN + PART, _columns(head, "k")] = torch.eye(PART, HEAD_DIM) * SHARP


def _induction(attention, head: int) -> None:
    """A token's query against each key's previous token (written by layer 0's head 0)."""
    import torch

    weight = attention.c_attn.weight
    weight[TOKEN : TOKEN + PART, _columns(head, "q")] = torch.eye(PART, HEAD_DIM) * INDUCTION
    weight[PREVIOUS : PREVIOUS + PART, _columns(head, "k")] = torch.eye(PART, HEAD_DIM) * INDUCTION
