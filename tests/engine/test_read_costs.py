"""Issue 47, the attack on its fix: the work estimate of ``heads`` and ``figure --model-view``
counted scoring alone. 1,024 layers naming one 3.3 MB YAML file (T = 2) were estimated at nothing
and ran ~35 minutes; an .npz of 128 MB likewise; 15 large YAML layers were parsed (39 s) before a
refusal; a scenario given directly was not bounded at all. Each case here is scaled down: the
measured constants are patched so that small files cost what large ones do, and the estimate must
refuse at once, from the files' sizes and headers, before reading their contents."""

from __future__ import annotations

import time
import zipfile

import numpy as np
import pytest

from attn_tui.core.errors import ScenarioError
from attn_tui.core.files import numpy_files
from attn_tui.core.loading import scenario_file, work_estimate
from attn_tui.core.loading.model_index import check_work, read_index
from attn_tui.tui.cli import figure as figure_command
from attn_tui.tui.cli import heads as heads_command

MB = 2**20


def yaml_layer(folder, name: str = "l.yaml", width: int = 400) -> int:
    """A layer whose bulk is YAML numbers (T = 2), as the attacker's 3.3 MB one; its size."""
    row = "[" + ", ".join(["0.125"] * width) + "]"
    path = folder / name
    path.write_text(f"tokens: [a, b]\nQ: [{row}, {row}]\nK: [{row}, {row}]\nV: [[1], [2]]\n")
    return path.stat().st_size


def index_of(folder, names: list[str], file: str = "index.yaml") -> str:
    lines = "".join(f"  - {{layer: {i}, scenario: {name}}}\n" for i, name in enumerate(names))
    (folder / file).write_text(f"model_index: 1\ntitle: many\nlayers:\n{lines}")
    return str(folder / file)


def nothing_parsed(monkeypatch) -> list[str]:
    """The layer files the estimate reads (parses), in order; loading any array fails the test."""
    read = []
    real = scenario_file.read_document

    def counted(path):
        read.append(str(path).rsplit("/", 1)[-1])
        return real(path)

    monkeypatch.setattr(scenario_file, "read_document", counted)
    monkeypatch.setattr(numpy_files.ArrayRef, "load", lambda self: pytest.fail("an array was read"))
    return read


def refused(run) -> tuple[str, float]:
    started = time.perf_counter()
    with pytest.raises(ScenarioError) as error:
        run()
    return str(error.value), time.perf_counter() - started


def run_heads(argv: list[str]) -> tuple[int, str, str]:
    out, err = [], []
    code = heads_command.heads(
        heads_command.build_parser().parse_args(argv), out.append, err.append, lambda name: name
    )
    return code, "".join(out), "\n".join(err)


def test_many_layers_naming_one_yaml_file_are_refused_on_its_size_alone(tmp_path, monkeypatch):
    """Attack 7 (idxp): 64 layers naming one YAML file, which is loaded once for each of them.
    With the rate patched so that one read is 1.5 s: 64 × 1.5 = 96 s, refused at once without
    parsing it; 13 layers fit (13 × 1.5 = 19.5 ≤ 20 < 21)."""
    size = yaml_layer(tmp_path)
    monkeypatch.setattr(work_estimate, "YAML_SECONDS_PER_MB", 1.5 / (size / MB))
    read = nothing_parsed(monkeypatch)
    index = read_index(index_of(tmp_path, ["l.yaml"] * 64))
    message, took = refused(lambda: check_work(index))
    assert "the 64 layers would take about 96 seconds to score" in message, message
    assert (
        "reading their files" in message and "at most about 13 of them (--layers 0-12)" in message
    )
    assert read == [] and took < 1.0
    code, out, err = run_heads([index.path])
    assert code == 2 and out == "" and "about 96 seconds" in err
    said = []
    args = figure_command.build_parser().parse_args([index.path, "--model-view"])
    assert figure_command.figure(args, said.append, said.append, lambda name: name, None) == 2
    assert said == [err]
    code, out, err = run_heads([index.path, "--layers", "0-12"])  # the layers the refusal named
    assert code == 0 and out.count("head 1") == 13


