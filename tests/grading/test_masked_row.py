"""A fully masked row in the battery: one query whose every key the mask hides. What it gives
depends on the convention the code was written in, and each is correct code: −∞ then a softmax
gives 0/0 = NaN (NumPy, torch.softmax), −1e9 in place of the scores gives uniform weights (1/5
each here, the output V's mean), −1e9 *added* to every score of the row leaves its softmax
unchanged (the row as if unmasked), and PyTorch's scaled_dot_product_attention gives 0. Each is
accepted and said; anything else there (a token let see its own hidden key) is wrong. A
function that takes no mask argument cannot be given such a mask: the case is not run, said so,
and not counted against it."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from attn_tui.grading import cases as battery
from attn_tui.grading.calling import run_case
from attn_tui.grading.runner import Submission
from attn_tui.tui.cli import main
from tests.conftest import NEEDS_MODELS
from tests.reference import softmax

STUDENTS = Path(__file__).with_name("students")
NAME = "a fully masked row (the mask hides every key of t2)"


def masked_case():
    return next(case for case in battery.battery(include_builtins=False) if case.name == NAME)


def result_of(student: str):
    with Submission(STUDENTS / f"{student}.py") as submission:
        submission.start()
        return run_case(submission, masked_case())


def test_the_case_hides_every_key_of_one_row_and_core_gives_it_nothing():
    case = masked_case()
    allowed = case.allowed()
    assert (
        allowed.shape == (5, 5) and not allowed[1].any() and allowed[[0, 2, 3, 4]].any(axis=1).all()
    )
    correct = case.judge().head(0)[1]
    assert correct.empty.tolist() == [False, True, False, False, False]


@pytest.mark.parametrize(
    "student, reads",
    [
        ("batched_mask", "NaN"),  # np.where(mask, scores, -inf): 0/0
        ("masked_fill_finite", "uniform"),  # np.where(mask, scores, -1e9)
        ("masked_added_finite", "unmasked"),  # scores + mask * -1e9, mask 1 = blocked
    ],
)
def test_each_conventions_answer_is_correct(student, reads):
    result = result_of(student)
    assert result.ok, result.error or result.masked_row
    assert result.empty_as == reads


def test_by_hand_the_numbers_each_convention_gives():
    case = masked_case()
    given = case.inputs()
    Q, K, V = given["Q"], given["K"], given["V"]
    row = Q[1] @ K.T / np.sqrt(Q.shape[1])
    unmasked = softmax(row)
    result = result_of("masked_added_finite")
    assert np.allclose(result.weights[1], unmasked) and np.allclose(result.output[1], unmasked @ V)
    result = result_of("masked_fill_finite")
    assert np.allclose(result.weights[1], 0.2) and np.allclose(result.output[1], V.mean(axis=0))
    assert np.isnan(result_of("batched_mask").output[1]).all()


@pytest.mark.models
def test_pytorchs_own_gives_zeros_and_is_correct():
    pytest.importorskip("torch", reason=NEEDS_MODELS)
    result = result_of("torch_sdpa")
    assert result.ok, result.error or result.masked_row
    assert result.empty_as == "zeros" and "PyTorch tensors" in result.way.describe()


def test_a_token_let_see_its_own_hidden_key_is_wrong(capsys):
    result = result_of("masked_sees_itself")
    assert not result.ok and result.masked_row is not None
    assert (
        "t2 sees no key" in result.masked_row
        and "yours 0.000, 1.000, 0.000, 0.000, 0.000" in result.masked_row
    )
    status = main(
        ["check", "cat_sat", "--impl", str(STUDENTS / "masked_sees_itself.py"), "--cases"]
    )
    out = capsys.readouterr().out
    assert status == 1
    line = next(line for line in out.splitlines() if NAME in line)
    assert line.startswith("✗") and "none of what a convention gives" in line


def test_a_function_without_a_mask_argument_is_not_given_the_case(capsys):
    status = main(["check", "cat_sat", "--impl", str(STUDENTS / "chapter.py"), "--cases"])
    out = capsys.readouterr().out
    assert status == 0, out
    line = next(line for line in out.splitlines() if NAME in line)
    assert line.startswith("–") and "takes no mask" in line
    assert (
        "Cases: 17 of 17 pass (1 case with a mask of its own: not run, the function takes no mask)"
        in out
    )


def test_the_report_says_how_the_row_was_read(capsys):
    status = main(
        ["check", "cat_sat", "--impl", str(STUDENTS / "masked_fill_finite.py"), "--cases"]
    )
    out = capsys.readouterr().out
    assert status == 0, out
    line = next(line for line in out.splitlines() if NAME in line)
    assert line.startswith("✓") and "uniform weights" in line
    assert "Cases: 17 of 17 pass (1 case with a mask of its own: right)" in out


def test_grade_counts_the_case_for_those_given_it(capsys):
    files = [
        str(STUDENTS / name)
        for name in ("chapter.py", "masked_fill_finite.py", "masked_sees_itself.py")
    ]
    import json

    assert main(["grade", *files, "--json"]) == 1
    found = {Path(s["file"]).name: s for s in json.loads(capsys.readouterr().out)["submissions"]}
    assert found["chapter.py"]["ok"] and found["chapter.py"]["not_run"] == [NAME]
    assert found["masked_fill_finite.py"]["ok"] and found["masked_fill_finite.py"]["cases"] == 17
    wrong = found["masked_sees_itself.py"]
    assert not wrong["ok"] and (wrong["passed"], wrong["cases"]) == (17, 17)
    assert wrong["words"] == "a fully masked row wrong" and "t2 sees no key" in wrong["verdict"]


def test_of_n_is_the_same_however_a_submission_fails(capsys, tmp_path):
    # a causal flag (the masked row not run), a mask (run), a wrong answer, a syntax error, no
    # function and a time out: one "of N" for all, the cases any attention can be given
    hostile = STUDENTS.parent / "hostile"
    files = [STUDENTS / "chapter.py", STUDENTS / "masked_fill_finite.py", STUDENTS / "unscaled.py"]
    files += [hostile / "syntax_error.py", hostile / "no_function.py", hostile / "hang.py"]
    import json

    main(["grade", *map(str, files), "--json", "--timeout", "6"])
    report = json.loads(capsys.readouterr().out)
    without_a_mask = len([name for name in report["cases"] if name != NAME])
    assert without_a_mask == len(report["cases"]) - 1
    counts = {Path(s["file"]).name: (s["status"], s["cases"]) for s in report["submissions"]}
    assert counts == {
        "chapter.py": ("ok", without_a_mask),
        "masked_fill_finite.py": ("ok", without_a_mask),
        "unscaled.py": ("differs", without_a_mask),
        "syntax_error.py": ("syntax", without_a_mask),
        "no_function.py": ("missing", without_a_mask),
        "hang.py": ("timeout", without_a_mask),
    }, counts
