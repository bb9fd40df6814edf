"""The command line contract: --json keys and strictness, --print, --check, --list, exit codes."""

from __future__ import annotations

import json
import math
import re
import subprocess
import sys

import numpy as np
import pytest

from attn_tui import __version__
from attn_tui.core import compute_all, load
from attn_tui.tui import cli
from attn_tui.tui.cli import app as cli_app
from attn_tui.tui.cli import main
from tests.conftest import ROOT, SCENARIOS
from tests.reference import chapter_attention

JSON_KEYS = {
    "title",
    "tokens",
    "d_k",
    "d_v",
    "causal",
    "divisor",
    "mask_value",
    "Q",
    "K",
    "V",
    "scores",
    "scaled",
    "masked",
    "weights",
    "output",
    "diagnostics",
}


def strict_json(text):
    def refuse(constant):
        raise ValueError(f"{constant} is not valid JSON (RFC 8259)")

    return json.loads(text, parse_constant=refuse)


def run_json(capsys, *args):
    assert main(["--json", *args]) == 0
    return strict_json(capsys.readouterr().out)


def test_json_has_every_key_and_is_strict(capsys):
    data = run_json(capsys, str(SCENARIOS / "cat_sat.yaml"))
    assert JSON_KEYS <= data.keys()
    assert data["tokens"] == ["the", "cat", "sat"]
    assert (data["d_k"], data["d_v"], data["causal"]) == (2, 2, True)
    assert data["divisor"] == math.sqrt(2)
    assert data["mask_value"] is None  # −∞ has no JSON literal
    assert data["masked"][0][1] is None and data["masked"][1][2] is None
    assert data["masked"][1][1] == 1 / math.sqrt(2)
    assert data["weights"][1][2] == 0.0
    assert len(data["diagnostics"]) == 3
    assert set(data["diagnostics"][2]) == {"max_weight", "entropy"}
    assert "variants" not in data


def test_json_is_full_float64_precision(capsys):
    data = run_json(capsys, "cat_sat")
    Q = np.array([[1, 0], [0, 1], [1, 1]], dtype=float)
    out, weights = chapter_attention(Q, Q.copy(), np.array([[1, 0], [0, 1], [0.5, 0.5]]))
    assert np.array(data["weights"]).tolist() == weights.tolist()  # every bit survives
    assert np.array(data["output"]).tolist() == out.tolist()
    w = weights[2]
    entropy = -sum(p * math.log(p) for p in w if p > 0)
    assert data["diagnostics"][2]["max_weight"] == w.max()
    assert data["diagnostics"][2]["entropy"] == pytest.approx(entropy, abs=1e-15)


def test_json_variants_have_the_same_keys(capsys):
    data = run_json(capsys, "scaled_vs_unscaled_t5")
    assert [v["name"] for v in data["variants"]] == ["scaled", "unscaled"]
    for variant in data["variants"]:
        assert JSON_KEYS - {"title", "tokens"} <= variant.keys()
    assert data["variants"][1]["divisor"] == 1
    assert data["variants"][0]["divisor"] == math.sqrt(8)


def test_json_finite_mask_value(write, capsys):
    path = write(
        "Q: [[1, 0], [0, 1]]\nK: [[1, 0], [0, 1]]\nV: [[1, 0], [0, 1]]\nmask_value: -1e9\n"
    )
    data = run_json(capsys, str(path))
    assert data["mask_value"] == -1e9
    assert data["masked"][0][1] is None


def test_print_walks_through_every_stage(capsys):
    assert main(["--print", "cat_sat"]) == 0
    out = capsys.readouterr().out
    for stage in (
        "Step 1 — Score",
        "Step 2 — Scale",
        "Step 3 — Mask",
        "Step 4 — Softmax",
        "Step 5 — Weighted sum",
    ):
        assert stage in out
    assert 'Row 3, "sat", step by step' in out
    assert "sum        = 8.169" in out
    assert '"sat" pays 25% attention to "the", 25% to "cat", and 50% to itself.' in out
    mask_rows = out.split("Step 3 — Mask")[1].splitlines()
    assert any(line.split() == ["cat", "0.000", "0.707", "−∞"] for line in mask_rows)


