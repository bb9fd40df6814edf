"""A captured layer as a scenario: a commented YAML file and an ``.npz`` of its matrices beside it.

The YAML is written in the multi-head scenario format (``npz:``, ``heads:``, ``kv_heads:``,
``rope:``), every string in it double-quoted by PyYAML's own emitter, so that any token (a
quote, a colon, ``yes``, a control character, a line separator) reads back under the safe
loader as exactly the string it was. Text from outside (the model's name, the text, tokens)
appears only in quoted values, never in comments, where a line feed could end the comment.
"""

from __future__ import annotations

import io
import math
import os
import textwrap
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from attn_tui.capture.agreement import Agreement
from attn_tui.capture.captured_layer import CapturedLayer
from attn_tui.core.files.atomic_write import write_atomic
from attn_tui.core.files.yaml_text import yaml_number, yaml_quoted

TEXT_IN_DESCRIPTION = 300  # characters of the text quoted in the description (tokens hold all)
TEXT_IN_TITLE = 40


@dataclass(frozen=True)
class About:
    """What was captured: for the title, the description and the comments."""

    model: str  # the model's name or folder name
    layer: int  # counted from 0
    depth: int  # the model's number of layers
    text: str
    tokens: list[str]  # as shown (see capture.tokens): the keys' (the source's, for cross)
    query_tokens: list[str] | None = None  # cross-attention: the queries' (the target's)
    part: str | None = None  # an encoder-decoder's part: "encoder", "decoder" or "cross"
    target: str | None = None  # an encoder-decoder's target text (--target-text)
    # --generate: the prompt's number of tokens, and the probability of each token chosen after it
    generation: tuple[int, tuple[float, ...]] | None = None


def scenario_yaml(
    captured: CapturedLayer, about: About, agreement: Agreement, npz_name: str
) -> str:
    """The scenario's YAML text (see the module's docstring)."""
    H, G, T, d_k, d_v = captured.heads, captured.kv_heads, captured.T, captured.d_k, captured.d_v
    T_k = captured.T_k
    d_out = captured.Wo.shape[1]
    queries, keys = ("target tokens", "source tokens") if captured.cross else ("tokens", "tokens")
    arrays = [
        ("Q", (H, T, d_k), f"queries: one matrix ({queries} × d_k) per query head"),
        ("K", (G, T_k, d_k), f"keys: one matrix ({keys} × d_k) per key/value head"),
        ("V", (G, T_k, d_v), f"values: one matrix ({keys} × d_v) per key/value head"),
        (
            "Wo",
            (H * d_v, d_out),
            "output projection: output = concat(head outputs) · Wo"
            + (" + bo" if captured.bo is not None else ""),
        ),
    ]
    if captured.bo is not None:
        arrays.append(("bo", (d_out,), "the output projection's bias"))
    if captured.bias is not None:
        arrays.append(("bias", (H, T, T_k), "added to each head's scaled scores (Bias stage)"))
    lines = [
        "# A real model's attention, captured by `attn-tui capture`: one layer, on one text.",
        "# The model, the layer and the text are named in the title and description below.",
        "# The matrices are NumPy arrays (float64) in the .npz file named by `npz:`:",
    ]
    lines += [
        f"#   {name:<4} {' × '.join(map(str, shape)):<16} {what}" for name, shape, what in arrays
    ]
    lines += _comment(captured.inputs)
    if captured.rope_base is not None:
        lines += _comment(
            "Q and K are BEFORE the rotary position embedding; the Rotate stage "
            "turns them (see rope: below) and the scores use the turned vectors."
        )
    lines += _comment(f"Checked when captured: {agreement.describe()}.")
    lines += _comment(
        "Layers and heads are numbered from 0, as Hugging Face numbers them. The "
        "output is the attention's output before the residual is added."
    )
    lines += [
        "",
        f"title: {quoted_scalar(_title(about))}",
        f"description: {quoted_scalar(_description(captured, about))}",
        f"npz: {quoted_scalar(npz_name)}",
        "",
    ]
    if captured.cross:
        lines += ["query_tokens:   # the decoder's: the target text, after its start token"]
        lines += [
            f"  - {quoted_scalar(token):<24} # {row}"
            for row, token in enumerate(about.query_tokens or [], 1)
        ]
        lines += ["tokens:   # the encoder's: the source text, as the tokenizer split it"]
    else:
        lines += ["tokens:   # as the model's tokenizer split the text; ␣ marks a space"]
    lines += [
        f"  - {quoted_scalar(token):<24} # {row}" for row, token in enumerate(about.tokens, 1)
    ]
    lines += ["", _keyed(f"heads: {H}", "query heads: Q's first dimension")]
    lines += [
        _keyed(
            "head_names: [" + ", ".join(f"head {h}" for h in range(H)) + "]",
            "counted from 0, as Hugging Face counts them",
        )
    ]
    if G < H:
        lines += [
            _keyed(
                f"kv_heads: {G}",
                f"grouped-query attention: query head h reads key/value head h // {H // G}",
            )
        ]
    lines += [_mask_line(captured), _scale_line(captured.divisor, d_k)]
    if captured.window is not None:
        lines += [
            _keyed(
                f"window: {captured.window}",
                f"sliding window: a token sees itself and the {captured.window - 1} before it",
            )
        ]
    if captured.chunk is not None:
        lines += [
            _keyed(
                f"chunk: {captured.chunk}",
                f"chunked attention: a token sees its own block of {captured.chunk}, up to itself",
            )
        ]
    if captured.padding is not None:
        lines += [
            "# padding: 1 marks a padding token, a key no query ever attends to",
            "padding: [" + ", ".join(str(flag) for flag in captured.padding) + "]",
        ]
    if captured.alibi:
        lines += [
            _keyed(
                "alibi: true",
                "ALiBi: the Bias stage adds −slope·|i − j|, slopes by Press et al.'s rule",
            )
        ]
    if captured.softcap is not None:
        lines += [
            _keyed(
                f"softcap: {yaml_number(captured.softcap)}",
                "Softcap stage: c·tanh(score / c) before the mask",
            )
        ]
    if captured.sinks is not None:
        lines += [
            "# learned attention sinks: each head's sink logit is one more column of every",
            "# row's scores in the softmax, then dropped, so a row's weights sum to less than 1",
            "sinks: [" + ", ".join(yaml_number(float(sink)) for sink in captured.sinks) + "]",
        ]
    if captured.qk_norm is not None:
        lines += [
            "# QK-norm: each query and key divided by √(mean(x²) + eps), times a gain if any",
            captured.qk_norm.yaml(None).rstrip("\n"),
        ]
    if captured.rope_base is not None:
        lines += _rope_lines(captured)
    lines += [_focus_line(captured, about)]
    if about.generation is not None:
        prompt, chances = about.generation
        lines += [
            f"# generated: the model chose every token from token {prompt + 1} on itself, one "
            "at a time,",
            "# greedily (model.generate with do_sample=False); p: the probability it gave each",
            "generated:",
            _keyed(f"  prompt: {prompt}", f"tokens 1 to {prompt} are the prompt"),
            "  p:",
        ]
        lines += [
            _keyed(f"    - {yaml_number(chance)}", f"token {prompt + step}")
            for step, chance in enumerate(chances, 1)
        ]
    return "\n".join(lines) + "\n"


