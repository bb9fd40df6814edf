"""A model index (core.loading.model_index): read as carefully as a scenario, listed by --json,
scored by ``attn-tui heads``; no NumPy needed to read one."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from attn_tui.core import ScenarioError, load
from attn_tui.core.engine.attention import Attention
from attn_tui.core.loading.model_index import loads_index, read_index, to_json
from attn_tui.core.teaching.patterns import PATTERNS, pattern_scores
from attn_tui.tui.cli import main
from tests.conftest import ROOT
from tests.reference import softmax

DATA = ROOT / "tests" / "data"


def two_layer_index(folder: Path) -> Path:
    """An index of two captured GPT-2 layers (the same arrays under two names, the second with
    its heads renamed so that the two can be told apart)."""
    for name in ("tiny_gpt2_l1.yaml", "tiny_gpt2_l1.npz"):
        shutil.copy(DATA / name, folder / name)
    text = (DATA / "tiny_gpt2_l1.yaml").read_text(encoding="utf-8")
    (folder / "second.yaml").write_text(
        text.replace(
            "head_names: [head 0, head 1, head 2, head 3]", 'head_names: [h0, h1, h2, "h3\\e[31m"]'
        ),
        encoding="utf-8",
    )
    index = folder / "model_layers.yaml"
    index.write_text(
        'model_index: 1\ntitle: "two layers"\nlayers:\n'
        "  - {layer: 0, scenario: tiny_gpt2_l1.yaml}\n"
        '  - {layer: 1, scenario: "second.yaml"}\n',
        encoding="utf-8",
    )
    return index


def test_an_index_lists_its_layers_in_the_folder_of_the_index(tmp_path):
    index = read_index(str(two_layer_index(tmp_path)))
    assert index.title == "two layers"
    assert [(entry.layer, entry.name) for entry in index.layers] == [
        (0, "tiny_gpt2_l1.yaml"),
        (1, "second.yaml"),
    ]
    assert index.layers[1].path == str(tmp_path / "second.yaml")


@pytest.mark.parametrize(
    "text, where, message",
    [
        ("title: x\n", "1:1", "an index needs model_index:"),
        ("model_index: 1\n", "1:1", "an index needs layers:"),
        (
            "model_index: 2\nlayers: [{layer: 0, scenario: a.yaml}]\n",
            "1:14",
            "model_index 2: this attn-tui reads version 1",
        ),
        ("model_index: 1\nlayers: []\n", "2:9", "layers must be a list"),
        (
            "model_index: 1\nlayer: []\n",
            "2:1",
            "unknown key 'layer' in the index; did you mean 'layers'?",
        ),
        (
            "model_index: 1\nlayers:\n  - {layer: 0, scenario: ../a.yaml}\n",
            "3:26",
            "a file name alone",
        ),
        (
            "model_index: 1\nlayers:\n  - {layer: 0, scenario: /etc/a.yaml}\n",
            "3:26",
            "a file name alone",
        ),
        ("model_index: 1\nlayers:\n  - {layer: 0, scenario: a.txt}\n", "3:26", "ending in .yaml"),
        (
            "model_index: 1\nlayers:\n  - {layer: 0, scenario: a.yaml}\n"
            "  - {layer: 0, scenario: b.yaml}\n",
            "4:13",
            "layer 0 is listed twice (first on line 3)",
        ),
        (
            "model_index: 1\nlayers:\n  - {layer: -1, scenario: a.yaml}\n",
            "3:13",
            "layer must be from 0",
        ),
        ("model_index: 1\nlayers:\n  - {scenario: a.yaml}\n", "3:5", "a layer needs layer:"),
        ("model_index: 1\nlayers: [&a {layer: 0, scenario: a.yaml}, *a]\n", "2:", "listed twice"),
    ],
)
def test_a_broken_index_is_one_located_error(text, where, message):
    with pytest.raises(ScenarioError) as raised:
        loads_index(text, "idx.yaml")
    assert str(raised.value).startswith(f"idx.yaml:{where}")
    assert message in str(raised.value)


def test_too_many_layers_are_refused_before_anything_is_read():
    text = "model_index: 1\nlayers:\n" + "".join(
        f"  - {{layer: {n}, scenario: l{n}.yaml}}\n" for n in range(1025)
    )
    with pytest.raises(ScenarioError, match="too many layers: 1,025, at most 1,024"):
        loads_index(text, "idx.yaml")


def test_reading_an_index_needs_no_numpy(tmp_path):
    index = two_layer_index(tmp_path)
    code = (
        f"import sys\nfrom attn_tui.core.loading.model_index import read_index\n"
        f"index = read_index({str(index)!r})\n"
        "assert [entry.layer for entry in index.layers] == [0, 1], index\n"
        "print(sorted(name for name in sys.modules "
        "if name.split('.')[0] in ('numpy', 'textual', 'rich')))"
    )
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


def test_json_of_an_index_lists_its_layers(tmp_path, capsys):
    index = two_layer_index(tmp_path)
    (tmp_path / "model_layers.yaml").write_text(
        index.read_text() + "  - {layer: 2, scenario: missing.yaml}\n", encoding="utf-8"
    )
    assert main(["--json", str(index)]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["title"] == "two layers" and document["model_index"] == 1
    first, second, missing = document["layers"]
    assert first == {
        "layer": 0,
        "scenario": "tiny_gpt2_l1.yaml",
        "title": "tiny-gpt2 · layer 1 · The cat sat on the mat",
        "heads": 4,
        "T": 6,
        "d_k": 8,
        "d_v": 8,
    }
    assert second["layer"] == 1 and second["heads"] == 4
    assert missing["layer"] == 2 and "missing.yaml: no such file" in missing["error"]


def test_a_layer_that_names_an_index_is_told_so_once(tmp_path, capsys):
    # it was "unknown key 'model_index'" and "unknown key 'layers'", joined by ␊
    index = two_layer_index(tmp_path)
    (tmp_path / "outer.yaml").write_text(
        "model_index: 1\nlayers:\n  - {layer: 0, scenario: model_layers.yaml}\n"
    )
    assert main(["heads", str(tmp_path / "outer.yaml")]) == 2
    err = capsys.readouterr().err
    assert f"{index}:1:1: this file is a model index (it lists layers), not a scenario" in err
    assert "unknown key" not in err and "␊" not in err
    assert main(["--json", str(tmp_path / "outer.yaml")]) == 0
    (layer,) = json.loads(capsys.readouterr().out)["layers"]
    assert layer["error"].startswith(f"{index}:1:1: this file is a model index")


def test_an_index_is_not_a_scenario_for_print(tmp_path, capsys):
    with pytest.raises(SystemExit) as exited:
        main(["--print", str(two_layer_index(tmp_path))])
    assert exited.value.code == 2
    assert "a model index lists one scenario per layer" in capsys.readouterr().err


def test_a_broken_index_exits_2_with_its_location(tmp_path, capsys):
    bad = tmp_path / "bad.yaml"
    bad.write_text("model_index: 1\nlayers: 3\n", encoding="utf-8")
    assert main(["--json", str(bad)]) == 2
    assert capsys.readouterr().err.startswith(f"{bad}:2:9: layers must be a list")


# ---- attn-tui heads ----------------------------------------------------------------------------


def independent_weights(path: Path) -> np.ndarray:
    """Every head's weights of a captured GPT-2 layer, from its npz with NumPy (÷√d_k, causal)."""
    with np.load(DATA / "tiny_gpt2_l1.npz") as arrays:
        Q, K = arrays["Q"], arrays["K"]
    scores = Q @ K.transpose(0, 2, 1) / np.sqrt(Q.shape[-1])
    scores = np.where(np.tri(Q.shape[1], dtype=bool), scores, -np.inf)
    return softmax(scores)


