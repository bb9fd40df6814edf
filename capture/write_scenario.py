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

import numpy as np
import yaml

from attn_tui.capture.agreement import Agreement
from attn_tui.capture.captured_layer import CapturedLayer
from attn_tui.core.atomic_write import write_atomic

TEXT_IN_DESCRIPTION = 300  # characters of the text quoted in the description (tokens hold all)
TEXT_IN_TITLE = 40


@dataclass(frozen=True)
class About:
    """What was captured: for the title, the description and the comments."""

    model: str      # the model's name or folder name
    layer: int      # counted from 0
    depth: int      # the model's number of layers
    text: str
    tokens: list[str]  # as shown (see capture.tokens)


def scenario_yaml(captured: CapturedLayer, about: About, agreement: Agreement,
                  npz_name: str) -> str:
    """The scenario's YAML text (see the module's docstring)."""
    H, G, T, d_k, d_v = captured.heads, captured.kv_heads, captured.T, captured.d_k, captured.d_v
    d_out = captured.Wo.shape[1]
    arrays = [("Q", (H, T, d_k), "queries: one matrix (tokens × d_k) per query head"),
              ("K", (G, T, d_k), "keys: one matrix (tokens × d_k) per key/value head"),
              ("V", (G, T, d_v), "values: one matrix (tokens × d_v) per key/value head"),
              ("Wo", (H * d_v, d_out), "output projection: output = concat(head outputs) · Wo"
                                       + (" + bo" if captured.bo is not None else ""))]
    if captured.bo is not None:
        arrays.append(("bo", (d_out,), "the output projection's bias"))
    lines = ["# A real model's attention, captured by `attn-tui capture`: one layer, on one text.",
             "# The model, the layer and the text are named in the title and description below.",
             "# The matrices are NumPy arrays (float64) in the .npz file named by `npz:`:"]
    lines += [f"#   {name:<3} {' × '.join(map(str, shape)):<16} {what}"
              for name, shape, what in arrays]
    lines += _comment(captured.inputs)
    if captured.rope_base is not None:
        lines += _comment("Q and K are BEFORE the rotary position embedding; the Rotate stage "
                          "turns them (see rope: below) and the scores use the turned vectors.")
    lines += _comment(f"Checked when captured: {agreement.describe()}.")
    lines += _comment("Layers and heads are numbered from 0, as Hugging Face numbers them. The "
                      "output is the attention's output before the residual is added.")
    lines += ["",
              f"title: {quoted_scalar(_title(about))}",
              f"description: {quoted_scalar(_description(captured, about))}",
              f"npz: {quoted_scalar(npz_name)}",
              "",
              "tokens:   # as the model's tokenizer split the text; ␣ marks a space"]
    lines += [f"  - {quoted_scalar(token):<24} # {row}"
              for row, token in enumerate(about.tokens, 1)]
    lines += ["", _keyed(f"heads: {H}", "query heads: Q's first dimension")]
    lines += [_keyed("head_names: [" + ", ".join(f"head {h}" for h in range(H)) + "]",
                     "counted from 0, as Hugging Face counts them")]
    if G < H:
        lines += [_keyed(f"kv_heads: {G}", f"grouped-query attention: query head h reads "
                                            f"key/value head h // {H // G}")]
    lines += [_keyed("causal: true", "the model's mask: each token sees itself and the tokens "
                                     "before it"),
              _scale_line(captured.divisor, d_k)]
    if captured.rope_base is not None:
        lines += ["# rotary position embedding, Hugging Face's rotate_half: dimension j pairs with",
                  "# j + d/2, turned by the angle position · base^(−2j/d)",
                  f"rope: {{base: {yaml_float(captured.rope_base)}}}"]
    lines += [_keyed(f"focus: {T}", "the last token: where it looks decides the next token")]
    return "\n".join(lines) + "\n"


