"""What people tripped over, at the edges of the format and of the arithmetic: each
test failed before its fix. Derived numbers count against the limit; --print --row computes
one row; a leaky finite mask value is said (app, --print, --check) and tiny exponentials read
in scientific notation; masks take 1.0/0.0; every unknown key is reported; a file that says
heads: is read per head by --json; an overflow points at the input it comes from."""

from __future__ import annotations

import json
import resource
import subprocess
import sys

import numpy as np
import pytest

from attn_tui.core import ScenarioError, loads
from attn_tui.core.outputs.json_export import to_json
from attn_tui.core.outputs.report import to_text
from attn_tui.tui.cli import main
from tests.conftest import ROOT

LEAKY = """\
tokens: [a, b, c]
Q: [[-10, 0], [0, 10], [1, 1]]
K: [[10, 0], [0, 10], [1, 1]]
V: [[1, 0], [0, 1], [0.5, 0.5]]
mask_value: -10
"""


def test_what_attention_derives_counts_against_the_limit(tmp_path):
    """A 230 KB archive (X 16,384 × 1, W's 1 × 4,096, 64 heads) derives 200 million numbers:
    refused at once, naming what it derives, in little memory."""
    np.savez(
        tmp_path / "bomb.npz",
        X=np.ones((16384, 1)),
        Wq=np.ones((1, 4096)),
        Wk=np.ones((1, 4096)),
        Wv=np.ones((1, 4096)),
    )
    (tmp_path / "bomb.yaml").write_text("npz: bomb.npz\nheads: 64\n")
    for flags in (["--check"], ["--print", "--row", "1"]):
        code = (
            "import resource, sys; from attn_tui.tui.cli import main; sys.exit(main(sys.argv[1:]))"
        )
        result = subprocess.run(
            [sys.executable, "-c", code, *flags, str(tmp_path / "bomb.yaml")],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=60,
            preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30)),
        )
        assert result.returncode == 2, result.stderr
        assert (
            "bomb.yaml:2:1: too many numbers: the inputs (28,672) and what attention derives "
            "from them (Q, K, V = X·W of 64 heads (201,326,592))" in result.stderr
        )


def test_rope_s_turned_copies_count_too():
    rows = "[" + ", ".join(["[0.5, 0.5]"] * 4) + "]"
    text = f"tokens: [a, b, c, d]\nQ: {rows}\nK: {rows}\nV: {rows}\nrope: {{base: 10000}}\n"
    loads(text)  # small: fine
    from attn_tui.core.loading import scenario_file

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(scenario_file, "MAX_NUMBERS", 30)  # 24 given + 16 turned
        with pytest.raises(ScenarioError, match="Q and K turned by RoPE"):
            loads(text)


def test_print_with_a_row_prints_that_row_of_every_stage():
    text = to_text(loads(LEAKY), rows=[1])
    table = text[text.index("Step 4 — Softmax") : text.index("Step 5")]
    assert [line.split()[0] for line in table.strip().split("\n")[2:]] == [
        "b"
    ]  # no row a, no row c
    assert 'Row 2, "b", step by step' in text


def test_a_leaky_mask_value_is_said_and_tiny_exps_read_with_their_exponent():
    text = to_text(loads(LEAKY), rows=[0])
    assert "exp(−70.711) = 1.953e−31" in text  # not 0.000
    assert "weights = [1.953e−31/9.080e−5, 4.540e−5/9.080e−5, 4.540e−5/9.080e−5]" in text
    assert (
        'The hidden keys take 100% of "a"\'s weight: the mask value −10 is not far below its '
        "visible scores (the largest −70.711)"
    ) in text
    assert "0.000/0.000" not in text and "0.000/1.000" not in text


