"""The loader's memory on the nastiest inputs: alias bombs, deep nesting, huge numbers and
keys, and inputs within the limits that were once slow or big, each loaded within 200 MB to a
scenario or a located error. Their time is ``python benchmarks/limits.py``'s, which loads these
same documents."""

from __future__ import annotations

import gc
import importlib
import re
import tracemalloc

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attn_tui.core import ScenarioError, loads
from tests.conftest import ROOT
from tests.reading.fuzz_property import FUZZ
from tests.reading.fuzz_yaml import alias_bombs, nested_documents

MEMORY_LIMIT = 200 * 2**20  # bytes, peak, for one document


# ---- memory and time on the nastiest inputs ----------------------------------------------------


def _rows(value: str, rows: int, cols: int) -> str:
    row = "[" + ", ".join([value] * cols) + "]"
    return "[" + ", ".join([row] * rows) + "]"


def _alias_rows(value: str, rows: int, cols: int) -> str:
    return f"&m [&r [{', '.join([value] * cols)}]" + ", *r" * (rows - 1) + "]"


NASTY = {
    "billion-laughs-in-Q": "Q: ["
    + ", ".join(
        [f"&l0 [{', '.join(['1'] * 10)}]"]
        + [f"&l{i} [{', '.join([f'*l{i - 1}'] * 10)}]" for i in range(1, 9)]
    )
    + "]\nK: *l8\nV: *l8\n",
    "billion-laughs-square": f"Q: &m [&r [{', '.join(['1'] * 4096)}]"
    + ", *r" * 4095
    + "]\nK: *m\nV: *m\n",
    "billion-laughs-tokens": "tokens: &t [&a [x, x, x, x], &b [*a, *a, *a, *a], [*b, *b]]\n"
    "Q: [[1]]\nK: [[1]]\nV: [[1]]\n",
    "deep-flow-100k": "Q: " + "[" * 100_000 + "]" * 100_000 + "\n",
    "deep-flow-map-100k": "Q: " + "{a: " * 100_000 + "1" + "}" * 100_000 + "\n",
    "deep-block-2000": "Q:\n" + "".join(" " * (i + 1) + "-\n" for i in range(2000)),
    "many-merges": "Q: [[1]]\nK: [[1]]\nV: [[1]]\nvariants: [&v {name: a}, "
    + ", ".join("{<<: [" + ", ".join(["*v"] * 200) + f"], name: b{i}}}" for i in range(15))
    + "]\n",
    "merge-chain": "variants: [&v0 {name: a}, "
    + ", ".join(f"&v{i} {{<<: *v{i - 1}, name: a{i}}}" for i in range(1, 16))
    + "]\n"
    "Q: [[1]]\nK: [[1]]\nV: [[1]]\n",
    "sexagesimal-20k": "Q: [[1" + ":1" * 20_000 + "]]\nK: [[1]]\nV: [[1]]\n",
    "long-key-1M": "Q" * 1_000_000 + ": 1\n",
    "long-scalar-1M": "title: " + "x" * 1_000_000 + "\nQ: [[1]]\nK: [[1]]\nV: [[1]]\n",
    "huge-number-text": "Q: [[" + "9" * 100_000 + "]]\nK: [[1]]\nV: [[1]]\n",
    "too-many-numbers-refused": f"Q: {_alias_rows('1', 4096, 1000)}\nK: *m\nV: *m\n",
    "many-anchors": "Q: [[" + ", ".join(f"&a{i} 1" for i in range(20_000)) + "]]\n"
    "K: [[" + ", ".join(f"*a{i}" for i in range(20_000)) + "]]\nV: [[1]]\n",
    "many-documents": "---\n{}\n" * 10_000,
    "T-4096-plain": f"Q: {_rows('1', 4096, 1)}\nK: {_rows('1', 4096, 1)}\n"
    f"V: {_rows('1', 4096, 1)}\n",
    "unknown-key-long": "Qq" * 50_000 + ": 1\n",
}
# Inputs within the documented limits that the loader cannot read in 1 s / 200 MB today.
NASTY_ONCE_SLOW = {
    # 3 x 1365 x 732 = 2,997,540 numbers (the limit is 4,000,000) from a 10 KB document:
    # every cell was converted one by one in Python (an aliased row is now read once)
    "alias-matrix-3M-numbers": f"Q: {_alias_rows('1', 1365, 732)}\nK: *m\nV: *m\n",
    # check_range computed a doubtful 4096-token scenario in full: T x T float64 stages
    "doubtful-T-4096": f"Q: {_rows('10', 4096, 1)}\nK: {_rows('10', 4096, 1)}\n"
    f"V: {_rows('1', 4096, 1)}\nscale: 1.0e-299\n",
    "doubtful-random-T-4096": "random: {seed: 0, T: 4096, d_k: 1}\nscale: 1.0e-299\n",
    # 17 doubtful option sets were computed one after the other
    "doubtful-T-2048-16-variants": f"Q: {_rows('10', 2048, 1)}\nK: {_rows('10', 2048, 1)}\n"
    f"V: {_rows('1', 2048, 1)}\nscale: 1.0e-299\nvariants: ["
    + ", ".join(f"{{name: v{i}, causal: {'true' if i % 2 else 'false'}}}" for i in range(16))
    + "]\n",
    # difflib over 4096 long tokens to suggest a focus
    "focus-suggestion-4096-tokens": f"Q: {_rows('1', 4096, 1)}\nK: {_rows('1', 4096, 1)}\n"
    f"V: {_rows('1', 4096, 1)}\ntokens: "
    + " ".join(f"tok{i:080d}" for i in range(4096))
    + f"\nfocus: tok{0:079d}x\n",
}


