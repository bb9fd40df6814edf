"""The bugs a long fuzz run found (tests/reading/test_loader_never_crashes.py), fixed and pinned:
each input is a located error now, where it once escaped as another exception, hung or
overflowed."""

from __future__ import annotations

import os

import pytest

from attn_tui.core import ScenarioError, loads
from tests.conftest import ROOT

# ---- bugs a long run found, fixed and pinned ---------------------------------------------------

YAML_INT_FLOAT_CRASHES = {
    "Q-cell-int-empty": "Q: [[!!int '']]\nK: [[1]]\nV: [[1]]\n",  # IndexError
    "Q-cell-int-sign-only": "Q: [[!!int '-']]\nK: [[1]]\nV: [[1]]\n",  # IndexError
    "Q-cell-float-empty": "Q: [[!!float '']]\nK: [[1]]\nV: [[1]]\n",  # IndexError
    "scale-float-empty": "Q: [[1]]\nK: [[1]]\nV: [[1]]\nscale: !!float ''\n",
    "mask-int-empty": "Q: [[1]]\nK: [[1]]\nV: [[1]]\nmask_value: !!int ''\n",
    # AttributeError
    "mask-a-list": "Q: [[1]]\nK: [[1]]\nV: [[1]]\nmask_value: [-1]\n",
    "precision-0b_": "Q: [[1]]\nK: [[1]]\nV: [[1]]\nprecision: 0b_\n",  # ValueError
    "precision-0x_": "Q: [[1]]\nK: [[1]]\nV: [[1]]\nprecision: 0x_\n",
    "precision-int-tag-text": "Q: [[1]]\nK: [[1]]\nV: [[1]]\nprecision: !!int abc\n",
    "precision-5000-digits": "Q: [[1]]\nK: [[1]]\nV: [[1]]\nprecision: " + "1" * 5000 + "\n",
    "focus-0b_": "Q: [[1]]\nK: [[1]]\nV: [[1]]\nfocus: 0b_\n",
    "random-seed-int-tag-text": "random: {seed: !!int x, T: 2, d_k: 2}\n",
}


@pytest.mark.parametrize("name", sorted(YAML_INT_FLOAT_CRASHES))
def test_int_and_float_forms_pyyaml_cannot_read_are_located_errors(name):
    """PyYAML's own IndexError/ValueError on !!int '', 0b_, … used to escape."""
    with pytest.raises(ScenarioError) as caught:
        loads(YAML_INT_FLOAT_CRASHES[name], "bug.yaml")
    assert caught.value.line is not None and "bug.yaml:" in str(caught.value)


@pytest.mark.parametrize(
    "text",
    [
        "&a {<<: *a, Q: [[1]], K: [[1]], V: [[1]]}\n",
        "&a {Q: &b {<<: *a}, <<: *b}\n",
    ],
)
def test_a_merge_key_cycle_is_a_located_error(text):
    with pytest.raises(ScenarioError) as caught:
        loads(text, "bug.yaml")
    assert caught.value.line == 1 and "cycle" in caught.value.message


def test_values_near_floats_largest_are_refused_not_overflowed():
    """weights·V could round past float64's largest; a scenario with such V is an error."""
    with pytest.raises(ScenarioError) as caught:
        loads(
            "causal: false\nQ: [[3], [3]]\nK: [[0], [1]]\n"
            "V: [[1.7976931348623157e308], [1.7976931348623157e308]]\n",
            "bug.yaml",
        )
    assert caught.value.line is not None and "keep V below" in caught.value.message


@pytest.mark.parametrize(
    "text",
    [
        'Q: {npy: "a\\0b.npy"}\nK: [[1]]\nV: [[1]]\n',
        'npz: "a\\0b.npz"\n',
    ],
)
def test_a_nul_in_a_file_name_is_a_located_error(text):
    with pytest.raises(ScenarioError) as caught:
        loads(text, "bug.yaml")
    assert caught.value.line == 1 and "NUL" in caught.value.message


NPZ_DEVICE = """
import resource, sys
resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))  # never eat the machine
from attn_tui.core import ScenarioError
from attn_tui.core import loads
try:
    loads("npz: /dev/zero\\n", sys.argv[1])
except ScenarioError as error:
    print("located" if error.line else "no line", error)
"""


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
def test_a_device_as_a_data_file_is_refused_at_once(tmp_path):
    """zipfile used to read /dev/zero for ever (capped here at 1 GB and 10 s)."""
    import subprocess
    import sys

    try:
        done = subprocess.run(
            [sys.executable, "-c", NPZ_DEVICE, str(tmp_path / "s.yaml")],
            capture_output=True,
            text=True,
            timeout=10,
            cwd=ROOT,
        )
    except subprocess.TimeoutExpired:
        raise AssertionError("npz: /dev/zero did not return in 10 s") from None
    assert done.stdout.startswith("located"), done.stdout + done.stderr[-500:]


def test_a_lone_surrogate_is_a_located_error():
    with pytest.raises(ScenarioError) as caught:
        loads("title: \ud800\nQ: [[1]]\nK: [[1]]\nV: [[1]]\n", "bug.yaml")
    assert (caught.value.line, caught.value.col) == (1, 8)


def test_a_reader_error_after_non_ascii_text_is_placed_in_characters():
    text = "title: ééééé\x01\nQ: [[1]]\nK: [[1]]\nV: [[1]]\n"
    with pytest.raises(ScenarioError) as caught:
        loads(text, "bug.yaml")
    assert (caught.value.line, caught.value.col) == (1, 13), str(caught.value)
