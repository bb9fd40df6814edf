"""``attn-tui capture --layer all``: one scenario per layer and an index of them, from one
forward pass, each layer checked against the model's own attention like a single capture."""

from __future__ import annotations

import os

os.environ["HF_HUB_OFFLINE"] = "1"

import json  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
import pytest  # noqa: E402

from tests.conftest import NEEDS_MODELS  # noqa: E402

pytest.importorskip("torch", reason=NEEDS_MODELS)
pytest.importorskip("transformers", reason=NEEDS_MODELS)

import yaml  # noqa: E402

from attn_tui.core.loading.model_index import read_index  # noqa: E402
from attn_tui.tui.cli import main  # noqa: E402
from tests.capture.family_attention import model_attention as family_attention  # noqa: E402
from tests.capture.family_attention import reference as family_reference  # noqa: E402
from tests.capture.test_capture import model_attention, read_scenario, reference  # noqa: E402
from tests.tiny_models import save_family, save_gpt2  # noqa: E402

pytestmark = pytest.mark.models

TEXT = "The cat sat on the mat. The cat sat on the mat."


@pytest.fixture(scope="module")
def gpt2(tmp_path_factory) -> Path:
    return save_gpt2(tmp_path_factory.mktemp("models") / "tiny-gpt2")


def test_every_layer_is_written_from_one_forward_pass_and_reproduces_the_model(
    gpt2, tmp_path, capsys, monkeypatch
):
    from attn_tui.capture import run_to_layer

    runs = []
    real = run_to_layer.run_to_sites
    monkeypatch.setattr(
        run_to_layer,
        "run_to_sites",
        lambda forward, sites: runs.append(len(sites)) or real(forward, sites),
    )
    index_path = tmp_path / "gpt2_layers.yaml"
    assert (
        main(["capture", str(gpt2), "--text", TEXT, "--layer", "all", "-o", str(index_path)]) == 0
    )
    assert runs == [3]  # one run of the model, recording all three layers
    index = read_index(str(index_path))
    assert [(entry.layer, entry.name) for entry in index.layers] == [
        (0, "gpt2_layers_l0.yaml"),
        (1, "gpt2_layers_l1.yaml"),
        (2, "gpt2_layers_l2.yaml"),
    ]
    assert index.title.startswith("tiny-gpt2 · all 3 layers · The cat sat")
    for entry in index.layers:
        scenario, arrays = read_scenario(Path(entry.path))
        weights, output = reference(scenario, arrays)
        model_weights, model_output, _ = model_attention(gpt2, TEXT, entry.layer)
        assert np.abs(weights - model_weights).max() < 1e-5
        assert np.abs(output - model_output).max() < 1e-5
        assert scenario["title"].startswith(f"tiny-gpt2 · layer {entry.layer} ·")
    printed = capsys.readouterr().out
    assert (
        printed.startswith(f"Wrote {index_path} and 3 scenarios beside it")
        and printed.count("\n") == 1
    )
    assert sorted(path.name for path in tmp_path.iterdir()) == [
        "gpt2_layers.yaml",
        *(f"gpt2_layers_l{n}.{ext}" for n in range(3) for ext in ("npz", "yaml")),
    ]


def test_the_default_names_and_an_encoder_decoders_part(tmp_path, monkeypatch, capsys):
    folder = save_family("t5", tmp_path / "models" / "tiny-t5")
    monkeypatch.chdir(tmp_path)
    assert (
        main(
            [
                "capture",
                str(folder),
                "--text",
                TEXT,
                "--target-text",
                "the dog sat",
                "--part",
                "cross",
                "--layer",
                "all",
            ]
        )
        == 0
    )
    index = read_index("tiny-t5_cross_layers.yaml")
    assert [entry.name for entry in index.layers] == [
        "tiny-t5_cross_layers_l0.yaml",
        "tiny-t5_cross_layers_l1.yaml",
    ]
    for entry in index.layers:
        scenario = yaml.safe_load(Path(entry.path).read_text(encoding="utf-8"))
        with np.load(Path(entry.path).with_suffix(".npz")) as archive:
            weights, _ = family_reference(scenario, {name: archive[name] for name in archive.files})
        model_weights, _ = family_attention(
            folder, "t5", entry.layer, "cross", texts=(TEXT,), target="the dog sat"
        )
        assert np.abs(weights - model_weights).max() < 1e-5
    assert "decoder cross-attention layers" in index.title


def test_a_layer_that_does_not_reproduce_means_nothing_is_written(
    gpt2, tmp_path, capsys, monkeypatch
):
    from attn_tui.capture import gpt2 as family

    real = family.divisor
    monkeypatch.setattr(
        family, "divisor", lambda attention: 1.0 if attention.layer_idx == 2 else real(attention)
    )
    assert (
        main(
            ["capture", str(gpt2), "--text", TEXT, "--layer", "all", "-o", str(tmp_path / "x.yaml")]
        )
        == 3
    )
    assert "at layer 2" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_existing_layer_files_are_kept_unless_forced(gpt2, tmp_path, capsys):
    (tmp_path / "x_l1.npz").write_bytes(b"mine")
    assert (
        main(
            ["capture", str(gpt2), "--text", TEXT, "--layer", "all", "-o", str(tmp_path / "x.yaml")]
        )
        == 2
    )
    assert 'x_l1.npz" already exists; add --force' in capsys.readouterr().err
    assert (tmp_path / "x_l1.npz").read_bytes() == b"mine" and not (tmp_path / "x.yaml").exists()


