"""What a student's function returns, in the forms that are not arrays: a nested list of numbers
is a matrix (one value, not its rows as many); an answer far too large is said to be, not taken
for a garbled one; shapes that fit nothing are reported before an exception another way of
calling it raised."""

from __future__ import annotations

from pathlib import Path

from attn_tui.tui.cli import main

HOSTILE = Path(__file__).with_name("hostile")


def check(capsys, name, *extra):
    status = main(["check", "cat_sat", "--impl", str(HOSTILE / f"{name}.py"), *extra])
    return status, capsys.readouterr().out


def test_a_nested_list_of_numbers_is_one_matrix(capsys):
    status, out = check(capsys, "returns_nested_list")
    assert status == 0, out
    assert "your values match" in out and "returns out" in out


def test_an_answer_far_too_large_is_said_to_be(capsys):
    status, out = check(capsys, "huge_answer")
    assert status == 1
    first = out.splitlines()[0]
    assert "returned a 6000×6000 array (275 MB)" in first and "garbled" not in first, out


def test_wrong_shapes_are_reported_before_another_conventions_exception(capsys, tmp_path):
    # (Q, K, V) unbatched only: the batched call raises; the plain one misfits
    student = tmp_path / "rows.py"
    student.write_text(
        "import numpy as np\ndef attention(Q, K, V, causal=True):\n    s = Q @ K.T\n    return s\n"
    )
    status, out = main(["check", "cat_sat", "--impl", str(student)]), capsys.readouterr().out
    assert status == 1
    assert "returned 3×3; expected the output (3×2)" in out.splitlines()[0], out
