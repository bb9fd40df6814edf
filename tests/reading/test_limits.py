"""Size limits hold while a file is read, before memory grows, counting what aliases stand for.

A refused file is refused where it passes a limit (the error's line says how far the reader
got), and its peak memory stays far below 200 MB. How long refusing takes is measured in
``benchmarks/limits.py``, not asserted here.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tracemalloc

import pytest

from attn_tui.core import ScenarioError, load, loads
from attn_tui.core import limits as options  # (the limits a scenario may reach)
from attn_tui.core.files import yaml_source
from attn_tui.core.loading.scenario_file import check_text
from attn_tui.core.model.template import scenario_template
from tests.conftest import ROOT

MEMORY_LIMIT = 200 * 2**20


def refused(text: str) -> tuple[ScenarioError, int]:
    """The error loading ``text`` gives, and the peak memory Python allocated on the way."""
    tracemalloc.start()
    try:
        with pytest.raises(ScenarioError) as caught:
            loads(text, "bomb.yaml")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return caught.value, peak


def rows_of(value: str, count: int, width: int) -> str:
    """``count`` block rows of ``width`` values, one row a line."""
    return ("  - [" + ", ".join([value] * width) + "]\n") * count


def test_an_alias_bomb_in_expect_is_refused_where_it_passes_the_limit():
    """60 KB that stood for 50 M numbers: aliased expect: rows were expanded cell by cell."""
    T = 4096
    column = "[" + ", ".join(["[1]"] * T) + "]"
    row = "[" + ", ".join(["0"] * T) + "]"
    text = (
        f"Q: &c {column}\nK: *c\nV: *c\n"
        f"expect:\n  scores: &e [&r {row}" + ", *r" * (T - 1) + "]\n  scaled: *e\n  weights: *e\n"
    )
    error, peak = refused(text)
    assert error.line == 5 and "counting what each alias stands for" in error.message
    # the mapping, Q's column and K, V standing for as much; expect, scores, the list, the row
    before = 1 + 3 * (2 + 2 * T) + 4 + (1 + T)
    aliases = (options.MAX_YAML_EXPANDED - before) // (T + 1) + 1  # the one that passes the limit
    stars = [match.start() + 1 for match in re.finditer(r"\*r", text.splitlines()[4])]
    assert error.col == stars[aliases - 1] and aliases < len(stars) // 4
    assert peak < 20 * 2**20, f"{peak / 2**20:.0f} MB"


def test_a_token_alias_bomb_is_refused_at_the_first_token():
    """295 KB whose tokens stood for 1 G characters: --json wrote 1.6 GB of them."""
    column = "[" + ", ".join(["[1]"] * 4096) + "]"
    text = f'tokens: [&t "{"a" * 262_144}"' + ", *t" * 4095 + f"]\nQ: &c {column}\nK: *c\nV: *c\n"
    error, peak = refused(text)
    assert (error.line, error.col) == (1, 10)
    assert error.message == "token 1 is 262,144 characters long; at most 256"
    assert peak < 20 * 2**20


LONG_TITLE = "x" * 1001


@pytest.mark.parametrize(
    "text, where, fragment",
    [
        (f"title: {LONG_TITLE}\n", (1, 8), "title is 1,001 characters long; at most 1,000"),
        (f"description: &t {LONG_TITLE}\ntitle: *t\n", (2, 8), "title is 1,001 characters long"),
        ('tokens: "a ' + "b" * 257 + '"\n', (1, 9), "token 2 is 257 characters long; at most 256"),
        (
            "variants: [{name: " + "v" * 257 + "}]\n",
            (1, 19),
            "a variant's name is 257 characters long",
        ),
        (
            "description: " + "d" * 100_001 + "\n",
            (1, 14),
            "description is 100,001 characters long; at most 100,000",
        ),
    ],
    ids=["title", "title-through-an-alias", "token", "variant-name", "description"],
)
def test_every_text_has_a_length_limit_aliases_included(text, where, fragment):
    rows = "[[1], [1]]" if text.startswith("tokens") else "[[1]]"
    error, _ = refused(text + f"Q: {rows}\nK: {rows}\nV: {rows}\n")
    assert fragment in error.message and (error.line, error.col) == where, str(error)


def test_tokens_as_one_string_are_split_no_further_than_the_limit(monkeypatch):
    monkeypatch.setattr("attn_tui.core.reading.labels.MAX_T", 3)
    error, _ = refused(
        "tokens: a b c d e f g h\nQ: [[1], [1], [1]]\nK: [[1], [1], [1]]\nV: [[1], [1], [1]]\n"
    )
    assert error.message == "more than 3 tokens"


def test_the_written_value_limit_is_exact(monkeypatch):
    """At the limit a file loads; one value more is refused at that value."""
    text = "Q: [[1, 2]]\nK: [[3, 4]]\nV: [[5, 6]]\n"  # the mapping + 3 × (key, 2 lists, 2 numbers)
    monkeypatch.setattr(yaml_source, "MAX_YAML_NODES", 16)
    assert loads(text).V.tolist() == [[5.0, 6.0]]
    monkeypatch.setattr(yaml_source, "MAX_YAML_NODES", 15)
    error, _ = refused(text)
    assert (error.line, error.col) == (
        3,
        9,
    ) and "more than 15 YAML values written out" in error.message


def test_the_expanded_value_limit_counts_what_aliases_stand_for(monkeypatch):
    text = "Q: &m [[1, 2]]\nK: *m\nV: *m\n"  # the mapping, 3 keys, 4 values in Q and 4 per alias
    monkeypatch.setattr(yaml_source, "MAX_YAML_EXPANDED", 16)
    assert loads(text).K.tolist() == [[1.0, 2.0]]
    monkeypatch.setattr(yaml_source, "MAX_YAML_EXPANDED", 15)
    error, _ = refused(text)
    assert (error.line, error.col) == (
        3,
        4,
    ) and "counting what each alias stands for" in error.message


def test_an_alias_inside_its_own_anchor_is_a_cycle():
    error, _ = refused("Q: &a [[1], *a]\nK: [[1]]\nV: [[1]]\n")
    assert (error.line, error.col) == (1, 13) and "a cycle" in error.message


# The peak is this process's own (VmHWM): getrusage's ru_maxrss would start from the size of
# the process that forked it, here the whole test run.
REFUSE_8MB = """
import sys
from attn_tui.core import ScenarioError
from attn_tui.core import load
try:
    load(sys.argv[1])
