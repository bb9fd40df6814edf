"""attn-tui capture's errors, on a tiny GPT-2 model built here: each is one line and
exit 2, and nothing is written — a wrong argument, a model of another family, a broken model
folder, a file that cannot be written, a capture that would not reproduce the model, and files
that exist kept unless forced."""

from __future__ import annotations

import os

# Nothing here may reach the network: set before transformers reads it at import.
os.environ["HF_HUB_OFFLINE"] = "1"

import json  # noqa: E402
from pathlib import Path  # noqa: E402

import pytest  # noqa: E402

from tests.conftest import NEEDS_MODELS  # noqa: E402

pytest.importorskip("torch", reason=NEEDS_MODELS)
pytest.importorskip("transformers", reason=NEEDS_MODELS)

from attn_tui.tui.cli import main  # noqa: E402
from tests.capture.test_capture import TEXT, capture, read_scenario  # noqa: E402
from tests.tiny_models import save_gpt2  # noqa: E402

pytestmark = pytest.mark.models


@pytest.fixture(scope="module")
def gpt2(tmp_path_factory) -> Path:
    return save_gpt2(tmp_path_factory.mktemp("models") / "tiny-gpt2")


# ---- errors: one line, exit 2, nothing written ---------------------------------------------------


def error_of(capsys, *argv: str) -> str:
    assert main(["capture", *argv]) == 2
    printed = capsys.readouterr()
    assert printed.out == "" and printed.err.count("\n") == 1, printed
    assert printed.err.startswith("attn-tui capture: ")
    return printed.err[len("attn-tui capture: ") :].strip()


def test_errors_name_the_problem(gpt2, tmp_path, capsys, monkeypatch):
    out = str(tmp_path / "out.yaml")
    common = ["--text", TEXT, "-o", out]
    assert error_of(capsys, str(gpt2), "--layer", "3", *common) == (
        f'--layer 3 is out of range: "{gpt2}" has 3 layers, numbered 0 to 2'
    )
    assert "out of range" in error_of(capsys, str(gpt2), "--layer", "-1", *common)
    assert error_of(capsys, str(gpt2), "--layer", "0", "--text", "", "-o", out) == (
        "--text is empty: give the text to run the model on"
    )
    from transformers import AutoTokenizer

    tokens = len(AutoTokenizer.from_pretrained(gpt2)("cat " * 70)["input_ids"])
    assert tokens > 64
    assert error_of(capsys, str(gpt2), "--layer", "0", "-o", out, "--text", "cat " * 70) == (
        f'the text is {tokens} tokens long, longer than "{gpt2}"\'s context of 64 tokens'
    )
    assert error_of(capsys, str(tmp_path / "nowhere"), "--layer", "0", *common) == (
        f'"{tmp_path / "nowhere"}": no such model folder'
    )
    assert error_of(capsys, str(tmp_path), "--layer", "0", *common) == (
        f'"{tmp_path}" is a folder but not a Hugging Face model: it has no config.json'
    )
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    assert error_of(capsys, "attn-tui-tests/no-such-model", "--layer", "0", *common) == (
        '"attn-tui-tests/no-such-model": no such model folder, and no model of that name in the '
        "local Hugging Face cache; this machine is offline (HF_HUB_OFFLINE), so it cannot be "
        "downloaded"
    )
    assert error_of(
        capsys, str(gpt2), "--layer", "0", "--text", TEXT, "-o", str(tmp_path / "out.txt")
    ).startswith("-o")
    assert error_of(capsys, str(gpt2), "--layer", "0", "--text", "a\udcffb", "-o", out) == (
        "--text is not valid UTF-8"
    )
    assert list(tmp_path.iterdir()) == []


def test_a_model_of_another_family_is_named(tmp_path, capsys):
    folder = tmp_path / "xlnet"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps({"model_type": "xlnet"}))
    assert error_of(
        capsys, str(folder), "--layer", "0", "--text", TEXT, "-o", str(tmp_path / "o.yaml")
    ) == (
        f'"{folder}" is a "xlnet" model; capture knows gpt2, llama, mistral, qwen2, gemma, '
        "gemma2, phi3, qwen3, gemma3_text, olmo2, smollm3, deepseek_v3, gpt_oss, llama4_text, "
        "gpt_neox, bloom, bert, roberta, distilbert, t5, bart, marian"
    )


def test_a_broken_model_folder_is_one_line(gpt2, tmp_path, capsys):
    broken = tmp_path / "broken"
    broken.mkdir()
    for name in ("config.json", "tokenizer.json", "tokenizer_config.json"):
        (broken / name).write_bytes((gpt2 / name).read_bytes())
    (broken / "model.safetensors").write_bytes(b"not weights")
    message = error_of(
        capsys, str(broken), "--layer", "0", "--text", TEXT, "-o", str(tmp_path / "o.yaml")
    )
    assert message.startswith(f'cannot load the model "{broken}": ')


def test_a_file_that_cannot_be_written_is_one_line(gpt2, tmp_path, capsys, monkeypatch):
    def refuse(path, data):  # as a full disk or a read-only folder would (root may write anywhere)
        raise PermissionError(13, "Permission denied", path)

    monkeypatch.setattr("attn_tui.capture.write_scenario.write_atomic", refuse)
    out = tmp_path / "out.yaml"
    assert error_of(capsys, str(gpt2), "--layer", "0", "--text", TEXT, "-o", str(out)) == (
        f'cannot write "{tmp_path / "out.npz"}": Permission denied'
    )


def test_a_capture_that_would_not_reproduce_the_model_writes_nothing(
    gpt2, tmp_path, capsys, monkeypatch
):
    """The float64 check before writing: here GPT-2's scale is made to read 1 instead of √8."""
    monkeypatch.setattr("attn_tui.capture.gpt2.divisor", lambda attention: 1.0)
    assert capture(gpt2, tmp_path / "wrong.yaml") == 3
    message = capsys.readouterr().err
    assert message.startswith(f'attn-tui capture: the captured arrays do not reproduce "{gpt2}"')
    assert message.count("\n") == 1 and "nothing was written" in message
    assert list(tmp_path.iterdir()) == []


def test_existing_files_are_kept_unless_forced(gpt2, tmp_path, capsys):
    out = tmp_path / "mine.yaml"
    (tmp_path / "mine.npz").write_bytes(b"a student's own file")
    assert error_of(capsys, str(gpt2), "--layer", "0", "--text", TEXT, "-o", str(out)) == (
        f'"{tmp_path / "mine.npz"}" already exists; add --force to replace it'
    )
    assert (tmp_path / "mine.npz").read_bytes() == b"a student's own file" and not out.exists()
    assert capture(gpt2, out, TEXT, 0, "--force") == 0
    assert read_scenario(out)[1]["Q"].shape == (4, 6, 8)