def test_heads_json_scores_every_layer_and_head_as_the_weights_say(tmp_path, capsys):
    index = two_layer_index(tmp_path)
    assert main(["heads", "--json", str(index)]) == 0
    document = json.loads(capsys.readouterr().out)
    assert list(document["patterns"]) == list(PATTERNS)
    heads = document["heads"]
    assert [(head["layer"], head["head"]) for head in heads] == [
        (l, h) for l in (0, 1) for h in range(4)
    ]
    weights = independent_weights(DATA / "tiny_gpt2_l1.yaml")
    tokens = load(DATA / "tiny_gpt2_l1.yaml").tokens
    for head in heads:
        expected = pattern_scores(weights[head["head"]], tokens)
        for name in PATTERNS:
            assert head[name] == (
                None if expected[name] is None else pytest.approx(expected[name], abs=1e-12)
            )
    # by hand for one: head 0's previous-token score is the mean of w[i, i−1], i = 1…5
    assert heads[0]["previous"] == pytest.approx(
        np.mean([weights[0][i, i - 1] for i in range(1, 6)])
    )
    assert heads[5]["name"] == "h1"


def test_heads_table_sorts_and_shows_names_visibly(tmp_path, capsys):
    index = two_layer_index(tmp_path)
    assert main(["heads", "--sort", "first", str(index)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["layer", "head", *PATTERNS]
    firsts = [float(line.split()[-4]) for line in lines[1:]]
    assert firsts == sorted(firsts, reverse=True) and len(firsts) == 8
    assert "\x1b" not in "\n".join(lines) and any(
        "h3␛[31m" in line or "h3\\x1b" in line or "h3^[" in line for line in lines
    )


def test_heads_of_one_scenario_have_no_layer(capsys):
    assert main(["heads", str(DATA / "tiny_gpt2_l1.yaml")]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 5 and lines[1].split()[:2] == ["head", "0"]


def test_heads_of_a_file_that_is_not_there_is_one_line(tmp_path, capsys):
    assert main(["heads", str(tmp_path / "nothing.yaml")]) == 2
    assert capsys.readouterr().err.strip() == f"{tmp_path / 'nothing.yaml'}: no such file"


def test_scores_come_from_the_same_weights_as_the_debugger():
    scenario = load(DATA / "tiny_gpt2_l1.yaml")
    attention = Attention(scenario)
    rows = range(scenario.T)
    assert (
        np.abs(
            attention.head(2).values("softmax", rows, rows) - independent_weights(DATA / "x")[2]
        ).max()
        < 1e-12
    )


def test_a_hostile_title_reaches_json_escaped(tmp_path, capsys):
    index = two_layer_index(tmp_path)
    index.write_text(
        index.read_text().replace('title: "two layers"', 'title: "evil \\e[31m \\u202e"'),
        encoding="utf-8",
    )
    assert main(["--json", str(index)]) == 0
    printed = capsys.readouterr().out
    assert printed.isascii() and json.loads(printed)["title"] == "evil \x1b[31m \u202e"
    assert main(["heads", "--json", str(index)]) == 0
    assert capsys.readouterr().out.isascii()


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "attn_tui", *args], capture_output=True, text=True, cwd=ROOT
    )


def test_a_title_that_wraps_onto_a_line_starting_model_index_is_still_a_scenario(tmp_path):
    path = tmp_path / "s.yaml"  # not an index ("unknown key 'Q' in the index")
    path.write_text(
        'title: "Attention, and why a\nmodel_index: is not the same"\n'
        "Q: [[1, 0], [0, 1]]\nK: [[1, 0], [0, 1]]\nV: [[1, 2], [3, 4]]\n"
    )
    for args in (("check",), ("json",), ("print",), ("heads",)):
        done = run(*args, str(path))
        assert done.returncode == 0, (args, done.stderr)
    assert (
        json.loads(run("json", str(path)).stdout)["title"]
        == "Attention, and why a model_index: is not the same"
    )


def test_an_index_in_flow_style_or_with_a_quoted_key_is_an_index(tmp_path):
    for name in ("tiny_gpt2_l1.yaml", "tiny_gpt2_l1.npz"):
        shutil.copy(DATA / name, tmp_path / name)
    for text in (
        "{model_index: 1, layers: [{layer: 0, scenario: tiny_gpt2_l1.yaml}]}\n",
        '"model_index": 1\nlayers: [{layer: 0, scenario: tiny_gpt2_l1.yaml}]\n',
    ):
        (tmp_path / "index.yaml").write_text(text)
        done = run("json", str(tmp_path / "index.yaml"))
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout)["model_index"] == 1


