"""attn-tui capture on a tiny random model of every family it knows beyond GPT-2 and Llama.

Each captured scenario is read back (YAML with PyYAML's safe loader, the .npz with NumPy) and put
through attention by the float64 reference (tests/reference.py), from the scenario format alone:
scale, the Bias stage (an npz ``bias`` or ALiBi), softcap, the mask (causal, window, padding),
partial rotary, cross-attention (T_q ≠ T_k). Its weights must equal the model's own attention
probabilities (``output_attentions=True``, eager attention: ``attentions``,
``encoder_attentions``, ``decoder_attentions``, ``cross_attentions``) and its output the
attention output before the residual, taken by a hook of this file's own, within 1e-5, for
every head.
"""

from __future__ import annotations

import os

os.environ["HF_HUB_OFFLINE"] = "1"  # nothing here may reach the network

import math  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
import pytest  # noqa: E402

from tests.conftest import NEEDS_MODELS  # noqa: E402

pytest.importorskip("torch", reason=NEEDS_MODELS)
pytest.importorskip("transformers", reason=NEEDS_MODELS)

import torch  # noqa: E402
import yaml  # noqa: E402
from transformers import AutoModel, AutoTokenizer  # noqa: E402

from attn_tui.tui.cli import main  # noqa: E402
from tests.reference import scenario_attention  # noqa: E402
from tests.tiny_models import save_family  # noqa: E402

pytestmark = pytest.mark.models

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


def assert_reproduces(scenario_path: Path, model_weights, model_output) -> dict:
    scenario, arrays = read_scenario(scenario_path)
    weights, output = reference(scenario, arrays)
    assert weights.shape == model_weights.shape
    T_k = model_weights.shape[-1]
    # not a vacuous match: the heads attend unevenly and differently from one another
    assert model_weights[:, -1].max() > 1.3 / T_k
    assert np.abs(model_weights[0] - model_weights[1]).max() > 0.02
    assert np.abs(weights - model_weights).max() < TOLERANCE
    assert np.abs(output - model_output).max() < TOLERANCE
    return scenario


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    folder = tmp_path_factory.mktemp("families")
    made = {}

    def model(family: str, **config) -> Path:
        key = (family, tuple(sorted(config.items())))
        if key not in made:
            made[key] = save_family(family, folder / f"tiny-{family}-{len(made)}", **config)
        return made[key]

    return model


# ---- every family, its default part ------------------------------------------------------------


@pytest.mark.parametrize("family", FAMILIES)
def test_each_family_reproduces_every_head_and_the_output(family, models, tmp_path):
    folder = models(family)
    out = tmp_path / "layer.yaml"
    assert capture(folder, out) == 0
    scenario = assert_reproduces(out, *model_attention(folder, family, 1))
    decoder_only = family not in ("bert", "roberta", "distilbert", *ENCODER_DECODERS)
    assert scenario["causal"] is decoder_only
    if family == "t5":
        assert scenario["scale"] is False and "does not scale" in scenario["description"]
        assert read_scenario(out)[1]["bias"].shape == (
            4,
            len(scenario["tokens"]),
            len(scenario["tokens"]),
        )
    if family == "bloom":
        assert scenario["alibi"] is True and "rope" not in scenario
    if family in ("bert", "roberta", "distilbert"):
        assert scenario["tokens"][0] == "[CLS]" and scenario["tokens"][-1] == "[SEP]"
        assert scenario["focus"] == 1


@pytest.mark.parametrize("family", ENCODER_DECODERS)
@pytest.mark.parametrize("part", ["decoder", "cross"])
def test_encoder_decoders_decoder_and_cross_attention(family, part, models, tmp_path):
    folder = models(family)
    out = tmp_path / f"{part}.yaml"
    assert capture(folder, out, 1, "--part", part, "--target-text", TARGET) == 0
    scenario = assert_reproduces(out, *model_attention(folder, family, 1, part))
    tokenizer = AutoTokenizer.from_pretrained(folder)
    source, target = tokenizer(TEXT)["input_ids"], tokenizer(text_target=TARGET)["input_ids"]
    if part == "cross":  # queries: the decoder's start token and the target; keys: the source
        assert len(scenario["query_tokens"]) == len(target) + 1 and len(scenario["tokens"]) == len(
            source
        )
        assert scenario["causal"] is False and "bias" not in read_scenario(out)[1]
    else:
        assert "query_tokens" not in scenario and len(scenario["tokens"]) == len(target) + 1
        assert scenario["causal"] is True
    if family == "t5" and part == "decoder":
        assert "bias" in read_scenario(out)[1]  # the decoder's own relative position bias


# ---- what the config turns on ------------------------------------------------------------------