def test_print_rows(capsys):
    assert main(["--print", "cat_sat", "--row", "all"]) == 0
    out = capsys.readouterr().out
    assert all(f"Row {i}," in out for i in (1, 2, 3))
    assert main(["--print", "cat_sat", "--row", "cat"]) == 0
    assert 'Row 2, "cat"' in capsys.readouterr().out
    with pytest.raises(SystemExit) as caught:
        main(["--print", "cat_sat", "--row", "dog"])
    assert caught.value.code == 2


def test_print_of_variants_compares_largest_weights(capsys):
    assert main(["--print", "scaled_vs_unscaled_t5"]) == 0
    out = capsys.readouterr().out
    table = out.split("Variants: each row's largest weight")[1].splitlines()
    assert table[1].split() == ["scaled", "unscaled"]
    traces = compute_all(load(SCENARIOS / "scaled_vs_unscaled_t5.yaml"))
    first = table[2].split()
    assert first == [
        "t1",
        f"{traces['scaled'].max_weight[0]:.3f}",
        f"{traces['unscaled'].max_weight[0]:.3f}",
    ]


def test_list_names_every_builtin_with_its_title(capsys):
    assert main(["--list"]) == 0
    out = capsys.readouterr().out
    names = [line.split()[0] for line in out.splitlines()]
    assert names[:2] == ["cat_sat", "cat_sat_bidirectional"]
    assert sorted(names) == sorted(p.stem for p in SCENARIOS.glob("*.yaml"))
    assert "The cat sat" in out


def test_check_ok(capsys):
    assert main(["--check", "projections"]) == 0
    assert ": ok: Projections from X" in capsys.readouterr().out


def test_usage_errors_exit_2(capsys):
    for args in (
        ["--json"],
        ["--json", "--print", "cat_sat"],
        ["--row", "1", "cat_sat"],
        ["--bogus"],
    ):
        with pytest.raises(SystemExit) as caught:
            main(args)
        assert caught.value.code == 2, args
    capsys.readouterr()


def test_an_unknown_name(capsys):
    assert main(["--json", "cat_sta"]) == 2
    assert "no built-in scenario of that name" in capsys.readouterr().err