def _rope_lines(captured: CapturedLayer) -> list[str]:
    base = yaml_number(captured.rope_base)
    if captured.rope_pairs == "interleaved":
        return [
            "# rotary position embedding, interleaved (Llama 4's complex product): dimension",
            "# 2j pairs with 2j + 1, turned by the angle position · base^(−2j/d)",
            f"rope: {{base: {base}, pairs: interleaved}}",
        ]
    lines = [
        "# rotary position embedding, Hugging Face's rotate_half: dimension j pairs with",
        "# j + R/2, turned by the angle position · base^(−2j/R)",
    ]
    if captured.rope_dims is None:
        return lines + [f"rope: {{base: {base}}}"]
    return lines + [
        f"# (partial rotary: only the first R = {captured.rope_dims} of the "
        f"{captured.d_k} dimensions turn)",
        f"rope: {{base: {base}, pairs: half, dims: {captured.rope_dims}}}",
    ]


def _mask_line(captured: CapturedLayer) -> str:
    if captured.causal:
        return _keyed(
            "causal: true", "the model's mask: each token sees itself and the tokens before it"
        )
    if captured.cross:
        return _keyed("causal: false", "cross-attention: every target token sees the whole source")
    return _keyed("causal: false", "an encoder: every token sees every other, before and after")


def _focus_line(captured: CapturedLayer, about: About) -> str:
    if captured.causal or captured.cross:
        return _keyed(
            f"focus: {captured.T}", "the last token: where it looks decides the next token"
        )
    return _keyed("focus: 1", "the first token: its output is what a classifier reads")


def npz_bytes(captured: CapturedLayer) -> bytes:
    """The ``.npz`` archive: Q, K, V, Wo and (when the model has them) bo and bias, as float64."""
    arrays = {"Q": captured.Q, "K": captured.K, "V": captured.V, "Wo": captured.Wo}
    if captured.bo is not None:
        arrays["bo"] = captured.bo
    if captured.bias is not None:
        arrays["bias"] = captured.bias
    buffer = io.BytesIO()
    np.savez(
        buffer,
        **{name: np.ascontiguousarray(array, dtype=np.float64) for name, array in arrays.items()},
    )
    return buffer.getvalue()