def assert_well_behaved(name: str, text: str) -> None:
    """A scenario or a located error, within 200 MB (their time:
    ``python benchmarks/limits.py``)."""
    gc.collect()
    tracemalloc.start()
    try:
        try:
            loads(text, "nasty.yaml")
        except ScenarioError as error:
            assert error.line is not None, f"{name}: error without a line: {error}"
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < MEMORY_LIMIT, f"{name}: peak {peak / 2**20:.0f} MB"


@pytest.mark.parametrize("name", sorted(NASTY))
def test_nasty_inputs_stay_within_200MB(name):
    assert_well_behaved(name, NASTY[name])


@pytest.mark.parametrize("name", sorted(NASTY_ONCE_SLOW))
def test_inputs_once_slow_or_big_now_stay_within_200MB(name):
    assert_well_behaved(name, NASTY_ONCE_SLOW[name])


# A quarter of the fuzzer's examples: the same documents are drawn FUZZ's full count of times
# by test_nesting_and_alias_bombs_are_refused_quickly (tests/reading/test_loader_never_crashes.py),
# and the worst of them by name above (NASTY); here each is loaded under tracemalloc, which makes
# every allocation several times dearer.
@settings(FUZZ, max_examples=max(1, FUZZ.max_examples // 4))
@given(st.one_of(nested_documents(), alias_bombs()))
def test_nesting_and_alias_bombs_stay_under_200MB(text):
    tracemalloc.start()
    try:
        try:
            loads(text, "bomb.yaml")
        except ScenarioError:
            pass
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < MEMORY_LIMIT, f"peak {peak / 2**20:.0f} MB"


def test_the_benchmark_that_times_them_imports_them():
    """benchmarks/limits.py times these documents: it imported them from tests.test_fuzz_loader,
    a module gone since the tests moved into sub-folders, so that its last part stopped there."""
    source = (ROOT / "benchmarks" / "limits.py").read_text(encoding="utf-8")
    module, names = re.search(r"from (tests\.[\w.]+) import ([\w, ]+)", source).groups()
    imported = importlib.import_module(module)
    assert names.split(", ") == ["NASTY", "NASTY_ONCE_SLOW"]
    assert (imported.NASTY, imported.NASTY_ONCE_SLOW) == (NASTY, NASTY_ONCE_SLOW)
