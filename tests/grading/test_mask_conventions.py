"""A bool mask whose True means hidden (PyTorch's ``masked_fill(mask, -inf)``, NumPy's
``scores[mask] = -inf``) is a convention, not a mistake: those students pass every case, the
fully masked row included, and are said to be read that way."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from attn_tui.tui.cli import main
from tests.conftest import NEEDS_MODELS

STUDENTS = Path(__file__).with_name("students")


@pytest.mark.parametrize(
    ("student", "arrays"),
    [
        pytest.param("masked_fill_blocked.py", "PyTorch tensors", marks=pytest.mark.models),
        ("bool_index_blocked.py", "NumPy arrays"),
    ],
)
def test_a_bool_mask_true_where_hidden_passes(capsys, student, arrays):
    if arrays == "PyTorch tensors":
        pytest.importorskip("torch", reason=NEEDS_MODELS)
    status = main(["grade", str(STUDENTS / student), "--json"])
    found = json.loads(capsys.readouterr().out)["submissions"][0]
    assert status == 0, found["verdict"]
    assert found["passed"] == found["cases"] and found["not_run"] == []
    assert all(result["ok"] for result in found["results"])
    assert found["convention"] == f"{arrays} (T, d), mask: bool, True = blocked"
