"""check --impl: a real student file for each mistake, each convention, and the backward pass.
The mistakes' names are what the files were written to make (by hand, in tests/grading/students);
the chapter's numbers ("sat": 0.248, 0.248, 0.503) are the seeds' text."""

from __future__ import annotations

from pathlib import Path

import pytest

from attn_tui.tui.cli import main
from tests.conftest import NEEDS_MODELS

STUDENTS = Path(__file__).with_name("students")


def run(capsys, *argv):
    status = main(["check", *argv])
    out, err = capsys.readouterr()
    return status, out, err


def test_the_chapters_code_matches(capsys):
    status, out, _ = run(capsys, "cat_sat", "--impl", str(STUDENTS / "chapter.py"))
    assert status == 0
    assert "your values match" in out and "causal=… as a keyword; returns (out, weights)" in out


@pytest.mark.parametrize(
    "student, said",
    [
        ("unscaled", "not divided by √d_k"),
        ("divided_by_d_k", "divided by d_k instead of √d_k"),
        ("mask_after_softmax", "mask was applied after the softmax"),
        ("softmax_axis", "wrong axis"),
        ("no_mask", "causal mask was not applied"),
        ("mask_zero", "set to 0 instead of −∞"),
        # np.triu(…, k=0) with −1e9: the first token's row is uniform, not NaN as with −∞
        ("mask_hides_self_finite", "the mask is off by one: a token cannot see itself"),
    ],
)
def test_each_mistake_is_named(capsys, student, said):
    status, out, _ = run(capsys, "cat_sat", "--impl", str(STUDENTS / f"{student}.py"))
    assert status == 1
    assert "The first stage that differs is weights." in out
    assert "Likely bug: the" in out and said in out


def test_the_unscaled_cell_is_the_chapters(capsys):
    # "sat" unscaled: softmax(1, 1, 2) = 0.212, 0.212, 0.576 against 0.248, 0.248, 0.503
    _, out, _ = run(capsys, "cat_sat", "--impl", str(STUDENTS / "unscaled.py"))
    assert "(sat, sat): yours 0.576, attention 0.503" in out


def test_an_overflowing_softmax_is_found_by_the_large_logits(capsys):
    status, out, _ = run(capsys, "cat_sat", "--impl", str(STUDENTS / "naive_softmax.py"), "--cases")
    assert status == 1
    assert "your values match" in out  # small scores: it is right there
    assert "--cases also tries" not in out  # (it did)
    large = [line for line in out.splitlines() if line.startswith("✗ large logits")]
    assert len(large) == 2 and all(
        "does not subtract each row's largest score" in line for line in large
    )
    assert "yours nan" in large[0]
    # its own softmax, checked alone on rows of ~1,000: softmax([1, 2, 3]) right, the large row NaN
    assert "softmax: ✗ overflows on scores of ~1,000 (yours gives NaN)" in out
    # without --cases, a match says it is of this scenario alone
    status, out, _ = run(capsys, "cat_sat", "--impl", str(STUDENTS / "chapter.py"))
    assert (
        status == 0
        and "That is this scenario only: --cases also tries" in out
        and "scores of ~1,000" in out
    )


def test_the_chapters_softmax_is_checked_too(capsys):
    _, out, _ = run(capsys, "cat_sat", "--impl", str(STUDENTS / "chapter.py"))
    assert "softmax: ✓ matches, scores of ~1,000 included" in out


@pytest.mark.parametrize(
    "student, read, cases",
    [
        (
            "batched_mask",
            "mask: bool, True = may attend; returns (out, weights)",
            "17 of 17 pass (1 case with a mask of its own: right)\n",
        ),
        (
            "additive_mask",
            "NumPy arrays (1, T, d), mask: 0 or −∞, added to the scores; returns out",
            "17 of 17 pass (1 case with a mask of its own: right)\n",
        ),
        # attention(q, k, v, mask) with no default: "nothing blocked" (all True) where a case
        # has no mask, never None (np.where(None, …) would hide every key)
        (
            "required_mask",
            "mask: bool, True = may attend; returns (out, weights)",
            "17 of 17 pass (1 case with a mask of its own: right)\n",
        ),
        # a causal flag cannot say the fully masked row's mask: that case is not given to it
        (
            "float32_causal",
            "float32 results, judged at float32's tolerance 0.0001",
            "17 of 17 pass (1 case with a mask of its own: not run, the function takes no mask)\n",
        ),
    ],
)
def test_conventions_are_read_not_marked_wrong(capsys, student, read, cases):
    status, out, _ = run(capsys, "cat_sat", "--impl", str(STUDENTS / f"{student}.py"), "--cases")
    assert status == 0, out
    assert read in out and "Cases: " + cases in out


@pytest.mark.models
def test_a_torch_module_with_a_blocked_mask_returning_weights_first(capsys):
    pytest.importorskip("torch", reason=NEEDS_MODELS)
    status, out, _ = run(capsys, "cat_sat", "--impl", str(STUDENTS / "torch_module.py"))
    assert status == 0, out
    assert "PyTorch tensors (T, d), mask: 1 = blocked (0 = seen); returns (weights, out)" in out


def test_a_name_after_the_colon(capsys):
    status, out, _ = run(capsys, "cat_sat", "--impl", f"{STUDENTS / 'chapter.py'}:softmax")
    assert status == 1  # softmax(Q, K, V) is not attention: said as a shape or an exception
    assert "chapter.py" in out


def test_the_backward_pass(capsys):
    status, out, _ = run(capsys, "cat_sat", "--impl", str(STUDENTS / "backward_right.py"))
    assert status == 0 and out.count("matches our backward pass") == 3
    status, out, _ = run(capsys, "cat_sat", "--impl", str(STUDENTS / "backward_wrong_dv.py"))
    assert status == 1 and "dV: ✗" in out and "dV = P·dO" in out and "dQ: ✓" in out
    status, out, _ = run(capsys, "cat_sat", "--impl", str(STUDENTS / "backward_no_scale.py"))
    assert status == 1 and out.count("the 1/√d_k is missing") == 2 and "dV: ✓" in out


def test_usage_errors(capsys, tmp_path):
    status, _, err = run(capsys, "cat_sat", "--impl", str(tmp_path / "nope.py"))
    assert status == 2 and "no such file" in err
    status, _, err = run(capsys, "two_heads", "--impl", str(STUDENTS / "chapter.py"))
    assert status == 2 and "give a plain one" in err
    with pytest.raises(SystemExit):
        main(["check", "cat_sat", "--cases"])


def test_a_file_whose_name_holds_a_colon_is_that_file(tmp_path):
    from attn_tui.grading.check import split_impl

    odd = tmp_path / "hw:solution.py"  # (reads as FILE:Class.method)
    odd.write_text("def attention(q, k, v):\n    return q\n", encoding="utf-8")
    assert split_impl(str(odd)) == (str(odd), "attention")
    assert split_impl(f"{odd}:mine") == (str(odd), "mine")
    assert split_impl(str(tmp_path / "hw.py:Attention.forward")) == (
        str(tmp_path / "hw.py"),
        "Attention.forward",
    )