@pytest.mark.parametrize(
    "family, config, layer, expected",
    [
        ("mistral", {"sliding_window": 3}, 1, {"window": 3}),
        (
            "qwen2",
            {"use_sliding_window": True, "sliding_window": 3, "max_window_layers": 1},
            1,
            {"window": 3},
        ),
        ("qwen2", {"use_sliding_window": True, "sliding_window": 3, "max_window_layers": 1}, 0, {}),
        (
            "gemma2",
            {"sliding_window": 3, "attn_logit_softcapping": 2.0},
            0,
            {"window": 3, "softcap": 2.0},
        ),
        ("gemma2", {"sliding_window": 3, "attn_logit_softcapping": 2.0}, 1, {"softcap": 2.0}),
        (
            "phi3",
            {"partial_rotary_factor": 0.5},
            1,
            {"rope": {"base": 10000.0, "pairs": "half", "dims": 4}},
        ),
        ("gpt_neox", {}, 1, {"rope": {"base": 10000.0, "pairs": "half", "dims": 2}}),
        ("bloom", {"heads": 6, "hidden": 48}, 1, {"alibi": True}),
    ],
    ids=[
        "mistral-window",
        "qwen2-window-layer",
        "qwen2-full-layer",
        "gemma2-sliding",
        "gemma2-global",
        "phi3-partial-rotary",
        "gpt-neox-rotary-pct",
        "bloom-6-heads",
    ],
)
def test_windows_softcaps_partial_rotary_and_alibi_are_written_and_reproduced(
    family, config, layer, expected, models, tmp_path
):
    folder = models(family, **config)
    out = tmp_path / "layer.yaml"
    assert capture(folder, out, layer) == 0
    scenario = assert_reproduces(out, *model_attention(folder, family, layer))
    for key, value in expected.items():
        assert scenario[key] == value
    for key in {"window", "softcap", "alibi"} - set(expected):
        assert key not in scenario
    if family == "gemma2":  # query_pre_attn_scalar = 20: the scores are divided by √20, not √12
        assert scenario["scale"] == pytest.approx(math.sqrt(20), rel=1e-12)
    if "window" in expected:
        assert len(scenario["tokens"]) > 2 * expected["window"]  # the window hides something


def test_a_window_written_one_off_would_not_reproduce_and_is_not_written(
    models, tmp_path, capsys, monkeypatch
):
    """HF's sliding window is the scenario's window: the same window one wider is caught, by
    the weights and by the mask compared cell by cell, and nothing is written."""
    from attn_tui.capture import llama

    folder = models("mistral", sliding_window=3)
    real = llama.decoder_layer
    monkeypatch.setattr(
        llama,
        "decoder_layer",
        lambda *args, window=None, **kw: real(*args, window=window + 1, **kw),
    )
    assert capture(folder, tmp_path / "wrong.yaml") == 3
    message = capsys.readouterr().err
    assert "do not reproduce" in message and "its mask differs from the model's in" in message
    assert list(tmp_path.iterdir()) == []


# ---- encoders: pairs and padding ---------------------------------------------------------------


@pytest.mark.parametrize("family", ["bert", "distilbert"])
def test_an_encoder_reads_a_pair_with_segment_ids_and_padding(family, models, tmp_path):
    folder = models(family)
    out = tmp_path / "pair.yaml"
    first, second = "The cat sat", "the dog sat on the log"
    assert (
        main(
            [
                "capture",
                str(folder),
                "--text",
                first,
                "--text",
                second,
                "--pad-to",
                "16",
                "--layer",
                "0",
                "-o",
                str(out),
            ]
        )
        == 0
    )
    scenario = assert_reproduces(
        out, *model_attention(folder, family, 0, texts=(first, second), pad_to=16)
    )
    tokens = scenario["tokens"]
    assert tokens[:5] == ["[CLS]", "the", "cat", "sat", "[SEP]"] and tokens.count("[SEP]") == 2
    real = tokens.index("[PAD]")
    assert len(tokens) == 16 and tokens[real:] == ["[PAD]"] * (16 - real)
    assert scenario["padding"] == [0] * real + [1] * (16 - real)
    assert scenario["causal"] is False


def test_segment_ids_matter_to_bert(models, tmp_path):
    """The pair's second sentence reads segment embedding 1: without it the weights differ, so
    the test above could tell."""
    folder = models("bert")
    out = tmp_path / "pair.yaml"
    assert (
        main(
            [
                "capture",
                str(folder),
                "--text",
                "The cat sat",
                "--text",
                "the dog",
                "--layer",
                "1",
                "-o",
                str(out),
            ]
        )
        == 0
    )
    scenario, arrays = read_scenario(out)
    tokenizer = AutoTokenizer.from_pretrained(folder)
    model = AutoModel.from_pretrained(folder, attn_implementation="eager")
    encoded = tokenizer("The cat sat", "the dog", return_tensors="pt", return_token_type_ids=True)
    assert (
        encoded["token_type_ids"][0].tolist() == [0] * 5 + [1] * 3
    )  # [CLS] the cat sat [SEP] | the dog [SEP]
    with torch.no_grad():
        without = (
            model(input_ids=encoded["input_ids"], output_attentions=True)
            .attentions[1][0]
            .double()
            .numpy()
        )
    assert np.abs(reference(scenario, arrays)[0] - without).max() > 1e-3


