"""What capture does without PyTorch: tokens shown as a student recognises them, YAML that reads
back exactly, imports that stay out of everything else, and one line when the extra is missing."""

from __future__ import annotations

import subprocess
import sys

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from attn_tui.capture.tokens import SENTENCEPIECE_SPACE, Spelling, shown, spelling_from_decoder
from attn_tui.capture.write_scenario import default_name, npz_path_for, quoted_scalar
from attn_tui.core.files.yaml_text import yaml_number
from tests.conftest import NEEDS_MODELS, ROOT

# The decoders' settings as the real tokenizer.json files write them.
GPT2_DECODER = {
    "type": "ByteLevel",
    "add_prefix_space": True,
    "trim_offsets": True,
    "use_regex": True,
}
LLAMA2_DECODER = {
    "type": "Sequence",
    "decoders": [
        {"type": "Replace", "pattern": {"String": "▁"}, "content": " "},
        {"type": "ByteFallback"},
        {"type": "Fuse"},
        {"type": "Strip", "content": " ", "start": 1, "stop": 0},
    ],
}
METASPACE_DECODER = {
    "type": "Metaspace",
    "replacement": "▁",
    "prepend_scheme": "always",
    "split": True,
}
BYTE_LEVEL = spelling_from_decoder(GPT2_DECODER)
SENTENCEPIECE = spelling_from_decoder(LLAMA2_DECODER)


def test_decoders_tell_how_pieces_are_spelled():
    assert BYTE_LEVEL == Spelling(byte_level=True)
    assert SENTENCEPIECE == Spelling(space_marker=SENTENCEPIECE_SPACE, byte_pieces=True)
    assert spelling_from_decoder(METASPACE_DECODER) == Spelling(space_marker="▁")
    assert spelling_from_decoder(None) == Spelling()
    assert spelling_from_decoder(b'{"type": "WordPiece", "prefix": "##"}') == Spelling()


@pytest.mark.parametrize(
    "piece, text",
    [
        # GPT-2's alphabet: byte 0x20 (space) is U+0120 "Ġ", 0x0A (line feed) U+010A "Ċ"; "☃" is
        # the UTF-8 bytes E2 98 83, spelled "â" (E2), "ĺ" (U+013A for 0x98), "ĥ" (U+0125 for 0x83).
        ("The", "The"),
        ("Ġcat", "␣cat"),
        ("ĠĠ", "␣␣"),
        # a token of only a line feed or a tab, which a scenario would read as an empty label,
        # as the symbols for them (U+240A, U+2409); beside other text it stays as it is
        ("Ċ", "␊"),
        ("ĉ", "␉"),
        ("ĊA", "\nA"),
        ("âĺĥ", "☃"),
        ("Ġâĺĥ", "␣☃"),
        ("âĺ", "<0xE2><0x98>"),
        ("ĥ", "<0x83>"),  # a character split across two tokens
        ("Ã©", "é"),  # C3 A9
    ],
)
def test_byte_level_pieces_are_decoded(piece, text):
    assert shown(piece, BYTE_LEVEL) == text


@pytest.mark.parametrize(
    "piece, text",
    [
        ("▁The", "␣The"),
        ("cat", "cat"),
        ("▁", "␣"),
        ("<0x0A>", "␊"),
        ("<0x1F>", "␟"),  # U+241F
        ("<0x41>", "A"),
        ("<0xE2>", "<0xE2>"),  # one byte of a three-byte character
    ],
)
def test_sentencepiece_pieces_are_decoded(piece, text):
    assert shown(piece, SENTENCEPIECE) == text


def test_special_tokens_stay_literal():
    assert shown("<|endoftext|>", BYTE_LEVEL, literal=True) == "<|endoftext|>"
    assert shown("<s>", SENTENCEPIECE, literal=True) == "<s>"
    assert shown("[CLS]", Spelling(), literal=True) == "[CLS]"
    assert shown("##ing", Spelling()) == "##ing"


@given(st.text(alphabet=st.characters(exclude_categories=["Cs"])))
def test_any_text_is_one_quoted_yaml_line_that_reads_back_exactly(text):
    scalar = quoted_scalar(text)
    assert "\n" not in scalar and scalar.startswith('"')
    assert yaml.safe_load(f"token: {scalar}  # a comment after it\n") == {"token": text}


@pytest.mark.parametrize(
    "text",
    [
        "yes",
        "~",
        "- a",
        "#1",
        "a: b",
        '"',
        "\\",
        "\x1b]52;c;x\x07",
        "\u2028",
        "\x85",
        "\ufeff",
        "😀",
        " lead",
        "\udcff",
    ],
)
def test_awkward_tokens_read_back_exactly(text):
    assert yaml.safe_load(quoted_scalar(text)) == text


@pytest.mark.parametrize("value", [1e-05, 2.5e-10, 1e20, 8.0, 22.627416997969522, 500000.0])
def test_floats_are_written_so_that_yaml_reads_floats(value):
    assert yaml.safe_load(yaml_number(value)) == value


