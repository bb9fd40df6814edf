"""attn-tui capture on tiny, randomly initialised GPT-2 and Llama models built here.

Each captured scenario is read back (YAML with PyYAML's safe loader, the .npz with NumPy) and put
through attention by the independent float64 reference (tests/reference.py), from the multi-head
scenario format (rotate-half RoPE, query head h reading key/value head h // (H/G), the scale,
the causal mask, the softmax). Its weights must equal the model's own attention probabilities
(``output_attentions=True``, eager attention) and its output the layer's attention output
before the residual, within 1e-5, for every head.
"""

from __future__ import annotations

import os

# Nothing here may reach the network: set before transformers reads it at import.
os.environ["HF_HUB_OFFLINE"] = "1"

import math  # noqa: E402
import re  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
import pytest  # noqa: E402

from tests.conftest import NEEDS_MODELS  # noqa: E402

pytest.importorskip("torch", reason=NEEDS_MODELS)
pytest.importorskip("transformers", reason=NEEDS_MODELS)

import torch  # noqa: E402
import yaml  # noqa: E402
from transformers import AutoModel  # noqa: E402

from attn_tui.core.loading.scenario_file import load  # noqa: E402
from attn_tui.tui.cli import main  # noqa: E402
from tests.conftest import ROOT  # noqa: E402
from tests.reference import rotate_half, scenario_attention, softmax  # noqa: E402
from tests.tiny_models import save_gpt2, save_llama  # noqa: E402

pytestmark = pytest.mark.models


TOLERANCE = 1e-5


TEXT = "The cat sat on the mat"


# ---- the independent reference -----------------------------------------------------------------


def read_scenario(path: Path) -> tuple[dict, dict[str, np.ndarray]]:
    scenario = yaml.safe_load(path.read_text(encoding="utf-8"))
    with np.load(path.parent / scenario["npz"], allow_pickle=False) as archive:
        arrays = {name: archive[name] for name in archive.files}
    return scenario, arrays