# ---- errors: one line, exit 2 ------------------------------------------------------------------


def error_of(capsys, *argv: str) -> str:
    assert main(["capture", *argv]) == 2
    printed = capsys.readouterr()
    assert printed.out == "" and printed.err.count("\n") == 1, printed
    return printed.err.removeprefix("attn-tui capture: ").strip()


def test_parts_and_texts_that_do_not_fit_the_family(models, tmp_path, capsys):
    out = str(tmp_path / "o.yaml")
    mistral, t5, bert = models("mistral"), models("t5"), models("bert")
    assert error_of(
        capsys, str(mistral), "--text", TEXT, "--layer", "0", "--part", "cross", "-o", out
    ) == (f'--part cross: "{mistral}" is a decoder, whose only part is decoder')
    assert error_of(
        capsys, str(t5), "--text", TEXT, "--layer", "0", "--part", "cross", "-o", out
    ) == ("--part cross reads the decoder: give --target-text (the sentence the decoder writes)")
    assert error_of(
        capsys, str(mistral), "--text", "a", "--text", "b", "--layer", "0", "-o", out
    ).startswith("--text twice makes a pair of sentences, which only encoders")
    assert error_of(
        capsys, str(bert), "--text", TEXT, "--pad-to", "3", "--layer", "0", "-o", out
    ).startswith("--pad-to 3: the text is already")
    assert (
        error_of(
            capsys,
            str(t5),
            "--text",
            TEXT,
            "--layer",
            "0",
            "--target-text",
            "",
            "--part",
            "decoder",
            "-o",
            out,
        )
        == "--target-text is empty: give the text to run the model on"
    )
    assert error_of(
        capsys,
        str(t5),
        "--text",
        TEXT,
        "--layer",
        "2",
        "--part",
        "decoder",
        "--target-text",
        TARGET,
        "-o",
        out,
    ) == (f'--layer 2 is out of range: "{t5}" has 2 layers, numbered 0 to 1')
    assert list(tmp_path.iterdir()) == []


# ---- read back by attn-tui itself --------------------------------------------------------------


def core_attention(path: Path):
    """The scenario as attn-tui's own loader and core compute it: every head's weights and the
    projected output."""
    from attn_tui.core import load
    from attn_tui.core.engine.attention import Attention

    scenario = load(path)
    attention = Attention(scenario)
    rows, keys = range(scenario.T), range(scenario.T_k)
    weights = np.stack(
        [attention.head(h).values("softmax", rows, keys) for h in range(scenario.heads)]
    )
    return weights, attention.values("project", None, rows, range(scenario.d_out))


@pytest.mark.parametrize(
    "family, config, layer, part",
    [
        *((family, {}, 1, None) for family in FAMILIES),
        *((family, {}, 1, part) for family in ENCODER_DECODERS for part in ("decoder", "cross")),
        ("mistral", {"sliding_window": 3}, 1, None),
        ("gemma2", {"sliding_window": 3, "attn_logit_softcapping": 2.0}, 0, None),
        ("phi3", {"partial_rotary_factor": 0.5}, 1, None),
        ("bloom", {"heads": 6, "hidden": 48}, 1, None),
    ],
    ids=lambda value: value if isinstance(value, str) else None,
)
def test_attn_tui_reads_each_capture_as_the_model_computed_it(
    family, config, layer, part, models, tmp_path
):
    """The loader and core, not this file's reference: Bias (T5's, ALiBi), windows, padding,
    cross-attention, softcap and partial rotary, against the model itself."""
    folder = models(family, **config)
    out = tmp_path / "layer.yaml"
    extra = ("--part", part, "--target-text", TARGET) if part else ()
    assert capture(folder, out, layer, *extra) == 0
    weights, output = core_attention(out)
    model_weights, model_output = model_attention(folder, family, layer, part or "encoder")
    assert np.abs(weights - model_weights).max() < TOLERANCE
    assert np.abs(output - model_output).max() < TOLERANCE


def test_attn_tui_reads_a_padded_pair_as_bert_computed_it(models, tmp_path):
    folder = models("bert")
    out = tmp_path / "pair.yaml"
    assert (
        main(
            [
                "capture",
                str(folder),
                "--text",
                "The cat sat",
                "--text",
                "the dog",
                "--pad-to",
                "12",
                "--layer",
                "1",
                "-o",
                str(out),
            ]
        )
        == 0
    )
    weights, output = core_attention(out)
    model_weights, model_output = model_attention(
        folder, "bert", 1, texts=("The cat sat", "the dog"), pad_to=12
    )
    assert np.abs(weights - model_weights).max() < TOLERANCE
    assert np.abs(output - model_output).max() < TOLERANCE
