"""The new-scenario template: it loads as it stands, gives back the very tokens it was given,
holds zeros or exactly the seeded numbers, and comments every key it writes."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from attn_tui.core.loading.scenario_file import check_text, loads
from attn_tui.core.model.template import scenario_template

AWKWARD = [
    "on",
    "1",
    "a: b",
    "#x",
    "the",
    "the",
    "yes",
    "No",
    "null",
    "~",
    "true",
    "1e9",
    "0x1F",
    "1_000",
    "12:30",
    ".inf",
    "-",
    "[a]",
    "a,b",
    "{",
    "'q'",
    '"q"',
    " lead",
    "trail ",
    "a #b",
    "&anchor",
    "*alias",
    "!tag",
    "%d",
    "@e",
    "`x`",
    "?",
    "|",
    ">",
    "<<",
    "=",
    "y",
    "N",
    "é",
    "猫",
    "🐱",
    "a\tb",
    "two\nlines",
    "x\x7fy",
    "nel\x85",
    "ls\u2028",
]
TOP_KEYS = [
    "title",
    "description",
    "tokens",
    "Q",
    "K",
    "V",
    "causal",
    "scale",
    "mask_value",
    "focus",
    "precision",
]


def seeded(seed: int, T: int, d_k: int, d_v: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The article's recipe, as written: np.random.seed, then randn three times; rounded."""
    state = np.random.get_state()
    try:
        np.random.seed(seed)
        Q = np.random.randn(T, d_k)
        K = np.random.randn(T, d_k)
        V = np.random.randn(T, d_v)
    finally:
        np.random.set_state(state)
    return np.round(Q, 2), np.round(K, 2), np.round(V, 2)


@pytest.mark.parametrize("tokens", [["the", "cat", "sat"], ["x"], AWKWARD, AWKWARD[::-1]])
def test_the_template_loads_with_the_same_tokens_and_zeros(tokens):
    text = scenario_template(tokens, 2)
    scenario = loads(text, "new.yaml")
    assert list(scenario.tokens) == tokens
    T = len(tokens)
    assert scenario.Q.shape == (T, 2) and scenario.K.shape == (T, 2) and scenario.V.shape == (T, 2)
    for name in "QKV":
        assert not scenario.matrix(name).any()
    checked = check_text(text, "new.yaml")
    assert list(checked.tokens) == tokens and (checked.T, checked.d_k, checked.d_v) == (T, 2, 2)
    # the defaults a teacher would expect: causal, ÷√d_k, −∞, 3 decimals, the last row in focus
    assert (scenario.options.causal, scenario.options.scale) == (True, True)
    assert scenario.options.mask_value == -math.inf
    assert scenario.precision == 3 and scenario.focus == T - 1
    assert scenario.variants == ()


def test_d_v_may_differ_and_defaults_to_d_k():
    scenario = loads(scenario_template(["a", "b", "c", "d"], 3, 5), "new.yaml")
    assert (scenario.Q.shape, scenario.K.shape, scenario.V.shape) == ((4, 3), (4, 3), (4, 5))
    assert loads(scenario_template(["a"], 7), "new.yaml").V.shape == (1, 7)


@pytest.mark.parametrize(
    "seed, tokens, d_k, d_v",
    [
        (0, ["the", "cat", "sat"], 2, None),
        (0, ["t1", "t2", "t3", "t4", "t5"], 8, 8),
        (42, AWKWARD, 3, 1),
        (2**32 - 1, ["a", "b"], 4, 6),
    ],
)
def test_a_seed_gives_exactly_the_articles_random_numbers_rounded(seed, tokens, d_k, d_v):
    text = scenario_template(tokens, d_k, d_v, seed=seed)
    scenario = loads(text, "new.yaml")
    Q, K, V = seeded(seed, len(tokens), d_k, d_v or d_k)
    assert (
        np.array_equal(scenario.Q, Q)
        and np.array_equal(scenario.K, K)
        and np.array_equal(scenario.V, V)
    )
    assert scenario.Q.any()
    assert f"np.random.seed({seed})" in text and "rounded to 2 decimals" in text
    assert "-0.00" not in text  # a number that rounds to zero reads 0.00