def test_many_layers_naming_one_npz_count_its_arrays_bytes_without_reading_them(
    tmp_path, monkeypatch
):
    """Attack 7 (idxn): a small YAML naming a large .npz, whose arrays are read for every layer.
    The arrays' bytes come from the archive's directory: with the rate patched to 0.9 s a layer,
    32 layers are 28.8 s, refused (22 fit: 19.8 s), and 10 layers (9 s) run."""
    rng = np.random.default_rng(0)
    np.savez(
        tmp_path / "w.npz",
        Q=rng.standard_normal((2, 64)),
        K=rng.standard_normal((2, 64)),
        V=rng.standard_normal((2, 64)),
    )
    (tmp_path / "l.yaml").write_text("tokens: [a, b]\nnpz: w.npz\n")
    with zipfile.ZipFile(tmp_path / "w.npz") as archive:
        arrays = sum(member.file_size for member in archive.infolist())
    assert arrays > 3 * 2 * 64 * 8  # the arrays and their headers
    monkeypatch.setattr(work_estimate, "ARRAY_SECONDS_PER_MB", 0.9 / (arrays / MB))
    monkeypatch.setattr(work_estimate, "YAML_SECONDS_PER_MB", 0.0)
    with monkeypatch.context() as inner:
        read = nothing_parsed(inner)
        index = read_index(index_of(tmp_path, ["l.yaml"] * 32))
        message, took = refused(lambda: check_work(index))
        assert "the 32 layers would take about 29 seconds to score" in message, message
        assert "at most about 22 of them (--layers 0-21)" in message
        assert read == ["l.yaml"] and took < 1.0  # (its YAML, 30 bytes; never the arrays)
    code, out, err = run_heads([index_of(tmp_path, ["l.yaml"] * 10, "index10.yaml")])
    assert code == 0 and out.count("head 1") == 10


def test_large_yaml_layers_are_not_parsed_when_a_small_one_is_past_the_limit(tmp_path, monkeypatch):
    """Attack 8 (idxmix): distinct large YAML layers, then many layers naming one small file that
    is costly to score. The small file is read first (the smallest first) and the estimate stops
    there, never parsing the large ones: refused at once."""
    for i in range(3):
        yaml_layer(tmp_path, f"p{i}.yaml")
    (tmp_path / "r.yaml").write_text("random: {seed: 0, T: 64, d_k: 1}\n")
    monkeypatch.setattr(work_estimate, "PER_WEIGHT", 2e9 / (64 * 64))  # (1 s a head of r.yaml)
    monkeypatch.setattr(work_estimate, "PER_WIDTH", 0)
    read = nothing_parsed(monkeypatch)
    index = read_index(index_of(tmp_path, ["p0.yaml", "p1.yaml", "p2.yaml"] + ["r.yaml"] * 40))
    message, took = refused(lambda: check_work(index))
    assert read == ["r.yaml"] and took < 1.0
    assert "the 43 layers would take about" in message and "or more" in message, message


def test_a_scenario_given_directly_is_bounded_as_a_layer_is(tmp_path, monkeypatch):
    """Attack 10 (s.yaml): refused as a one-layer index was, by heads and figure --model-view,
    before any head is scored. Patched to 1 s a head: 4 heads of T = 64 are 4 s, past a 2 s
    limit."""
    rng = np.random.default_rng(0)
    np.savez(tmp_path / "s.npz", **{name: rng.standard_normal((4, 64, 1)) for name in "QKV"})
    (tmp_path / "s.yaml").write_text("npz: s.npz\nheads: 4\n")
    monkeypatch.setattr(work_estimate, "PER_WEIGHT", 2e9 / (64 * 64))
    monkeypatch.setattr(work_estimate, "PER_WIDTH", 0)
    monkeypatch.setattr(work_estimate, "LIMIT", 2.0)
    monkeypatch.setattr(
        "attn_tui.core.teaching.patterns.scenario_scores",
        lambda *a, **k: pytest.fail("scored before refusing"),
    )
    path = str(tmp_path / "s.yaml")
    started = time.perf_counter()
    code, out, err = run_heads([path])
    assert code == 2 and out == "" and time.perf_counter() - started < 1.0
    assert (
        err
        == f"{path}:1:1: scoring its 4 heads (T = 64) would take about 4 seconds; at most about 2 "
        "seconds: score a smaller scenario (fewer tokens or heads)"
    )
    said = []
    args = figure_command.build_parser().parse_args([path, "--model-view"])
    assert figure_command.figure(args, said.append, said.append, lambda name: name, None) == 2
    assert said == [err]