@pytest.mark.parametrize("make", ["missing", "directory", "fifo", "broken"])
def test_a_layer_file_that_cannot_be_read_is_placed_where_the_index_names_it(tmp_path, make):
    import os

    index = tmp_path / "index.yaml"
    index.write_text("model_index: 1\nlayers:\n  - {layer: 0, scenario: small.yml}\n")
    if make == "directory":
        (tmp_path / "small.yml").mkdir()
    elif make == "fifo":
        os.mkfifo(tmp_path / "small.yml")
    elif make == "broken":
        (tmp_path / "small.yml").write_text("Q: [[1, 0]]\nK: [[1, 0]]\nV: [[1, 0]]\nbogus: 1\n")
    why = {
        "missing": "small.yml: no such file",
        "directory": "small.yml: is a directory",
        "fifo": "small.yml: is not a regular file",
        "broken": "small.yml:4:1: unknown key 'bogus'",
    }[make]
    where = f"{tmp_path / 'small.yml'}:4:1: " if make == "broken" else f"{index}:3:26: layer 0: "
    for args in (("heads",), ("json",)):
        done = subprocess.run(
            [sys.executable, "-m", "attn_tui", *args, str(index)],
            capture_output=True,
            text=True,
            cwd=ROOT,
            timeout=60,
        )
        said = done.stderr if args == ("heads",) else json.loads(done.stdout)["layers"][0]["error"]
        assert said.startswith(where), said  # (an error inside the file: that file's place)
        assert why in said, said