def reference(scenario: dict, arrays: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Every head's weights (H, T, T) and the output (T, d_out), in float64, from the format, by
    the one reference (tests/reference.py)."""
    H, G = arrays["Q"].shape[0], arrays["K"].shape[0]
    assert scenario["heads"] == H and scenario.get("kv_heads", H) == G
    assert scenario["causal"] is True
    return scenario_attention(scenario, arrays)


def model_attention(folder: Path, text: str, layer: int) -> tuple[np.ndarray, np.ndarray, list]:
    """The model's own attention probabilities (H, T, T) at ``layer``, its attention output
    before the residual (T, d_model), and the token pieces, from a run of our own."""
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(folder)
    ids = tokenizer(text)["input_ids"]
    model = AutoModel.from_pretrained(folder, attn_implementation="eager")
    attention = model.h[layer].attn if hasattr(model, "h") else model.layers[layer].self_attn
    outputs = {}
    handle = attention.register_forward_hook(lambda module, args, out: outputs.update(out=out[0]))
    try:
        with torch.no_grad():
            run = model(input_ids=torch.tensor([ids]), output_attentions=True, use_cache=False)
    finally:
        handle.remove()
    return (
        run.attentions[layer][0].double().numpy(),
        outputs["out"][0].double().numpy(),
        tokenizer.convert_ids_to_tokens(ids),
    )


def capture(folder: Path, out: Path, text: str = TEXT, layer: int = 1, *extra: str) -> int:
    return main(
        ["capture", str(folder), "--text", text, "--layer", str(layer), "-o", str(out), *extra]
    )


# ---- the models --------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def gpt2(tmp_path_factory) -> Path:
    return save_gpt2(tmp_path_factory.mktemp("models") / "tiny-gpt2")


@pytest.fixture(scope="module")
def llama(tmp_path_factory) -> Path:
    return save_llama(tmp_path_factory.mktemp("models") / "tiny-llama")


def assert_reproduces_the_model(folder: Path, out: Path, text: str, layer: int) -> dict:
    scenario, arrays = read_scenario(out)
    weights, output = reference(scenario, arrays)
    model_weights, model_output, _ = model_attention(folder, text, layer)
    assert weights.shape == model_weights.shape
    # not a vacuous match: the heads attend unevenly and differently from one another
    assert model_weights[:, -1].max() > 1.3 / model_weights.shape[-1]
    assert np.abs(model_weights[0] - model_weights[1]).max() > 0.02
    assert np.abs(weights - model_weights).max() < TOLERANCE
    assert np.abs(output - model_output).max() < TOLERANCE
    return scenario


# ---- GPT-2 -------------------------------------------------------------------------------------


def test_gpt2_capture_reproduces_every_head_and_the_output(gpt2, tmp_path, capsys):
    out = tmp_path / "gpt2_l1.yaml"
    assert capture(gpt2, out) == 0
    scenario = assert_reproduces_the_model(gpt2, out, TEXT, layer=1)
    # the byte-level pieces are The, Ġcat, Ġsat, Ġon, Ġthe, Ġmat; no BOS for GPT-2
    assert scenario["tokens"] == ["The", "␣cat", "␣sat", "␣on", "␣the", "␣mat"]
    assert scenario["heads"] == 4 and "kv_heads" not in scenario and "rope" not in scenario
    assert scenario["head_names"] == [
        "head 0",
        "head 1",
        "head 2",
        "head 3",
    ]  # as Hugging Face counts
    assert scenario["causal"] is True and scenario["scale"] is True and scenario["focus"] == 6
    assert scenario["npz"] == "gpt2_l1.npz"
    assert scenario["title"] == "tiny-gpt2 · layer 1 · The cat sat on the mat"
    for named in ("Layer 1 (of 3", "tiny-gpt2", "GPT-2", f'"{TEXT}"', "6 tokens"):
        assert named in scenario["description"]
    _, arrays = read_scenario(out)
    assert {name: arrays[name].shape for name in arrays} == {
        "Q": (4, 6, 8),
        "K": (4, 6, 8),
        "V": (4, 6, 8),
        "Wo": (32, 32),
        "bo": (32,),
    }
    assert all(array.dtype == np.float64 for array in arrays.values())
    printed = capsys.readouterr()
    assert printed.err == "" and printed.out.count("\n") == 1
    assert printed.out.startswith(f"Wrote {out} and gpt2_l1.npz:")


def test_a_long_text_is_cut_in_the_title_with_an_ellipsis_and_quoted_whole_in_the_description(
    gpt2, tmp_path
):
    """Issue 47: the title holds the text's first 39 characters and "…"; the description, which
    the app shows beside the matrices, quotes the text whole (up to 300 characters)."""
    text = "The quick brown fox jumps over the lazy dog, and then it runs far into the forest"
    out = tmp_path / "long.yaml"
    assert capture(gpt2, out, text) == 0
    scenario, _ = read_scenario(out)
    assert scenario["title"] == "tiny-gpt2 · layer 1 · " + text[:39] + "…"
    assert f'"{text}"' in scenario["description"]


def test_gpt2_scaled_also_by_layer_writes_the_models_own_divisor(tmp_path):
    folder = save_gpt2(
        tmp_path / "scaled", scale_attn_by_inverse_layer_idx=True, reorder_and_upcast_attn=True
    )
    out = tmp_path / "scaled.yaml"
    assert capture(folder, out, layer=2) == 0
    scenario = assert_reproduces_the_model(folder, out, TEXT, layer=2)
    assert scenario["scale"] == pytest.approx(math.sqrt(8) * 3, rel=1e-12)  # √d_k · (layer + 1)


# ---- Llama -------------------------------------------------------------------------------------


def test_llama_capture_reproduces_every_head_and_the_output(llama, tmp_path):
    out = tmp_path / "llama.yaml"
    assert capture(llama, out) == 0
    scenario = assert_reproduces_the_model(llama, out, TEXT, layer=1)
    assert scenario["tokens"] == ["<s>", "␣The", "␣cat", "␣sat", "␣on", "␣the", "␣mat"]
    assert scenario["heads"] == 4 and scenario["kv_heads"] == 2
    assert scenario["rope"] == {"base": 10000.0}
    assert scenario["scale"] is True and scenario["focus"] == 7
    assert "Grouped-query attention" in scenario["description"]
    _, arrays = read_scenario(out)
    assert {name: arrays[name].shape for name in arrays} == {
        "Q": (4, 7, 16),
        "K": (2, 7, 16),
        "V": (2, 7, 16),
        "Wo": (64, 64),
    }  # o_proj: no bias


def test_llama_q_and_k_are_written_before_rotation(llama, tmp_path):
    """Leaving the rotation out, or sharing key/value heads the other way round, must not
    match: the test above could tell."""
    out = tmp_path / "llama.yaml"
    assert capture(llama, out) == 0
    scenario, arrays = read_scenario(out)
    model_weights, _, _ = model_attention(llama, TEXT, 1)
    unrotated, _ = reference(
        {key: value for key, value in scenario.items() if key != "rope"}, arrays
    )
    assert np.abs(unrotated - model_weights).max() > 0.01
    swapped = dict(arrays, K=arrays["K"][::-1], V=arrays["V"][::-1])
    assert np.abs(reference(scenario, swapped)[0] - model_weights).max() > 0.01


def test_llama_with_scaled_rope_and_biases_writes_rotated_q_and_k(tmp_path):
    folder = save_llama(
        tmp_path / "scaled-rope",
        attention_bias=True,
        rope_parameters={"rope_type": "linear", "factor": 2.0, "rope_theta": 500000.0},
    )
    out = tmp_path / "scaled.yaml"
    assert capture(folder, out) == 0
    scenario = assert_reproduces_the_model(folder, out, TEXT, layer=1)
    assert "rope" not in scenario  # rope: {base} cannot say "positions halved"
    assert "already rotated" in scenario["description"] and "'linear'" in scenario["description"]
    assert read_scenario(out)[1]["bo"].shape == (64,)


def test_a_model_name_is_found_in_the_local_cache(gpt2, tmp_path, monkeypatch, capsys):
    """The Hugging Face cache's layout: models--ORG--NAME/refs/main names a snapshot folder."""
    import huggingface_hub

    cache = tmp_path / "hub"
    commit = "0123456789abcdef0123456789abcdef01234567"
    snapshot = cache / "models--attn-tui-tests--tiny-gpt2" / "snapshots" / commit
    snapshot.mkdir(parents=True)
    for file in gpt2.iterdir():
        (snapshot / file.name).write_bytes(file.read_bytes())
    (cache / "models--attn-tui-tests--tiny-gpt2" / "refs").mkdir()
    (cache / "models--attn-tui-tests--tiny-gpt2" / "refs" / "main").write_text(commit)
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_CACHE", str(cache))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.chdir(tmp_path)
    assert main(["capture", "attn-tui-tests/tiny-gpt2", "--text", TEXT, "--layer", "1"]) == 0
    assert capsys.readouterr().out.startswith("Wrote tiny-gpt2_l1.yaml and tiny-gpt2_l1.npz")
    scenario = assert_reproduces_the_model(gpt2, tmp_path / "tiny-gpt2_l1.yaml", TEXT, layer=1)
    assert scenario["title"].startswith("attn-tui-tests/tiny-gpt2 · layer 1")


@pytest.mark.parametrize("family, name", [("gpt2", "tiny_gpt2_l1"), ("llama", "tiny_llama_l1")])
def test_the_example_captures_in_tests_data_are_these_models_own(family, name, request):
    """tests/data holds one capture of each tiny model, written by
    ``attn-tui capture tiny-gpt2 --text "The cat sat on the mat" --layer 1`` (and tiny-llama),
    for checking a scenario loader against; they must stay the models' own."""
    folder = request.getfixturevalue(family)
    path = ROOT / "tests" / "data" / f"{name}.yaml"
    assert_reproduces_the_model(folder, path, TEXT, layer=1)
    assert read_scenario(path)[0]["title"] == f"{folder.name} · layer 1 · {TEXT}"


# ---- what any text becomes ---------------------------------------------------------------------

HOSTILE = 'He said: "yes" #1 ~ {a: b} ☃ é\tx\x1b[31m\u2028z'


def spelled(tokens: list[str]) -> str:
    """The text the shown tokens spell: ␣ as a space, runs of <0xNN> as the bytes they are, and
    a token of only control characters (which a scenario would read as an empty label) as the
    characters their pictures U+2400 … U+241F stand for."""
    tokens = [
        re.sub("[\u2400-\u241f]", lambda picture: chr(ord(picture.group()) - 0x2400), token)
        if re.fullmatch("[\u2400-\u241f]+", token)
        else token
        for token in tokens
    ]
    text = "".join(tokens).replace("␣", " ")
    return re.sub(
        r"(?:<0x[0-9A-F]{2}>)+",
        lambda run: bytes.fromhex(re.sub(r"<0x|>", "", run.group())).decode("utf-8"),
        text,
    )


@pytest.mark.parametrize("family", ["gpt2", "llama"])
def test_any_text_comes_back_token_by_token(family, request, tmp_path):
    folder = request.getfixturevalue(family)
    out = tmp_path / "hostile.yaml"
    assert capture(folder, out, HOSTILE) == 0
    scenario, _ = read_scenario(out)
    tokens = scenario["tokens"]
    if family == "llama":  # <s>, and the space SentencePiece puts before the first word
        assert tokens[0] == "<s>" and tokens[1].startswith("␣")
        tokens = [tokens[1][1:], *tokens[2:]]
    assert spelled(tokens) == HOSTILE
    assert load(out).tokens == tuple(scenario["tokens"])  # attn-tui reads every token back
    assert HOSTILE in scenario["description"]
    assert scenario["focus"] == len(scenario["tokens"])
    text = out.read_text(encoding="utf-8")
    assert "\x1b" not in text and "\u2028" not in text  # escaped inside the quoted strings
    assert not any(
        line.lstrip().startswith("#") and "He said" in line for line in text.splitlines()
    )


def test_special_tokens_in_the_text_stay_literal(gpt2, tmp_path):
    out = tmp_path / "special.yaml"
    assert capture(gpt2, out, "<|endoftext|>The cat") == 0
    assert read_scenario(out)[0]["tokens"] == ["<|endoftext|>", "The", "␣cat"]


# ---- large inputs ------------------------------------------------------------------------------


def test_a_2048_token_text_is_captured_and_reproduced(tmp_path):
    folder = save_llama(
        tmp_path / "long-llama", layers=1, hidden=32, heads=2, kv_heads=1, positions=2048
    )
    text = "the cat sat on the mat. " * 400
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(folder)
    while len(tokenizer(text)["input_ids"]) > 2048:  # trim to exactly the context
        text = text[: -(len(tokenizer(text)["input_ids"]) - 2048)]
    out = tmp_path / "long.yaml"
    assert capture(folder, out, text, 0) == 0
    scenario, arrays = read_scenario(out)
    assert len(scenario["tokens"]) == 2048 and arrays["Q"].shape == (2, 2048, 16)
    model_weights, model_output, _ = model_attention(folder, text, 0)
    Q, K = arrays["Q"], arrays["K"]
    for h in range(2):  # the fast float64 path of the reference, vectorised over positions
        q, k = (rope_vectorised(x, 10000.0) for x in (Q[h], K[0]))
        scores = np.where(np.tri(2048, dtype=bool), q @ k.T / 4.0, -np.inf)
        weights = softmax(scores)
        assert np.abs(weights - model_weights[h]).max() < TOLERANCE


def rope_vectorised(x: np.ndarray, base: float) -> np.ndarray:
    T, d = x.shape
    angles = np.arange(T)[:, None] * base ** (-2 * np.arange(d // 2) / d)
    a, b = x[:, : d // 2], x[:, d // 2 :]
    return np.concatenate(
        [a * np.cos(angles) - b * np.sin(angles), a * np.sin(angles) + b * np.cos(angles)], axis=1
    )


def test_the_vectorised_rope_is_the_pairwise_one():
    x = np.random.RandomState(0).randn(5, 6)
    assert np.allclose(rope_vectorised(x, 100.0), rotate_half(x, 100.0), atol=1e-14)


@pytest.mark.parametrize("family, name", [("gpt2", "tiny_gpt2_l1"), ("llama", "tiny_llama_l1")])
def test_attn_tui_reads_a_capture_as_the_model_computed_it(family, name, request):
    """The loader and core, not this file's reference: every head's weights and the output,
    through heads, grouped keys and values, RoPE and Wo (+ bo), against the model itself."""
    from attn_tui.core import load
    from attn_tui.core.engine.attention import Attention

    folder = request.getfixturevalue(family)
    scenario = load(ROOT / "tests" / "data" / f"{name}.yaml")
    attention = Attention(scenario)
    rows = range(scenario.T)
    weights = np.stack(
        [attention.head(h).values("softmax", rows, rows) for h in range(scenario.heads)]
    )
    model_weights, model_output, _ = model_attention(folder, TEXT, layer=1)
    assert np.abs(weights - model_weights).max() < TOLERANCE
    assert (
        np.abs(attention.values("project", None, rows, range(scenario.d_out)) - model_output).max()
        < TOLERANCE
    )