def test_layers_chooses_which_layers_of_an_index_are_scored(tmp_path):
    (tmp_path / "r.yaml").write_text("random: {seed: 0, T: 8, d_k: 2}\n")
    path = index_of(tmp_path, ["r.yaml"] * 6)
    code, out, _ = run_heads([path, "--layers", "1-2,5"])
    assert code == 0
    assert [line.split()[0] for line in out.splitlines()[1:]] == ["1", "2", "5"]
    code, out, err = run_heads([path, "--layers", "7-9"])
    assert code == 2 and "the index has none of those layers (it has 0, 1, 2, 3, 4, 5)" in err
    code, out, err = run_heads([path, "--layers", "3-1"])
    assert code == 2 and "runs backwards" in err
    for other_digits in (
        "٣",
        "1-٣",
        "²",
    ):  # (Python's isdigit takes these; a layer number does not)
        code, out, err = run_heads([path, "--layers", other_digits])
        assert code == 2 and "give layer numbers and ranges" in err, other_digits
    code, out, err = run_heads([str(tmp_path / "r.yaml"), "--layers", "1"])
    assert code == 2 and "--layers goes with a model index" in err


def test_a_normal_index_still_runs_and_its_estimate_is_small(tmp_path):
    """Two small layers: every file read, the estimate complete and far under the limit."""
    (tmp_path / "a.yaml").write_text("random: {seed: 0, T: 16, d_k: 4}\n")
    rng = np.random.default_rng(0)
    np.savez(tmp_path / "b.npz", **{name: rng.standard_normal((2, 16, 4)) for name in "QKV"})
    (tmp_path / "b.yaml").write_text("npz: b.npz\nheads: 2\n")
    index = read_index(index_of(tmp_path, ["a.yaml", "b.yaml"]))
    estimate = work_estimate.index_estimate(index)
    assert estimate.complete and estimate.seconds < 0.01
    by_hand = (
        16 * 16 * (work_estimate.PER_WEIGHT + work_estimate.PER_WIDTH * 8) / work_estimate.RATE
    )
    assert estimate.score == pytest.approx(by_hand * 3)  # 1 head + 2 heads
    code, out, _ = run_heads([index.path])
    assert code == 0 and len(out.splitlines()) == 1 + 3


def test_a_scenario_whose_data_file_is_the_cost_says_so(tmp_path, monkeypatch):
    """Attacked: a T = 2 scenario naming an .npz that also holds a large unused array was refused
    as "scoring its 1 head … fewer tokens or heads", where reading the file was the whole cost.
    Patched: reading costs 1 s a byte of array, so the 8×8 unused array's 512 bytes are 512 s."""
    rng = np.random.default_rng(0)
    np.savez(
        tmp_path / "junk.npz",
        Q=rng.standard_normal((2, 1)),
        K=rng.standard_normal((2, 1)),
        V=rng.standard_normal((2, 1)),
        unused=rng.standard_normal((8, 8)),
    )
    (tmp_path / "n.yaml").write_text("npz: junk.npz\n")
    monkeypatch.setattr(work_estimate, "ARRAY_SECONDS_PER_MB", float(2**20))
    path = str(tmp_path / "n.yaml")
    code, out, err = run_heads([path])
    assert code == 2 and out == ""
    assert (
        err.startswith(f"{path}:1:1: reading its files (")
        and "and scoring its 1 head (T = 2)" in err
    ), err
    assert err.endswith("name data files that hold only what the scenario uses"), err
