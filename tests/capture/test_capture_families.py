"""attn-tui capture on a tiny random model of every family it knows beyond GPT-2 and Llama.

Each captured scenario is read back (YAML with PyYAML's safe loader, the .npz with NumPy) and put
through attention by the float64 reference (tests/reference.py), from the scenario format alone:
scale, the Bias stage (an npz ``bias`` or ALiBi), softcap, the mask (causal, window, chunk,
padding), partial and interleaved rotary, QK-norm, learned sinks, cross-attention (T_q ≠ T_k).
Its weights must equal the model's own attention probabilities (``output_attentions=True``,
eager attention: ``attentions``, ``encoder_attentions``, ``decoder_attentions``,
``cross_attentions``) and its output the attention output before the residual, taken by a
hook (tests/capture/family_attention.py), within 1e-5, for every head. attn-tui's own loader
and core reading the same captures:
tests/capture/test_attn_tui_reads_each_familys_capture_as_the_model_computed_it.py.
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
from tests.capture.family_attention import (  # noqa: E402
    ENCODER_DECODERS,
    FAMILIES,
    TARGET,
    TEXT,
    TOLERANCE,
    capture,
    model_attention,
    read_scenario,
    reference,
)

pytestmark = pytest.mark.models


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
        # MLA with rotate-half pairs and a full-rank query (the tiny model's defaults are the
        # interleaved pairs and the low-rank path)
        ("deepseek_v3", {"rope_interleave": False, "q_lora_rank": None}, 1, {}),
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
        "deepseek-v3-rotate-half-full-rank-query",
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


@pytest.mark.parametrize("layer", [0, 1])
def test_gpt_oss_sinks_are_each_heads_own_and_take_their_share(layer, models, tmp_path):
    """gpt-oss's sinks: the scenario's are the module's own parameter, read here from the model;
    the model's rows sum to less than 1 (the sinks take a real share); layer 0 slides (3), layer
    1 is full; the reference puts the sink column back as transformers does."""
    folder = models("gpt_oss")
    out = tmp_path / "layer.yaml"
    assert capture(folder, out, layer) == 0
    model_weights, model_output = model_attention(folder, "gpt_oss", layer)
    scenario = assert_reproduces(out, model_weights, model_output)
    model = AutoModel.from_pretrained(folder, attn_implementation="eager")
    sinks = model.layers[layer].self_attn.sinks.detach().double().numpy()
    assert np.allclose(scenario["sinks"], sinks, rtol=0, atol=1e-12)
    row_sums = model_weights.sum(axis=-1)
    assert row_sums.max() < 1 - 1e-3 and row_sums.min() > 0
    assert scenario.get("window") == (3 if layer == 0 else None)
    index = tmp_path / "all.yaml"
    argv = ["capture", str(folder), "--text", TEXT, "--layer", "all", "-o", str(index)]
    assert main(argv) == 0
    kinds = yaml.safe_load(index.read_text(encoding="utf-8"))["layers"]
    assert [entry["kind"]["attention"] for entry in kinds] == ["sliding", "full"]


def test_a_gpt_oss_capture_without_its_sinks_would_not_reproduce(
    models, tmp_path, capsys, monkeypatch
):
    from attn_tui.capture import gpt_oss

    real = gpt_oss.layer

    def without_sinks(*args, **kwargs):
        captured = real(*args, **kwargs)
        captured.sinks = None
        return captured

    monkeypatch.setattr(gpt_oss, "layer", without_sinks)
    assert capture(models("gpt_oss"), tmp_path / "wrong.yaml") == 3
    assert "do not reproduce" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_llama4s_chunked_rope_layer_and_its_nope_layer_with_a_temperature(models, tmp_path):
    """Layer 0 of the tiny Llama 4: chunks of 4, RoPE in interleaved pairs and the L2 QK-norm
    as steps of the scenario; layer 1: NoPE, full, its Q the projection times each position's
    temperature 1 + 0.5·log(1 + ⌊(p + 1) / 4⌋) (the config's attn_scale and floor_scale, the
    formula of Llama4TextAttention written here); both the model's own weights and output. The
    index says chunked 4 · RoPE 10000, then full · NoPE."""
    folder = models("llama4_text")
    chunked, nope = tmp_path / "l0.yaml", tmp_path / "l1.yaml"
    assert capture(folder, chunked, 0) == 0 and capture(folder, nope, 1) == 0
    scenario = assert_reproduces(chunked, *model_attention(folder, "llama4_text", 0))
    assert scenario["chunk"] == 4 and len(scenario["tokens"]) > 2 * 4  # chunks hide something
    assert scenario["rope"] == {"base": 10000, "pairs": "interleaved"}
    assert scenario["qk_norm"] == {"style": "llama4", "eps": 1e-5}
    scenario = assert_reproduces(nope, *model_attention(folder, "llama4_text", 1))
    assert {"chunk", "rope", "qk_norm", "window"}.isdisjoint(scenario)
    model = AutoModel.from_pretrained(folder, attn_implementation="eager")
    tokens = AutoTokenizer.from_pretrained(folder)(TEXT, return_tensors="pt")["input_ids"]
    projected = {}
    handle = model.layers[1].self_attn.q_proj.register_forward_hook(
        lambda m, args, out: projected.update(q=out[0].double().numpy())
    )
    with torch.no_grad():
        model(input_ids=tokens)
    handle.remove()
    T = tokens.shape[1]
    heat = 1 + 0.5 * np.log(1 + np.floor((np.arange(T) + 1) / 4))
    assert heat[-1] > 1.5  # the temperature is not 1 throughout on this text
    Q = read_scenario(nope)[1]["Q"]  # (heads, T, d)
    expected = (projected["q"] * heat[:, None]).reshape(T, 4, 8).transpose(1, 0, 2)
    assert np.abs(Q - expected).max() < 1e-6
    assert "temperature" in scenario["description"]
    index = tmp_path / "all.yaml"
    argv = ["capture", str(folder), "--text", TEXT, "--layer", "all", "-o", str(index)]
    assert main(argv) == 0
    kinds = [entry["kind"] for entry in yaml.safe_load(index.read_text("utf-8"))["layers"]]
    assert kinds == [
        {"attention": "chunked", "chunk": 4, "position": "rope", "rope_base": 10000},
        {"attention": "full", "position": "nope"},
    ]


@pytest.mark.parametrize("left_out", ["temperature", "chunk", "qk_norm"])
def test_a_llama4_capture_without_its_temperature_chunks_or_norm_would_not_reproduce(
    left_out, models, tmp_path, capsys, monkeypatch
):
    from attn_tui.capture import llama4

    if left_out == "temperature":
        monkeypatch.setattr(llama4, "temperature", lambda T, *a: np.ones(T))
    else:
        real = llama4.layer
        if left_out == "qk_norm":  # rotated as the model rotates, but never normed
            monkeypatch.setattr(llama4, "normed", lambda x, setting, kind: x)

        def without(*args, **kwargs):
            captured = real(*args, **kwargs)
            setattr(captured, left_out, None)
            return captured

        monkeypatch.setattr(llama4, "layer", without)
    layer = 1 if left_out == "temperature" else 0
    assert capture(models("llama4_text"), tmp_path / "wrong.yaml", layer) == 3
    assert "do not reproduce" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    "family, config, layer, style",
    [
        ("qwen3", {}, 1, "qwen3"),
        ("gemma3_text", {}, 0, "gemma3"),  # sliding, local base
        ("gemma3_text", {}, 1, "gemma3"),  # full, global base
        ("olmo2", {"num_key_value_heads": 4}, 1, "olmo2"),  # the step takes no grouped keys
    ],
)
def test_qk_norm_families_step_their_norm_from_q_and_k_as_projected(
    family, config, layer, style, models, tmp_path
):
    """The scenario's Q and K are q_proj's and k_proj's outputs (hooked here), its qk_norm
    the modules' own gains (read from the model); put through the reference's RMSNorm (written
    from transformers' Qwen3RMSNorm, Gemma3RMSNorm, Olmo2RMSNorm) they give the model's own
    weights and output."""
    folder = models(family, **config)
    out = tmp_path / "layer.yaml"
    assert capture(folder, out, layer) == 0
    scenario = assert_reproduces(out, *model_attention(folder, family, layer))
    assert scenario["qk_norm"]["style"] == style
    model = AutoModel.from_pretrained(folder, attn_implementation="eager")
    attention = model.layers[layer].self_attn
    for name in ("q", "k"):
        gain = getattr(attention, f"{name}_norm").weight.detach().double().numpy()
        assert np.allclose(scenario["qk_norm"][f"{name}_weight"], gain, rtol=0, atol=1e-12)
    tokens = AutoTokenizer.from_pretrained(folder)(TEXT, return_tensors="pt")["input_ids"]
    projected = {}
    handles = [
        getattr(attention, f"{name}_proj").register_forward_hook(
            lambda m, args, out, name=name: projected.update({name: out[0].double().numpy()})
        )
        for name in ("q", "k")
    ]
    with torch.no_grad():
        model(input_ids=tokens)
    for handle in handles:
        handle.remove()
    arrays = read_scenario(out)[1]
    d = arrays["Q"].shape[-1]
    for name in ("q", "k"):
        T, width = projected[name].shape
        heads = projected[name].reshape(T, width // d, d).transpose(1, 0, 2)
        assert np.abs(arrays[name.upper()] - heads).max() < 1e-6
        # as projected, not normed: the norm is the scenario's step
        assert np.abs(np.sqrt(np.mean(heads**2, axis=-1)) - 1).max() > 0.1


def test_olmo2s_norm_with_grouped_keys_is_not_a_step_but_its_output(models, tmp_path):
    folder = models("olmo2")  # 4 heads sharing 2 key/value heads
    out = tmp_path / "layer.yaml"
    assert capture(folder, out) == 0
    scenario = assert_reproduces(out, *model_attention(folder, "olmo2", 1))
    assert "qk_norm" not in scenario and "not a step" in scenario["description"]


def test_a_qk_norm_capture_with_gains_of_1_would_not_reproduce(
    models, tmp_path, capsys, monkeypatch
):
    from attn_tui.capture import qk_norm

    monkeypatch.setattr(qk_norm, "_weight", lambda norm: (1.0,) * norm.weight.shape[0])
    assert capture(models("qwen3"), tmp_path / "wrong.yaml") == 3
    assert "do not reproduce" in capsys.readouterr().err
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
