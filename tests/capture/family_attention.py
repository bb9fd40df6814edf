"""A family's attention two ways, for the tests that compare them: as the model computes it (its
own probabilities, ``output_attentions=True`` with eager attention, and its attention output
before the residual, taken by a hook), and as the float64 reference (tests/reference.py)
computes it from the scenario attn-tui capture wrote (read back with PyYAML's safe loader and
NumPy); and the capture command itself. Importing this module imports torch and transformers:
a test module imports it after its importorskip, with HF_HUB_OFFLINE set.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch
import yaml
from transformers import AutoModel, AutoTokenizer

from attn_tui.tui.cli import main
from tests.reference import scenario_attention

TOLERANCE = 1e-5
TEXT = "The cat sat on the mat, the dog sat on the log"
TARGET = "the dog sat on the mat"
ENCODER_DECODERS = ("t5", "bart", "marian")
FAMILIES = (
    "mistral",
    "qwen2",
    "gemma",
    "gemma2",
    "phi3",
    "qwen3",
    "gemma3_text",
    "olmo2",
    "smollm3",
    "deepseek_v3",
    "gpt_oss",
    "llama4_text",
    "gpt_neox",
    "bloom",
    "bert",
    "roberta",
    "distilbert",
    *ENCODER_DECODERS,
)

# ---- the independent reference -----------------------------------------------------------------


def read_scenario(path: Path) -> tuple[dict, dict[str, np.ndarray]]:
    scenario = yaml.safe_load(path.read_text(encoding="utf-8"))
    with np.load(path.parent / scenario["npz"], allow_pickle=False) as archive:
        return scenario, {name: archive[name] for name in archive.files}


def reference(scenario: dict, arrays: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Every head's weights and the output, by the one reference (tests/reference.py)."""
    H, T_q, _ = arrays["Q"].shape
    G, T_k, _ = arrays["K"].shape
    assert scenario["heads"] == H and scenario.get("kv_heads", H) == G
    assert (
        len(scenario["tokens"]) == T_k
        and len(scenario.get("query_tokens", scenario["tokens"])) == T_q
    )
    return scenario_attention(scenario, arrays)


# ---- the model's own numbers -------------------------------------------------------------------


def output_module(model, family: str, part: str, layer: int):
    """Where this family's attention output before the residual comes out (and whether the
    module returns a tuple)."""
    if family == "bloom":
        return model.h[layer].self_attention.dense, False
    if family in ("bert", "roberta"):
        return model.encoder.layer[layer].attention.output.dense, False
    if family == "distilbert":
        return model.transformer.layer[layer].attention, True
    if family == "gpt_neox":
        return model.layers[layer].attention, True
    if family == "t5":
        block = (model.encoder if part == "encoder" else model.decoder).block[layer]
        return (
            block.layer[1].EncDecAttention if part == "cross" else block.layer[0].SelfAttention
        ), True
    if family in ("bart", "marian"):
        block = (model.encoder if part == "encoder" else model.decoder).layers[layer]
        return (block.encoder_attn if part == "cross" else block.self_attn), True
    return model.layers[layer].self_attn, True


def model_attention(
    folder: Path,
    family: str,
    layer: int,
    part: str = "encoder",
    texts=(TEXT,),
    target: str | None = None,
    pad_to: int | None = None,
):
    """The model's own probabilities (H, T_q, T_k) at ``layer`` and its attention output."""
    tokenizer = AutoTokenizer.from_pretrained(folder)
    options = {} if pad_to is None else {"padding": "max_length", "max_length": pad_to}
    encoded = tokenizer(
        *texts, return_tensors="pt", return_token_type_ids=len(texts) > 1, **options
    )
    model = AutoModel.from_pretrained(folder, attn_implementation="eager")
    inputs = {"input_ids": encoded["input_ids"]}
    if family in ("bert", "roberta", "distilbert", *ENCODER_DECODERS):
        inputs["attention_mask"] = encoded["attention_mask"]
    if family in ("bert", "roberta") and len(texts) > 1:
        inputs["token_type_ids"] = encoded["token_type_ids"]
    if family in ENCODER_DECODERS:
        decoder = [
            model.config.decoder_start_token_id,
            *tokenizer(text_target=target or TARGET)["input_ids"],
        ]
        inputs["decoder_input_ids"] = torch.tensor([decoder])
    module, returns_tuple = output_module(model, family, part, layer)
    outputs = {}
    handle = module.register_forward_hook(
        lambda m, args, out: outputs.update(out=out[0] if returns_tuple else out)
    )
    try:
        with torch.no_grad():
            run = model(
                **inputs,
                output_attentions=True,
                **({} if family in ("bert", "roberta", "distilbert") else {"use_cache": False}),
            )
    finally:
        handle.remove()
    if family in ENCODER_DECODERS:
        attentions = {
            "encoder": run.encoder_attentions,
            "decoder": run.decoder_attentions,
            "cross": run.cross_attentions,
        }[part]
    else:
        attentions = run.attentions
    return attentions[layer][0].double().numpy(), outputs["out"][0].double().numpy()


def capture(folder: Path, out: Path, layer: int = 1, *extra: str, text: str = TEXT) -> int:
    return main(
        ["capture", str(folder), "--text", text, "--layer", str(layer), "-o", str(out), *extra]
    )