def index_with_kind(folder: Path, kind: str) -> str:
    path = folder / "kinds.yaml"
    path.write_text(
        f"model_index: 1\nlayers:\n  - {{layer: 0, scenario: a.yaml, kind: {kind}}}\n",
        encoding="utf-8",
    )
    return str(path)


@pytest.mark.parametrize(
    "kind, lines, as_json",
    [
        (
            "{attention: sliding, window: 512, position: rope, rope_base: 10000}",
            ("sliding 512", "RoPE 10000"),
            {"attention": "sliding", "window": 512, "position": "rope", "rope_base": 10000.0},
        ),
        (
            "{attention: chunked, chunk: 8192, position: rope}",
            ("chunked 8192", "RoPE"),
            {"attention": "chunked", "chunk": 8192, "position": "rope"},
        ),
        ("{attention: full, position: nope}", ("full", "NoPE"), None),
        ("{attention: full}", ("full",), {"attention": "full"}),
    ],
)
def test_a_layers_kind_is_read_as_written(tmp_path, kind, lines, as_json):
    index = read_index(index_with_kind(tmp_path, kind))
    found = index.layers[0].kind
    assert found.lines() == lines
    assert found.describe() == " · ".join(lines)
    if as_json is not None:
        assert found.as_json() == as_json
        assert to_json(index)["layers"][0]["kind"] == as_json  # attn-tui --json INDEX


def test_an_index_without_kinds_has_none(tmp_path):
    assert read_index(str(two_layer_index(tmp_path))).layers[0].kind is None


@pytest.mark.parametrize(
    "kind, message",
    [
        ("{attention: sliding}", "attention: sliding needs its window:"),
        ("{attention: full, window: 3}", "window: goes with attention: sliding, not full"),
        ("{attention: windowed}", "attention must be one of full, sliding, chunked"),
        ("{attention: full, position: rope, rope_base: -1}", "rope_base must be positive"),
        ("{attention: full, position: nope, rope_base: 10}", "rope_base: goes with position: rope"),
        ("{attention: full, position: sinus}", "position must be one of rope, nope, learned"),
        ("{position: rope}", "kind needs attention:"),
        ("{attention: full, temperature: 1}", "unknown key 'temperature'"),
    ],
)
def test_a_kind_that_is_not_one_is_refused_at_its_line(tmp_path, kind, message):
    with pytest.raises(ScenarioError) as error:
        read_index(index_with_kind(tmp_path, kind))
    assert message in str(error.value) and "kinds.yaml:3:" in str(error.value)