except ScenarioError as error:
    print(error.line, error.message)
with open("/proc/self/status") as status:
    print(next(line.split()[1] for line in status if line.startswith("VmHWM:")))
"""


@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="reads the peak from /proc")
def test_an_8mb_file_of_4_million_numbers_is_refused_early_and_small(tmp_path):
    """It took 45 s and 1.1 GB to be refused, after every number was read."""
    path = tmp_path / "big.yaml"
    path.write_text("Q:\n" + rows_of("0", 4001, 1000) + "K: [[1]]\nV: [[1]]\n")
    assert 8_000_000 < os.path.getsize(path) < options.MAX_FILE_BYTES
    done = subprocess.run(
        [sys.executable, "-c", REFUSE_8MB, str(path)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    refusal, max_rss_kb = done.stdout.splitlines()
    # "Q:" is line 1; each row holds 1,001 values: the 500,001st is in row 500, on line 501
    assert (
        refusal == "501 too large: more than 500,000 YAML values written out (keep big matrices "
        "in .npy files)"
    ), done.stdout + done.stderr
    assert int(max_rss_kb) * 1024 < MEMORY_LIMIT, f"{int(max_rss_kb) / 1024:.0f} MB"


def test_a_file_past_the_byte_limit_is_refused_by_its_size(tmp_path):
    path = tmp_path / "big.yaml"
    with open(path, "wb") as file:
        file.truncate(options.MAX_FILE_BYTES + 1)  # sparse: nothing written, nothing to read
    with pytest.raises(ScenarioError) as caught:
        load(path)
    assert caught.value.message == (
        "too large for a scenario (16,777,217 bytes; at most 16,777,216); "
        "keep big matrices in .npy files"
    )


def test_new_writes_no_more_than_a_yaml_file_may_hold(monkeypatch):
    with pytest.raises(ValueError, match="a YAML file holds at most 500,000 values"):
        scenario_template([f"t{i}" for i in range(16_384)], 9)
    # the bound new checks against is what the file really holds: it loads under exactly that
    tokens, d_k = [f"t{i}" for i in range(50)], 3
    monkeypatch.setattr(yaml_source, "MAX_YAML_NODES", 50 * 3 * d_k + 4 * 50 + 64)
    assert check_text(scenario_template(tokens, d_k)).T == 50


def test_products_that_overflow_and_cancel_are_refused_not_computed_to_nan():
    """Found by the fuzzer: q·k = 2x − 2x with x = 9e307 is inf − inf, NaN, which max() lost,
    so the scenario loaded and its scores were NaN."""
    from attn_tui.core import loads
    from attn_tui.core.errors import ScenarioError

    text = (
        "Q:\n  - [0, 0, 2, -2]\nK:\n  - [8.98846567431158e+307, 8.98846567431158e+307, "
        "8.98846567431158e+307, 8.98846567431158e+307]\nV:\n  - [0]\n"
    )
    with pytest.raises(ScenarioError, match="overflows float64"):
        loads(text, "edge.yaml")