def test_the_first_seeded_rows_read_as_the_article_prints_them():
    text = scenario_template(["the", "cat", "sat"], 2, 4, seed=0)
    # np.random.seed(0); randn: 1.764, 0.400, 0.979, 2.241, 1.868, -0.977, ...
    assert re.search(r"^  - \[ *1\.76, +0\.40\] +# the$", text, flags=re.M)
    assert re.search(r"^  - \[ *0\.98, +2\.24\] +# cat$", text, flags=re.M)
    assert re.search(r"^  - \[ *1\.87, +-0\.98\] +# sat$", text, flags=re.M)
    assert "rounded" not in scenario_template(["the", "cat", "sat"], 2)


def test_every_top_level_key_is_commented_and_the_top_says_how_to_open_it():
    text = scenario_template(["the", "cat", "sat"], 2, seed=1)
    lines = text.split("\n")
    assert lines[0].startswith("# ")
    assert re.search(r"^#.*attn-tui \S+", text, flags=re.M)  # how to open it
    assert "attn-tui new" in text
    keys = []
    for number, line in enumerate(lines):
        match = re.match(r"([A-Za-z_]\w*):", line)
        if match:
            keys.append(match.group(1))
            commented = " #" in line or lines[number - 1].startswith("#")
            assert commented, f"{match.group(1)} has no comment: {line!r}"
    assert keys == TOP_KEYS
    assert yaml.safe_load(text).keys() == set(TOP_KEYS)


def test_each_matrix_row_names_its_token_in_a_comment():
    text = scenario_template(AWKWARD, 2)
    rows = [line for line in text.split("\n") if line.startswith("  - [")]
    assert len(rows) == 3 * len(AWKWARD)
    named = [yaml.safe_load(line.split("   # ", 1)[1]) for line in rows]
    assert named == AWKWARD * 3


def test_the_commented_variants_work_when_uncommented():
    text = scenario_template(["the", "cat", "sat"], 2, seed=0)
    block = re.search(r"^# variants:\n(?:#   .*\n)+", text, flags=re.M).group()
    uncommented = text.replace(block, "\n".join(line[2:] for line in block.splitlines()) + "\n")
    scenario = loads(uncommented, "new.yaml")
    assert [variant.name for variant in scenario.variants] == ["scaled", "unscaled"]
    assert [variant.scale for variant in scenario.variants] == [True, False]


def test_the_commented_predict_works_when_uncommented():
    text = scenario_template(["the", "cat", "sat"], 2)
    assert loads(
        text.replace("# predict: [weights]", "predict: [weights]"), "new.yaml"
    ).predict == ("weights",)


def test_a_repeated_last_token_is_focused_by_row_number():
    scenario = loads(scenario_template(["the", "cat", "the"], 2), "new.yaml")
    assert scenario.focus == 2
    assert (
        loads(scenario_template(["a", "1"], 2), "new.yaml").focus == 1
    )  # "1" the token, not row 1


@pytest.mark.parametrize(
    "arguments, message",
    [
        (([], 2), "at least one token"),
        (("the cat sat", 2), "list of strings"),
        ((["the", ""], 2), "token 2"),
        ((["the", "  "], 2), "token 2"),
        ((["the", 3], 2), "token 2 must be a string"),
        ((["a"], 0), "d_k must be from 1 to 4096"),
        ((["a"], 4097), "d_k must be from 1 to 4096"),
        ((["a"], 2.0), "d_k must be a whole number"),
        ((["a"], True), "d_k must be a whole number"),
        ((["a"], 2, 0), "d_v must be from 1 to 4096"),
        ((["a"], 2, 5000), "d_v must be from 1 to 4096"),
        (([f"t{i}" for i in range(16_385)], 1), "16,385 tokens; a scenario has at most 16,384"),
        (([f"t{i}" for i in range(4096)], 4096), "too many numbers"),
        ((["a"], 2, None, -1), "seed"),
        ((["a"], 2, None, 2**32), "seed"),
        ((["a"], 2, None, "0"), "seed"),
        ((["a", "\ud800"], 2), "token 2"),
    ],
)
def test_bad_arguments_raise_a_clear_value_error(arguments, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        scenario_template(*arguments)


def test_the_limits_themselves_are_allowed():
    text = scenario_template([f"t{i}" for i in range(4096)], 1)
    assert loads(text, "big.yaml").T == 4096
    assert loads(scenario_template(["a"], 4096, 4096), "wide.yaml").d_v == 4096


@settings(max_examples=150)
@given(st.lists(st.text(min_size=1, max_size=8).filter(str.strip), min_size=1, max_size=6))
def test_any_tokens_come_back_unchanged(tokens):
    scenario = loads(scenario_template(tokens, 1), "new.yaml")
    assert list(scenario.tokens) == tokens
