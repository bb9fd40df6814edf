"""Every scenario error: exit status 2, FILE:LINE:COL, a message that says what is wrong."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tracemalloc

import pytest

from attn_tui.core import ScenarioError, load
from attn_tui.tui.cli import main
from tests.conftest import ROOT

QKV = "Q: [[1, 0], [0, 1]]\nK: [[1, 0], [0, 1]]\nV: [[1, 0], [0, 1]]\n"


def check(write, capsys, text, name="scenario.yaml"):
    path = write(text, name)
    status = main(["--check", str(path)])
    err = capsys.readouterr().err
    return status, err.strip(), path


CASES = [
    # (scenario text, line, column or None, fragment of the message)
    ("casual: true\n" + QKV, 1, 1, "unknown key 'casual' in the scenario; did you mean 'causal'?"),
    (QKV + "q: [[1]]\n", 4, 1, "unknown key 'q'"),
    (QKV + "Tokens: [a, b]\n", 4, 1, "did you mean 'tokens'?"),
    (
        "Q: [[1, 0], [0]]\nK: [[1, 0], [0, 1]]\nV: [[1, 0], [0, 1]]\n",
        1,
        13,
        "Q row 2 has 1 number but row 1 has 2",
    ),
    (
        "Q: [[1, 0], [0, abc]]\nK: [[1, 0], [0, 1]]\nV: [[1, 0], [0, 1]]\n",
        1,
        17,
        "Q row 2 column 2 is 'abc', not a number",
    ),
    (
        "Q: [[1, 0], [0, 1]]\nK: [[1, .nan], [0, 1]]\nV: [[1, 0], [0, 1]]\n",
        2,
        9,
        "K row 1 column 2 is .nan; numbers must be finite",
    ),
    (
        "Q: [[1, 0], [0, 1]]\nK: [[1, 0], [0, 1]]\nV: [[1, 0], [.inf, 1]]\n",
        3,
        14,
        "V row 2 column 1 is .inf; numbers must be finite",
    ),
    ("Q: [1, 0]\nK: [[1, 0]]\nV: [[1, 0]]\n", 1, 5, "Q row 1 is a number, not a list of numbers"),
    ("Q: 3\nK: [[1]]\nV: [[1]]\n", 1, 4, "Q must be a list of rows"),
    ("Q: []\nK: [[1]]\nV: [[1]]\n", 1, 4, "Q is empty"),
    (
        "Q: [[1, 0, 0], [0, 1, 0]]\n" + QKV[QKV.index("K") :],
        2,
        4,
        "K is 2×2 but Q is 2×3: queries and keys need the same width d_k",
    ),
    (
        "Q: [[1, 0], [0, 1]]\nK: [[1, 0], [0, 1], [1, 1]]\nV: [[1, 0], [0, 1]]\n",
        2,
        4,
        "K is 3×2 but Q is 2×2",
    ),
    (
        "Q: [[1, 0], [0, 1]]\nK: [[1, 0], [0, 1]]\nV: [[1, 0], [0, 1], [1, 1]]\n",
        3,
        4,
        "V is 3×2 but K is 2×2: one value row per key",
    ),
    (QKV + "tokens: [a, b, c]\n", 4, 9, "tokens has 3 entries but Q has 2 rows"),
    (QKV + "tokens: [a, ~]\n", 4, 13, "token 2 is empty"),
    (QKV + "tokens: [a, '  ']\n", 4, 13, "token 2 is empty"),
    (QKV + "scale: 0\n", 4, 8, "scale must be positive"),
    (QKV + "scale: -2\n", 4, 8, "scale must be positive"),
    (QKV + "scale: maybe\n", 4, 8, "scale must be true"),
    (QKV + "mask_value: 0\n", 4, 13, "mask_value must be negative"),
    (QKV + "mask_value: 5\n", 4, 13, "mask_value must be negative"),
    (
        QKV + "mask_value: .inf\n",
        4,
        13,
        "mask_value must be -.inf or a negative number such as -1e9, not '.inf'",
    ),
    (QKV + "causal: 2\n", 4, 9, "causal must be true or false"),
    (QKV + "focus: dog\n", 4, 8, "focus 'dog' is not one of the tokens"),
    (QKV + "tokens: [the, cat]\nfocus: cta\n", 5, 8, "did you mean 'cat'?"),
    (QKV + "tokens: [the, the]\nfocus: the\n", 5, 8, "focus 'the' is ambiguous"),
    (QKV + "focus: 3\n", 4, 8, "focus must be from 1 to 2"),
    (QKV + "precision: 99\n", 4, 12, "precision must be from 0 to 12"),
    ("Q: [[1]]\nK: [[1]]\n", 1, 1, "missing V (Q, K given)"),
    (QKV + "X: [[1]]\n", 4, 1, "X cannot be combined with Q"),
    ("title: nothing\n", 1, 1, "no input matrices"),
    (
        "X: [[1, 0]]\nWq: [[1], [0], [0]]\nWk: [[1], [0]]\nWv: [[1], [0]]\n",
        2,
        5,
        "Wq is 3×1 but X is 1×2",
    ),
    ("random: {seed: 0, T: 5}\n", 1, 9, "random needs d_k"),
    ("random: {seed: -1, T: 5, d_k: 2}\n", 1, 16, "random seed must be from 0"),
    (
        "random: {seed: 0, T: 5, d_k: 2, dk: 3}\n",
        1,
        33,
        "unknown key 'dk' in random; did you mean 'd_k'?",
    ),
    (QKV + "variants: [{name: a}, {name: a}]\n", 4, 30, "two variants are named 'a'"),
    (QKV + "variants: [{scale: false}]\n", 4, 12, "variant 1 needs a name"),
    (QKV + "variants: [{name: u, scael: false}]\n", 4, 22, "did you mean 'scale'?"),
    (QKV + "variants: {name: u}\n", 4, 11, "variants must be a list"),
    (
        "Q: [[1]]\nK: [[1]]\nV: [[1]]\nQ: [[2]]\n",
        4,
        1,
        "'Q' appears twice in the scenario: first on line 1, again on line 4",
    ),
    (
        "Q: !!python/object/apply:os.system [echo hacked]\nK: [[1]]\nV: [[1]]\n",
        1,
        4,
        "the tag !!python/object/apply:os.system is not allowed",
    ),
    ("Q: [[1, 0]\nK: [[1]]\n", 2, 1, "not valid YAML: did not find expected ',' or ']'"),
    ("Q:\n  - [1]\n - [2]\n", 3, 2, "not valid YAML"),
    ("- 1\n- 2\n", 1, 1, "a scenario is a mapping of keys"),
    ("just some words\n", 1, 1, "a scenario is a mapping of keys"),
    ("", 1, 1, "the file is empty"),
    ("# only a comment\n", 1, 1, "the file is empty"),
    ("Q: [[1e200]]\nK: [[1e200]]\nV: [[1]]\n", 1, 1, "overflows float64"),
    ("Q: [[1]]\nK: [[1]]\nV: [[1]]\n---\nQ: [[2]]\n", 4, 1, "one YAML document"),
]


@pytest.mark.parametrize("text,line,col,fragment", CASES, ids=[c[3][:40] for c in CASES])
def test_a_scenario_error_names_file_line_column_and_what_is_wrong(
    write, capsys, text, line, col, fragment
):
    status, err, path = check(write, capsys, text)
    assert status == 2
    assert err.startswith(f"{path}:{line}:{col}: "), err
    assert fragment in err
    assert "Traceback" not in err and "\n" not in err


def test_a_valid_scenario_checks_ok(write, capsys):
    path = write(QKV + "tokens: [a, b]\nmask_value: -1e9\nscale: 4\nfocus: a\nprecision: 2\n")
    assert main(["--check", str(path)]) == 0
    assert "ok" in capsys.readouterr().out


@pytest.mark.parametrize(
    "setup,fragment",
    [
        (lambda tmp: str(tmp / "missing.yaml"), "no such file"),
        (lambda tmp: str(tmp), "is a directory"),
    ],
)
def test_file_problems(tmp_path, capsys, setup, fragment):
    path = setup(tmp_path)
    assert main(["--check", path]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"{path}: ") and fragment in err


def test_an_unreadable_file(write, capsys, monkeypatch):
    path = write(QKV)
    real_open = open

    def refuse(file, *args, **kwargs):
        if str(file) == str(path):
            raise PermissionError(13, "Permission denied")
        return real_open(file, *args, **kwargs)

    monkeypatch.setattr("builtins.open", refuse)
    assert main(["--check", str(path)]) == 2
    assert "permission denied" in capsys.readouterr().err


def test_a_binary_file(write, capsys):
    path = write(b"Q: [[1]]\n\x89PNG\x00\xff\xfe")
    assert main(["--check", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"{path}:2:") and "not a text file" in err


def test_a_bad_byte_after_non_ascii_text_is_placed_in_characters(write, capsys):
    path = write("title: é\xff\n".encode("latin-1").replace(b"\xe9", "é".encode()))
    assert main(["--check", str(path)]) == 2
    assert capsys.readouterr().err.startswith(f"{path}:1:9: not a text file")


def test_binary_bytes_behind_a_utf16_mark_are_not_text(write, capsys):
    path = write(b"\xff\xfe" + bytes(range(1, 200)))
    assert main(["--check", str(path)]) == 2
    assert "not a text file" in capsys.readouterr().err


def test_a_control_character(write, capsys):
    path = write("title: a\x07b\n" + QKV)
    assert main(["--check", str(path)]) == 2
    assert f"{path}:1:" in capsys.readouterr().err


def test_anchors_and_aliases_work(write):
    scenario = load(
        write(
            "Q: &qk [[1, 0], [0, 1]]\nK: *qk\nV: [[1, 0], [0, 1]]\n"
            "variants:\n  - &v {name: one, scale: false}\n  - {<<: *v, name: two}\n"
        )
    )
    assert scenario.K.tolist() == [[1, 0], [0, 1]]
    assert [v.name for v in scenario.variants] == ["one", "two"]
    assert scenario.variants[1].options(scenario.options).scale is False
    assert scenario.variants[1].causal is None  # not set: follows the scenario


def test_yaml_1_1_numbers_and_text_tokens(write):
    scenario = load(
        write(
            "tokens: [on, 'no', 1]\nQ: [[1e3, 1_000], [0x10, -.5], [1e-3, 2]]\n"
            "K: [[1, 0], [0, 1], [1, 1]]\nV: [[1], [2], [3]]\nfocus: 'on'\n"
        )
    )
    assert scenario.tokens == ("on", "no", "1")
    assert scenario.Q.tolist() == [[1000, 1000], [16, -0.5], [0.001, 2]]
    assert scenario.focus == 0


def test_a_scenario_without_a_title_or_file_is_untitled():
    from attn_tui.core import loads

    assert loads(QKV).title == "Untitled scenario"


def test_tokens_may_be_one_string(write):
    scenario = load(write("tokens: the cat\n" + QKV))
    assert scenario.tokens == ("the", "cat")


ALIAS_BOMB = (
    "Q: ["
    + ", ".join(
        [f"&a0 [{', '.join(['1'] * 10)}]"]
        + [f"&a{i} [{', '.join([f'*a{i - 1}'] * 10)}]" for i in range(1, 10)]
    )
    + "]\nK: *a9\nV: *a9\n"
)


def test_an_alias_bomb_is_refused_with_little_memory(write, capsys):
    """(Its time is measured by benchmarks/limits.py, not asserted here.)"""
    path = write(ALIAS_BOMB)
    tracemalloc.start()
    status = main(["--check", str(path)])
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    err = capsys.readouterr().err
    assert status == 2 and f"{path}:1:" in err
    assert peak < 20 * 2**20, peak


def test_too_many_numbers_is_refused_before_anything_is_built(write, capsys):
    row = "[" + ", ".join(["1"] * 1000) + "]"
    path = write(f"Q: &m [&r {row}" + ", *r" * 1999 + "]\nK: *m\nV: *m\n")
    assert main(["--check", str(path)]) == 2
    # Q holds 2,000,000 values; K: *m stands for as many again and takes the count past 4,000,000
    assert (
        f"{path}:2:4: too large: more than 4,000,000 YAML values, counting what each alias "
        "stands for" in capsys.readouterr().err
    )


def test_too_many_tokens(write, capsys):
    path = write("random: {seed: 0, T: 16385, d_k: 2}\n")
    assert main(["--check", str(path)]) == 2
    assert "random T must be from 1 to 16384" in capsys.readouterr().err


def test_deep_nesting_is_an_error_not_a_crash(write, capsys):
    path = write("Q: " + "[" * 5000 + "]" * 5000 + "\n")
    assert main(["--check", str(path)]) == 2
    assert "nest" in capsys.readouterr().err  # libyaml's own limit or ours, both with a position


def test_a_python_tag_is_never_executed(tmp_path):
    marker = tmp_path / "executed"
    path = tmp_path / "evil.yaml"
    path.write_text(f"Q: !!python/object/apply:os.system ['touch {marker}']\nK: [[1]]\nV: [[1]]\n")
    result = subprocess.run(
        [sys.executable, "-m", "attn_tui", "--check", str(path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 2 and not marker.exists()
    assert "Traceback" not in result.stderr


def test_errors_carry_positions_in_the_api_too(write):
    with pytest.raises(ScenarioError) as caught:
        load(write("Q: [[1, x]]\nK: [[1, 1]]\nV: [[1]]\n"))
    assert (caught.value.line, caught.value.col) == (1, 9)
    assert re.match(r".*scenario\.yaml:1:9: ", str(caught.value))
    assert os.path.basename(caught.value.path) == "scenario.yaml"