def test_json_of_the_written_index_lists_every_layers_shape(gpt2, tmp_path, capsys):
    index_path = tmp_path / "x.yaml"
    assert (
        main(["capture", str(gpt2), "--text", TEXT, "--layer", "all", "-o", str(index_path)]) == 0
    )
    capsys.readouterr()
    assert main(["--json", str(index_path)]) == 0
    layers = json.loads(capsys.readouterr().out)["layers"]
    assert [(layer["layer"], layer["heads"], layer["T"], layer["d_k"]) for layer in layers] == [
        (n, 4, 15, 8) for n in range(3)
    ]


def test_the_capture_pages_heads_table_is_the_programs_own(tmp_path, capsys):
    """docs/capture.md shows `attn-tui heads` on the tests' tiny GPT-2 (seed 0): it must be what
    the program prints for that capture."""
    from tests.conftest import ROOT

    readme = (ROOT / "docs" / "capture.md").read_text(encoding="utf-8")
    shown = readme.split("<!-- heads: tiny-gpt2 -->\n```\n", 1)[1].split("```", 1)[0]
    folder = save_gpt2(tmp_path / "tiny-gpt2")
    index = tmp_path / "tiny-gpt2_layers.yaml"
    assert (
        main(
            [
                "capture",
                str(folder),
                "--layer",
                "all",
                "-o",
                str(index),
                "--text",
                "<|endoftext|>The cat sat on the mat. The cat sat on the mat.",
            ]
        )
        == 0
    )
    capsys.readouterr()
    assert main(["heads", str(index)]) == 0
    assert capsys.readouterr().out == shown


@pytest.mark.parametrize(
    "family, config",
    [
        ("gemma2", {"sliding_window": 3}),
        ("qwen2", {"use_sliding_window": True, "sliding_window": 3, "max_window_layers": 1}),
        ("bloom", {}),
        ("t5", {}),
        ("gemma3_text", {}),  # a sliding layer (local base), then a full one (global base)
        ("smollm3", {}),  # a RoPE layer, then a NoPE one
    ],
)
def test_the_index_records_each_layers_kind_as_the_config_makes_it(
    family, config, tmp_path, capsys
):
    """Each layer's kind, from the config written here (layer_types, rope_theta by layer type,
    no_rope_layers), not from what capture worked out: sliding (and its window) or full; RoPE
    and its base, NoPE, ALiBi, T5's relative bias. attn-tui heads shows it in its last
    column."""
    folder = save_family(family, tmp_path / family, **config)
    index_path = tmp_path / "x.yaml"
    argv = ["capture", str(folder), "--text", TEXT, "--layer", "all", "-o", str(index_path)]
    assert main(argv) == 0
    model_config = yaml.safe_load((folder / "config.json").read_text(encoding="utf-8"))
    expected = []
    for layer in range(2):
        if family == "bloom":
            expected.append(("full", None, "alibi", None))
        elif family == "t5":
            expected.append(("full", None, "relative", None))
        elif family == "smollm3" and not model_config["no_rope_layers"][layer]:
            expected.append(("full", None, "nope", None))
        else:
            layer_type = model_config["layer_types"][layer]
            sliding = layer_type == "sliding_attention"
            rope = model_config["rope_parameters"]
            rope = rope.get(layer_type, rope)  # Gemma 3: a base for each type of layer
            expected.append(
                (
                    "sliding" if sliding else "full",
                    3 if sliding else None,
                    "rope",
                    rope["rope_theta"],
                )
            )
    kinds = [entry.kind for entry in read_index(str(index_path)).layers]
    assert [(k.attention, k.span, k.position, k.rope_base) for k in kinds] == expected
    if family in ("gemma2", "qwen2", "gemma3_text"):
        assert len({kind.attention for kind in kinds}) == 2
    if family in ("gemma3_text", "smollm3"):
        assert len({(kind.position, kind.rope_base) for kind in kinds}) == 2
    capsys.readouterr()
    assert main(["heads", str(index_path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].endswith("  kind")
    shown = {"alibi": "ALiBi", "relative": "relative bias", "rope": "RoPE", "nope": "NoPE"}
    for line in lines[1:]:
        attention, span, position, base = expected[int(line.split()[0])]
        words = f"{attention}{'' if span is None else f' {span}'} · {shown[position]}"
        assert line.endswith(words + ("" if base is None else f" {base:g}"))
    assert main(["heads", str(index_path), "--json"]) == 0
    for head in json.loads(capsys.readouterr().out)["heads"]:
        attention, span, position, base = expected[head["layer"]]
        assert head["kind"]["attention"] == attention and head["kind"]["position"] == position
        assert head["kind"].get("window") == span and head["kind"].get("rope_base") == base
