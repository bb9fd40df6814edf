"""attn-tui capture --generate N: greedy decoding on tiny random models built here.

The scenario's tokens after the prompt must be the ones ``model.generate(do_sample=False)``
chooses; ``generated: p`` the probability the model gives each, from the logits of one full
pass over the prompt and the generated tokens (softmax written here); and every row of weights
the scenario gives (computed by the float64 reference, tests/reference.py, from the file alone)
the model's own: the whole text's in one pass (``output_attentions``), and each generated
token's row as ``model.generate`` computed it with its KV cache (its own ``attentions``), within
1e-5.
"""

from __future__ import annotations

import os
import re

os.environ["HF_HUB_OFFLINE"] = "1"  # nothing here may reach the network

from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
import pytest  # noqa: E402

from tests.conftest import NEEDS_MODELS  # noqa: E402

pytest.importorskip("torch", reason=NEEDS_MODELS)
pytest.importorskip("transformers", reason=NEEDS_MODELS)

import torch  # noqa: E402
from transformers import AutoModelForCausalLM, AutoTokenizer  # noqa: E402

from attn_tui.tui.cli import main  # noqa: E402
from tests.capture.family_attention import TOLERANCE, read_scenario, reference  # noqa: E402
from tests.reference import softmax  # noqa: E402
from tests.tiny_models import save_family, save_gpt2, save_llama  # noqa: E402

pytestmark = pytest.mark.models

PROMPT = "The cat sat on the"
STEPS = 6


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    root = tmp_path_factory.mktemp("generate")
    return {
        "llama": save_llama(root / "llama"),
        "gpt2": save_gpt2(root / "gpt2", positions=32),
        # a sliding window of 3, shorter than the text: the cache's rows hold fewer keys
        "mistral": save_family("mistral", root / "mistral", causal_lm=True, sliding_window=3),
        # QK-norm and a sliding first layer; multi-head latent attention, its cache the latents
        "gemma3_text": save_family("gemma3_text", root / "gemma3", causal_lm=True),
        "deepseek_v3": save_family(
            "deepseek_v3", root / "deepseek", causal_lm=True, seed=1
        ),  # (seed 0 ends its text after 3 tokens)
        # learned sinks on a sliding layer; chunks and a NoPE layer's temperature, whose
        # positions a cache must count on
        "gpt_oss": save_family("gpt_oss", root / "gpt_oss", causal_lm=True),
        "llama4_text": save_family("llama4_text", root / "llama4", causal_lm=True),
        "mistral-base": save_family("mistral", root / "mistral-base"),
        "bert": save_family("bert", root / "bert"),
    }


def same_token(written: str, tokenizer, token: int) -> bool:
    """Whether the scenario's token is this token id as the tokenizer's own decoder spells it
    (a space shown as ␣); a byte that is only part of a character is shown as <0xNN>."""
    piece = tokenizer.convert_ids_to_tokens(token)
    if piece in tokenizer.all_special_tokens:
        return written == piece
    # after another piece, so that a decoder that strips the text's first space keeps this one
    text = tokenizer.convert_tokens_to_string(["a", piece]).removeprefix("a")
    if "\ufffd" in text:
        return re.fullmatch(r"(␣?<0x[0-9A-F]{2}>)+", written) is not None
    if not text.strip():  # only control characters: shown as their pictures (U+2400 on)
        return written == "".join(chr(0x2400 + ord(c)) if ord(c) < 0x20 else c for c in text)
    return written == text.replace(" ", "␣")


def the_models_own(folder: Path, layer: int):
    """What model.generate chooses after PROMPT, the attention rows it computed with its KV
    cache at ``layer``, and one full pass over the prompt and the chosen tokens."""
    tokenizer = AutoTokenizer.from_pretrained(folder)
    model = AutoModelForCausalLM.from_pretrained(folder, attn_implementation="eager")
    prompt = tokenizer(PROMPT)["input_ids"]
    with torch.no_grad():
        generated = model.generate(
            torch.tensor([prompt]),
            attention_mask=torch.ones((1, len(prompt)), dtype=torch.long),
            do_sample=False,
            max_new_tokens=STEPS,
            output_attentions=True,
            return_dict_in_generate=True,
        )
        sequence = generated.sequences[0].tolist()
        full = model(torch.tensor([sequence]), output_attentions=True, use_cache=False)
    cache_rows = [step[layer][0, :, -1].double().numpy() for step in generated.attentions]
    return (
        tokenizer,
        prompt,
        sequence,
        cache_rows,
        full.attentions[layer][0].double().numpy(),
        full.logits[0].double().numpy(),
    )


def capture(folder: Path, out: Path, *extra: str) -> int:
    return main(
        ["capture", str(folder), "--text", PROMPT, "--generate", str(STEPS), "-o", str(out)]
        + list(extra)
    )