def test_check_says_a_mask_leaked(tmp_path, capsys):
    path = tmp_path / "leaky.yaml"
    path.write_text(LEAKY)
    assert main(["--check", str(path)]) == 0
    out = capsys.readouterr().out
    assert 'warning: mask_value −10 lets hidden keys take weight: 100% of row 1 ("a")' in out
    path.write_text(LEAKY.replace("mask_value: -10", "mask_value: -1e9"))
    assert main(["--check", str(path)]) == 0
    assert "warning" not in capsys.readouterr().out  # exp(−1e9) is exactly 0: nothing leaks


async def test_the_app_says_a_mask_leaked():
    from attn_tui.tui.app import AttnApp

    app = AttnApp(loads(LEAKY, "leaky.yaml"), remember=False)
    async with app.run_test(size=(120, 40)) as pilot:
        for _ in range(50):
            await pilot.pause(0.05)
            if app._notifications:
                break
        said = [notification.message for notification in app._notifications]
        assert any(
            "lets hidden keys take weight: 100% of row 1" in str(message) for message in said
        ), said


def test_a_mask_and_padding_take_numbers_that_are_exactly_0_or_1():
    base = "tokens: [a, b]\nQ: [[1], [1]]\nK: [[1], [1]]\nV: [[1], [1]]\n"
    scenario = loads(base + "padding: [0.0, 1.0]\nmask: [[1.0, 0], [1, 1e0]]\n")
    assert scenario.padding == (False, True) and scenario.mask.tolist() == [
        [True, False],
        [True, True],
    ]
    with pytest.raises(ScenarioError, match=r"padding 1 must be 0 or 1 .*not '0.5'"):
        loads(base + "padding: [0.5, 1.0]\n")
    with pytest.raises(ScenarioError, match="quoted text"):
        loads(base + 'padding: ["1", 0]\n')


def test_every_unknown_key_is_reported_each_at_its_line(tmp_path, capsys):
    text = (
        "tokens: [a]\ncasual: true\nQ: [[1]]\nK: [[1]]\nV: [[1]]\nfocuss: a\n"
        "variants:\n  - {name: x, scael: false}\nrope: {bass: 3}\n"
    )
    path = tmp_path / "typos.yaml"
    path.write_text(text)
    assert main(["--check", str(path)]) == 2
    lines = capsys.readouterr().err.strip().split("\n")
    assert lines == [
        f"{path}:2:1: unknown key 'casual' in the scenario; did you mean 'causal'?",
        f"{path}:6:1: unknown key 'focuss' in the scenario; did you mean 'focus'?",
        f"{path}:8:15: unknown key 'scael' in variant 1; did you mean 'scale'?",
        f"{path}:9:8: unknown key 'bass' in rope; did you mean 'base'?",
    ]


def test_a_file_that_says_heads_gets_the_per_head_json_whatever_the_count():
    base = "tokens: [a, b]\nQ: [[1], [1]]\nK: [[1], [0]]\nV: [[2], [3]]\n"
    one = to_json(loads("heads: 1\n" + base))
    assert [head["name"] for head in one["heads"]] == ["head 1"]
    assert one["output"] == one["heads"][0]["output"] and "weights" not in one
    assert "heads" not in to_json(loads(base))  # without heads: the single-head shape, as before
    assert json.loads(json.dumps(one))  # strict JSON


@pytest.mark.parametrize(
    "text, where",
    [
        ("tokens: [a]\nQ: [[1]]\nK: [[1]]\nV: [[1e308]]\n", (4, 1)),
        ("tokens: [a]\nX: [[1e200]]\nWq: [[1]]\nWk: [[1]]\nWv: [[1e200]]\n", (5, 1)),
        ("tokens: [a]\nQ: [[1]]\nK: [[1]]\nV: [[1]]\nWo: [[1e308]]\nbo: [1e308]\n", (5, 1)),
    ],
    ids=["V", "Wv", "Wo"],
)
def test_an_overflow_points_at_the_input_it_comes_from(text, where):
    with pytest.raises(ScenarioError) as caught:
        loads(text)
    assert (caught.value.line, caught.value.col) == where, str(caught.value)