def test_default_names_are_safe_file_names():
    assert default_name("openai-community/gpt2", 3) == "gpt2_l3.yaml"
    assert default_name("/models/TinyLlama-1.1B/", 0) == "TinyLlama-1.1B_l0.yaml"
    assert default_name("../..", 1) == "model_l1.yaml"
    assert default_name("caf\u00e9 mod\x1bel", 2) == "caf__mod_el_l2.yaml"
    assert npz_path_for("out/gpt2_l3.yaml") == "out/gpt2_l3.npz"


def _run(code: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120
    )


def test_core_the_cli_and_the_capture_package_never_import_torch_or_transformers():
    result = _run("""
import sys, io, contextlib
import attn_tui.core, attn_tui.capture, attn_tui.capture.command, attn_tui.capture.tokens
import attn_tui.capture.write_scenario, attn_tui.capture.write_index, attn_tui.capture.families
import attn_tui.capture.model_run, attn_tui.capture.captured_layer, attn_tui.capture.agreement
import attn_tui.core.loading.model_index, attn_tui.core.teaching.patterns, attn_tui.tui.cli.heads
from attn_tui.tui.cli import main
with contextlib.redirect_stdout(io.StringIO()) as printed:
    assert main(['heads', 'cat_sat']) == 0
assert 'previous' in printed.getvalue()
from attn_tui.tui.cli import main
with contextlib.redirect_stdout(io.StringIO()) as printed:
    assert main(['--print', 'cat_sat']) == 0
assert 'sat' in printed.getvalue()
print(sorted(name for name in sys.modules if name.split('.')[0] in ('torch', 'transformers')))
""")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


@pytest.mark.parametrize(
    "hidden",
    [
        # (hiding one alone needs the other installed)
        pytest.param(["torch"], marks=pytest.mark.models),
        pytest.param(["transformers"], marks=pytest.mark.models),
        ["torch", "transformers"],
    ],
    ids=["torch", "transformers", "both"],
)
def test_capture_without_the_extra_says_what_to_install_in_one_line(hidden, tmp_path):
    import importlib.util

    for name in {"torch", "transformers"} - set(hidden):
        if importlib.util.find_spec(name) is None:  # the message would name it too
            pytest.skip(
                f"hides {' and '.join(hidden)} alone, and {name} is not installed either: "
                f"{NEEDS_MODELS}"
            )
    result = _run(f"""
import sys
for name in {hidden!r}:
    sys.modules[name] = None  # as if not installed
from attn_tui.tui.cli import main
sys.exit(main(['capture', {str(tmp_path)!r}, '--text', 'the cat', '--layer', '0',
               '-o', {str(tmp_path / "out.yaml")!r}]))
""")
    assert result.returncode == 2, result.stderr
    assert result.stdout == ""
    missing = " and ".join(hidden) + (" is" if len(hidden) == 1 else " are")
    from tests.conftest import ROOT

    # spelt as docs/capture.md spells it, for the checkout the tests run from
    assert result.stderr == (
        f"attn-tui capture: capture needs PyTorch and transformers ({missing} "
        f"not installed): python -m pip install '.[models]' (in {ROOT})\n"
    )
    assert not (tmp_path / "out.yaml").exists()


@pytest.mark.parametrize(
    "layer, existing",
    [("1", "demo_l1.npz"), ("all", "demo_layers.yaml"), ("all", "demo_layers_l1.npz")],
)
def test_the_demos_default_output_that_exists_is_refused_before_pytorch_is_imported(
    tmp_path, layer, existing
):
    """Issue 29: without -o, capture demo said "already exists" after ~5.6 s of building the
    model."""
    (tmp_path / existing).write_text("kept")
    result = subprocess.run(
        [
            sys.executable,
            "-c",
            f"""
import sys
sys.path.insert(0, {str(ROOT)!r})
from attn_tui.tui.cli import main
code = main(['capture', 'demo', '--text', 'the cat', '--layer', {layer!r}])
assert 'torch' not in sys.modules, 'torch was imported'
sys.exit(code)
""",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 2, result.stderr
    assert f'"{existing}" already exists; add --force to replace it' in result.stderr
    assert (tmp_path / existing).read_text() == "kept"


def test_an_output_that_exists_is_refused_before_pytorch_is_imported(tmp_path):
    """Issue 29: "already exists; add --force" came after ~2.8 s of loading PyTorch."""
    (tmp_path / "out.yaml").write_text("kept")
    result = _run(f"""
import sys
from attn_tui.tui.cli import main
code = main(['capture', {str(tmp_path)!r}, '--text', 'the cat', '--layer', '0',
             '-o', {str(tmp_path / "out.yaml")!r}])
assert 'torch' not in sys.modules, 'torch was imported'
sys.exit(code)
""")
    assert result.returncode == 2, result.stderr
    assert "already exists; add --force to replace it" in result.stderr
    assert (tmp_path / "out.yaml").read_text() == "kept"