@pytest.mark.parametrize(
    "family, layer",
    [
        ("llama", 1),
        ("gpt2", 1),
        ("mistral", 1),
        ("gemma3_text", 0),  # its sliding layer
        ("deepseek_v3", 1),
        ("gpt_oss", 0),  # sliding, with sinks
        ("llama4_text", 0),  # chunked
        ("llama4_text", 1),  # NoPE, with a temperature
    ],
)
def test_the_generated_tokens_probabilities_and_rows_are_the_models_own(
    family, layer, folders, tmp_path
):
    folder = folders[family]
    out = tmp_path / "generated.yaml"
    assert capture(folder, out, "--layer", str(layer)) == 0
    scenario, arrays = read_scenario(out)
    tokenizer, prompt, sequence, cache_rows, full_weights, logits = the_models_own(folder, layer)
    assert len(sequence) == len(prompt) + STEPS  # (the model did not end the text early)
    # the tokens: the prompt, then what model.generate chose
    assert len(scenario["tokens"]) == len(sequence)
    for written, token in zip(scenario["tokens"], sequence):
        assert same_token(written, tokenizer, token), (written, token)
    assert scenario["generated"]["prompt"] == len(prompt)
    # p: the model's probability of each chosen token, at the row before it; greedy: the largest
    chances = scenario["generated"]["p"]
    assert len(chances) == STEPS
    for step, chance in enumerate(chances):
        row, token = len(prompt) + step - 1, sequence[len(prompt) + step]
        probabilities = softmax(logits[row])
        assert abs(chance - probabilities[token]) < TOLERANCE
        assert token == int(np.argmax(probabilities))
    assert max(chances) - min(chances) > 1e-3  # not one number written six times
    # the rows: the whole text's, and each step's as the KV cache saw it
    weights, _ = reference(scenario, arrays)
    assert np.abs(weights - full_weights).max() < TOLERANCE
    assert len(cache_rows) == STEPS
    for step, seen in enumerate(cache_rows[1:], 1):  # (step 0 is the prompt's pass: all rows)
        row = len(prompt) + step - 1
        keys = seen.shape[-1]
        assert np.abs(weights[:, row, row + 1 - keys : row + 1] - seen).max() < TOLERANCE
        assert np.all(weights[:, row, : row + 1 - keys] == 0)  # (a window: the rest unseen)
        assert np.abs(weights[:, row, row + 1 :]).max() == 0  # nothing after the token
    first_rows = cache_rows[0]
    assert np.abs(weights[:, len(prompt) - 1, : len(prompt)] - first_rows).max() < TOLERANCE
    if family in ("mistral", "gemma3_text", "gpt_oss"):
        assert scenario["window"] == 3


def test_every_layer_of_a_generation_and_its_index(folders, tmp_path):
    folder = folders["llama"]
    out = tmp_path / "all.yaml"
    assert capture(folder, out, "--layer", "all") == 0
    _, prompt, sequence, _, _, _ = the_models_own(folder, 0)
    for layer in (0, 1):
        scenario, _ = read_scenario(tmp_path / f"all_l{layer}.yaml")
        assert scenario["generated"]["prompt"] == len(prompt)
        assert len(scenario["tokens"]) == len(sequence)


def test_attn_tui_reads_the_generation_it_wrote(folders, tmp_path):
    from attn_tui.core.loading.scenario_file import load

    out = tmp_path / "generated.yaml"
    assert capture(folders["gpt2"], out, "--layer", "0") == 0
    scenario = load(out)
    yaml_scenario, _ = read_scenario(out)
    assert scenario.generated.prompt == yaml_scenario["generated"]["prompt"]
    assert scenario.generated.p == tuple(yaml_scenario["generated"]["p"])
    assert "chose itself" in scenario.description


def one_line_error(capsys, *argv: str) -> str:
    assert main(["capture", *argv]) == 2
    printed = capsys.readouterr()
    assert printed.out == "" and printed.err.count("\n") == 1, printed
    return printed.err.removeprefix("attn-tui capture: ").strip()


def test_what_cannot_generate_is_one_line(folders, tmp_path, capsys):
    out = str(tmp_path / "o.yaml")
    base, bert = folders["mistral-base"], folders["bert"]
    assert one_line_error(
        capsys, str(base), "--text", PROMPT, "--generate", "3", "--layer", "0", "-o", out
    ) == (
        f'--generate: "{base}" has no weights for lm_head.weight (a base model without its '
        "language-model head?), so its choices would be drawn at random"
    )
    assert one_line_error(
        capsys, str(bert), "--text", PROMPT, "--generate", "3", "--layer", "0", "-o", out
    ).startswith(f'--generate: "{bert}" is an encoder; only a decoder')
    assert (
        one_line_error(
            capsys, str(base), "--text", PROMPT, "--generate", "0", "--layer", "0", "-o", out
        )
        == "--generate 0: give from 1 to 1024 tokens"
    )
    assert one_line_error(
        capsys,
        str(folders["gpt2"]),
        "--text",
        PROMPT,
        "--generate",
        "40",
        "--layer",
        "0",
        "-o",
        out,
    ).endswith(
        f'tokens long with the 40 to generate, longer than "{folders["gpt2"]}"\'s '
        "context of 32 tokens"
    )
    assert list(tmp_path.iterdir()) == []


def test_a_model_that_ends_its_text_early_gives_the_tokens_it_chose(tmp_path):
    """This tiny DeepSeek-V3 (seed 0) chooses its end-of-text token third: the scenario holds
    the three tokens, as model.generate returns them, the last one </s>."""
    folder = save_family("deepseek_v3", tmp_path / "deepseek", causal_lm=True, seed=0)
    out = tmp_path / "early.yaml"
    assert capture(folder, out, "--layer", "0") == 0
    scenario, _ = read_scenario(out)
    _, prompt, sequence, _, _, _ = the_models_own(folder, 0)
    assert len(sequence) == len(prompt) + 3
    assert len(scenario["tokens"]) == len(sequence) and scenario["tokens"][-1] == "</s>"
    assert len(scenario["generated"]["p"]) == 3