def npz_bytes(captured: CapturedLayer) -> bytes:
    """The ``.npz`` archive: Q, K, V, Wo and (when the model has one) bo, as float64."""
    arrays = {"Q": captured.Q, "K": captured.K, "V": captured.V, "Wo": captured.Wo}
    if captured.bo is not None:
        arrays["bo"] = captured.bo
    buffer = io.BytesIO()
    np.savez(buffer, **{name: np.ascontiguousarray(array, dtype=np.float64)
                        for name, array in arrays.items()})
    return buffer.getvalue()


def write_files(yaml_path: str, yaml_text: str, npz_path: str, npz_data: bytes) -> None:
    """Write the archive, then the YAML that names it (each atomically), so a YAML file never
    names an archive that is not there yet."""
    write_atomic(npz_path, npz_data)
    write_atomic(yaml_path, yaml_text)


def quoted_scalar(text: str) -> str:
    """``text`` as one double-quoted YAML scalar on one line that the safe loader reads back as
    exactly ``text`` (PyYAML's emitter escapes what YAML needs escaped)."""
    scalar = yaml.safe_dump(text, default_style='"', allow_unicode=True, width=math.inf)
    return scalar.rstrip("\n")


def yaml_float(value: float) -> str:
    """A float YAML 1.1 reads as a float: with a decimal point even in exponent form
    (PyYAML reads ``1e-05`` as a string, ``1.0e-05`` as a number)."""
    text = repr(float(value))
    if "e" in text and "." not in text.split("e")[0]:
        mantissa, exponent = text.split("e")
        text = f"{mantissa}.0e{exponent}"
    return text


def _scale_line(divisor: float, d_k: int) -> str:
    root = math.sqrt(d_k)
    if math.isclose(divisor, root, rel_tol=1e-12):
        value, what = "true", f"the model divides the scores by √d_k = √{d_k} = {root:g}"
    elif divisor == 1.0:
        value, what = "false", "the model does not scale the scores"
    else:
        value, what = yaml_float(divisor), f"the model's divisor of the scores (√d_k is {root:g})"
    return _keyed(f"scale: {value}", what)


def _title(about: About) -> str:
    text = " ".join(about.text.split())
    if len(text) > TEXT_IN_TITLE:
        text = text[:TEXT_IN_TITLE - 1] + "…"
    return f"{about.model} · layer {about.layer} · {text}"


def _description(captured: CapturedLayer, about: About) -> str:
    text = about.text
    if len(text) > TEXT_IN_DESCRIPTION:
        text = f"{text[:TEXT_IN_DESCRIPTION]}… ({len(about.text)} characters in all)"
    heads = f"{captured.heads} heads of d_k = {captured.d_k}"
    if captured.kv_heads < captured.heads:
        heads += f" sharing {captured.kv_heads} key/value heads"
    sentences = [f"Layer {about.layer} (of {about.depth}, counted from 0) of {about.model}, "
                 f"a {captured.family} model with {heads}, on the text \"{text}\" "
                 f"({captured.T} tokens).",
                 captured.inputs, *captured.notes,
                 "Every weight and output here is the model's own, checked when captured."]
    return " ".join(sentences)


def _keyed(line: str, comment: str) -> str:
    return f"{line:<22} # {comment}"


def _comment(sentence: str) -> list[str]:
    return [f"# {line}" for line in textwrap.wrap(sentence, width=94)]


def default_name(model_label: str, layer: int) -> str:
    """``gpt2_l3.yaml`` for openai-community/gpt2's layer 3: the model's last name part, with
    anything but letters, digits, ``-``, ``_`` and ``.`` replaced."""
    stem = model_label.replace("\\", "/").rstrip("/").split("/")[-1] or "model"
    stem = "".join(character if character.isascii() and (character.isalnum() or character in "-_.")
                   else "_" for character in stem).lstrip(".") or "model"
    return f"{stem}_l{layer}.yaml"


def npz_path_for(yaml_path: str) -> str:
    """The archive beside a scenario: ``gpt2_l3.yaml`` → ``gpt2_l3.npz``."""
    return os.path.splitext(yaml_path)[0] + ".npz"