def test_an_internal_error_is_one_line_and_exit_3(capsys, monkeypatch):
    def broken(*args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr("attn_tui.core.outputs.json_export.json_chunks", broken)
    assert main(["--json", "cat_sat"]) == 3
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "internal error" in err and "Traceback" not in err
    assert main(["--json", "cat_sat", "--debug"]) == 3
    assert "Traceback" in capsys.readouterr().err


def test_version_and_help(capsys):
    for flag in ("--version", "--help"):
        with pytest.raises(SystemExit) as caught:
            main([flag])
        assert caught.value.code == 0
    out = capsys.readouterr().out
    assert f"attn-tui {__version__}" in out and "--json" in out


def test_a_real_process_exits_with_the_documented_status(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("Q: [[1, 2]]\nK: [[1]]\nV: [[1]]\n")

    def run(*args):
        return subprocess.run(
            [sys.executable, "-m", "attn_tui", *args], cwd=ROOT, capture_output=True, text=True
        )

    ok = run("--json", "cat_sat")
    assert ok.returncode == 0 and strict_json(ok.stdout)["title"] == "The cat sat"
    failed = run("--check", str(bad))
    assert failed.returncode == 2 and failed.stderr.startswith(f"{bad}:2:4: ")
    assert failed.stdout == ""


def test_builtins_are_found_by_name_from_anywhere(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["--check", "cat_sat"]) == 0
    assert cli.scenario_path("cat_sat.yaml") == str(SCENARIOS / "cat_sat.yaml")
    capsys.readouterr()


def test_a_scenario_error_stops_the_app_before_it_takes_the_terminal(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("Q: [[1]]\nK: [[1]]\nV: [[1]]\ncasual: false\n")
    result = subprocess.run(
        [sys.executable, "-m", "attn_tui", str(bad)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2
    assert (
        result.stderr
        == f"{bad}:4:1: unknown key 'casual' in the scenario; did you mean 'causal'?\n"
    )
    assert result.stdout == ""  # no escape codes: the terminal was never taken over


def test_a_builtin_by_name_or_by_path_opens_read_only_and_a_copy_does_not(monkeypatch, tmp_path):
    """README's first command opens scenarios/cat_sat.yaml: saving there must not rewrite the
    shipped file, so a built-in opened by its path is protected like one opened by name."""
    opened = []
    monkeypatch.setattr(
        cli_app, "start_app", lambda scenario, read_only=False, **_: opened.append(read_only) or 0
    )
    monkeypatch.chdir(tmp_path)
    assert main(["cat_sat"]) == 0
    assert main([str(SCENARIOS / "cat_sat.yaml")]) == 0
    (tmp_path / "mine.yaml").write_text((SCENARIOS / "cat_sat.yaml").read_text())
    assert main(["mine.yaml"]) == 0
    assert opened == [True, True, False]


def test_new_writes_a_template_that_checks_and_refuses_to_overwrite(tmp_path, capsys):
    path = tmp_path / "mine.yaml"
    assert main(["new", str(path), "--tokens", "the cat sat on the mat", "--d-k", "2"]) == 0
    assert "Wrote" in capsys.readouterr().out
    assert main(["--check", str(path)]) == 0
    scenario = load(path)
    assert scenario.tokens == ("the", "cat", "sat", "on", "the", "mat")
    assert scenario.Q.shape == (6, 2) and not scenario.Q.any()
    before = path.read_text()
    assert main(["new", str(path), "--tokens", "a b", "--d-k", "3"]) == 2
    assert "already exists; add --force" in capsys.readouterr().err
    assert path.read_text() == before
    assert (
        main(
            [
                "new",
                str(path),
                "--tokens",
                "a b",
                "--d-k",
                "3",
                "--d-v",
                "4",
                "--random",
                "7",
                "--force",
            ]
        )
        == 0
    )
    again = load(path)
    assert again.V.shape == (2, 4)
    rng = np.random.RandomState(7)
    assert again.Q.tolist() == np.round(rng.randn(2, 3), 2).tolist()


def test_new_refuses_bad_arguments(tmp_path, capsys):
    with pytest.raises(SystemExit) as caught:
        main(["new", str(tmp_path / "x.yaml"), "--tokens", "a", "--d-k", "0"])
    assert caught.value.code == 2
    with pytest.raises(SystemExit):
        main(["new", str(tmp_path / "x.yaml"), "--d-k", "2"])  # no tokens
    assert not (tmp_path / "x.yaml").exists()
    capsys.readouterr()


def test_markdown_prints_the_handout(capsys):
    assert main(["--markdown", "cat_sat", "--row", "cat"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("# The cat sat")
    softmax = out.split("Step 4 — Softmax")[1]
    assert re.search(r"\| sat +\| +0\.248 \| +0\.248 \| +0\.503 \|", softmax), softmax[:400]
    assert '"cat" pays 33% attention to "the" and 67% to itself, and 0% to the future.' in out


def test_row_by_a_token_that_appears_twice_is_ambiguous(write, capsys):
    path = write(
        "tokens: [the, cat, the]\nQ: [[1], [0], [1]]\nK: [[1], [0], [1]]\nV: [[1], [0], [1]]\n"
    )
    with pytest.raises(SystemExit) as caught:
        main(["--print", str(path), "--row", "the"])
    assert caught.value.code == 2 and "ambiguous" in capsys.readouterr().err


def test_a_learning_rate_that_overflows_is_refused_by_json_and_check_and_said_by_print_and_markdown(
    write, capsys
):
    """print and markdown show a scenario before any training step, so a learning rate
    whose first step overflows does not stop them; they say the steps are not taken (json and
    check take them and refuse it, with the lr's position)."""
    path = write(
        "tokens: [the, cat, sat]\nQ: [[1, 0], [0, 1], [1, 1]]\nK: [[1, 0], [0, 1], [1, 1]]\n"
        "V: [[1, 2], [3, 4], [5, 6]]\nloss: {target: [[0, 0], [0, 0], [0, 0]]}\n"
        "train: {learn: [Q, K, V], lr: 1e200, steps: 5}\n"
    )
    for command in ("json", "check"):
        assert main([command, str(path)]) == 2
        assert f"{path}:6:31: step 1 makes the loss overflow: lower lr" in capsys.readouterr().err
    for command in ("print", "markdown"):
        assert main([command, str(path)]) == 0
        out = capsys.readouterr().out
        assert (
            "Training: its 5 steps are not taken here; this is the scenario before any step." in out
        )
        assert "json and check take them" in out
    main(["print", str(SCENARIOS / "cat_sat.yaml")])  # (no train: section, no word of it)
    assert "Training:" not in capsys.readouterr().out