def write_files(yaml_path: str, yaml_text: str, npz_path: str, npz_data: bytes) -> None:
    """Write the archive, then the YAML that names it (each atomically), so a YAML file never
    names an archive that is not there yet."""
    write_atomic(npz_path, npz_data)
    write_atomic(yaml_path, yaml_text)


@lru_cache(maxsize=65536)  # every layer of --layer all quotes the same tokens
def quoted_scalar(text: str) -> str:
    """``text`` as one double-quoted YAML scalar on one line that reads back as exactly ``text``
    (core's own quoting, the one save and render use)."""
    return yaml_quoted(text)


def _scale_line(divisor: float, d_k: int) -> str:
    root = math.sqrt(d_k)
    if math.isclose(divisor, root, rel_tol=1e-12):
        value, what = "true", f"the model divides the scores by √d_k = √{d_k} = {root:g}"
    elif divisor == 1.0:
        value, what = "false", "the model does not scale the scores"
    else:
        value, what = yaml_number(divisor), f"the model's divisor of the scores (√d_k is {root:g})"
    return _keyed(f"scale: {value}", what)


PART_NAMES = {
    "encoder": "encoder layer",
    "decoder": "decoder layer",
    "cross": "decoder cross-attention layer",
}


def shortened(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _title(about: About) -> str:
    where = PART_NAMES.get(about.part or "", "layer")
    text = about.target if about.part == "decoder" and about.target is not None else about.text
    return f"{about.model} · {where} {about.layer} · {shortened(text, TEXT_IN_TITLE)}"


def _quoted_text(text: str) -> str:
    if len(text) > TEXT_IN_DESCRIPTION:
        text = f"{text[:TEXT_IN_DESCRIPTION]}… ({len(text)} characters in all)"
    return f'"{text}"'


def _description(captured: CapturedLayer, about: About) -> str:
    heads = f"{captured.heads} heads of d_k = {captured.d_k}"
    if captured.kv_heads < captured.heads:
        heads += f" sharing {captured.kv_heads} key/value heads"
    where = PART_NAMES.get(about.part or "", "layer")
    where = where[0].upper() + where[1:]
    if about.part == "cross":
        run = (
            f"on the source text {_quoted_text(about.text)} ({captured.T_k} tokens, the keys) "
            f"and the target text {_quoted_text(about.target or '')} ({captured.T} tokens "
            "with the decoder's start token, the queries)"
        )
    elif about.part == "decoder":
        run = (
            f"on the target text {_quoted_text(about.target or '')} ({captured.T} tokens with "
            f"the decoder's start token), written from the source text "
            f"{_quoted_text(about.text)}"
        )
    elif about.generation is not None:
        prompt, chances = about.generation
        run = (
            f"on the prompt {_quoted_text(about.text)} ({prompt} tokens) and the {len(chances)} "
            f"token{'s' if len(chances) > 1 else ''} the model then chose itself, one at a "
            "time, greedily (the decode view steps through them)"
        )
    else:
        run = f"on the text {_quoted_text(about.text)} ({captured.T} tokens)"
    sentences = [
        f"{where} {about.layer} (of {about.depth}, counted from 0) of {about.model}, "
        f"a {captured.family} model with {heads}, {run}.",
        captured.inputs,
        *captured.notes,
        "Every weight and output here is the model's own, checked when captured.",
    ]
    return " ".join(sentences)


def _keyed(line: str, comment: str) -> str:
    return f"{line:<22} # {comment}"


def _comment(sentence: str) -> list[str]:
    return [f"# {line}" for line in textwrap.wrap(sentence, width=94)]


def default_name(model_label: str, layer: int | None, part: str | None = None) -> str:
    """``gpt2_l3.yaml`` for openai-community/gpt2's layer 3 (``t5-small_cross_l3.yaml`` for a
    part, ``gpt2_layers.yaml`` for the index of every layer, ``layer`` None): the model's last
    name part, with anything but letters, digits, ``-``, ``_`` and ``.`` replaced."""
    stem = model_label.replace("\\", "/").rstrip("/").split("/")[-1] or "model"
    stem = (
        "".join(
            character
            if character.isascii() and (character.isalnum() or character in "-_.")
            else "_"
            for character in stem
        ).lstrip(".")
        or "model"
    )
    if part is not None:
        stem += f"_{part}"
    return f"{stem}_layers.yaml" if layer is None else f"{stem}_l{layer}.yaml"


def layer_path_for(index_path: str, layer: int) -> str:
    """The scenario of one layer beside an index: ``gpt2_layers.yaml`` → ``gpt2_layers_l3.yaml``."""
    return f"{os.path.splitext(index_path)[0]}_l{layer}.yaml"


def npz_path_for(yaml_path: str) -> str:
    """The archive beside a scenario: ``gpt2_l3.yaml`` → ``gpt2_l3.npz``."""
    return os.path.splitext(yaml_path)[0] + ".npz"
