"""When no function has the asked name and exactly one takes (Q, K, V), it is graded (the worker
finds it: grading/student_code.py, and says so in its start reply's ``chosen``), and every
verdict says which function was graded and how to choose another."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from attn_tui.grading.report import chosen_line
from attn_tui.tui.cli import main
from tests.conftest import NEEDS_MODELS

STUDENTS = Path(__file__).with_name("students")
FALLBACK_MISSING = "no attention (a function, or a class with forward or __call__)"


def test_the_sentence_names_the_function_graded_and_how_to_choose():
    assert chosen_line({"chosen": None}, "attention") is None
    line = chosen_line({"chosen": "scaled_dot_product"}, "attention")
    assert line == (
        "No attention in it: graded scaled_dot_product, the one function that takes (Q, K, V) "
        "(--impl FILE.py:NAME chooses another)."
    )
    # the student's name is their text: made visible, never a control sequence
    assert "\x1b" not in chosen_line({"chosen": "a\x1b[31m"}, "attention")


def test_check_and_grade_say_which_function_they_graded(capsys):
    status = main(["check", "cat_sat", "--impl", str(STUDENTS / "other_name.py")])
    out = capsys.readouterr().out
    if FALLBACK_MISSING in out:
        pytest.skip("the worker's finding of the one (Q, K, V) function is not in this branch")
    assert status == 0, out
    assert out.splitlines()[0] == (
        "No attention in it: graded scaled_dot_product, the one function that takes (Q, K, V) "
        "(--impl FILE.py:NAME chooses another)."
    )
    assert "your values match" in out
    main(["grade", str(STUDENTS / "other_name.py")])
    out = capsys.readouterr().out
    assert "graded scaled_dot_product, the one function that takes (Q, K, V)" in out
    assert "(--name NAME chooses another)" in out
    main(["grade", str(STUDENTS / "other_name.py"), "--json"])
    record = json.loads(capsys.readouterr().out)["submissions"][0]
    assert record["ok"] and record["chosen"] == "scaled_dot_product"
    # --name still decides: the asked name, when it is there, is the one graded
    status = main(["check", "cat_sat", "--impl", f"{STUDENTS / 'other_name.py'}:show"])
    assert "graded" not in capsys.readouterr().out.splitlines()[0]


@pytest.mark.models
def test_a_class_wrapped_attention_of_another_name_is_the_one_taken(capsys):
    pytest.importorskip("torch", reason=NEEDS_MODELS)  # (an nn.Module)
    # a correct student is not failed for wrapping their attention in a class of their own name
    status = main(["grade", str(STUDENTS / "class_other_name.py"), "--json"])
    found = json.loads(capsys.readouterr().out)["submissions"][0]
    assert status == 0, found["verdict"]
    assert (found["chosen"], found["function"]) == ("SelfAttention", "SelfAttention().forward")
    assert found["passed"] == found["cases"] and found["not_run"] == []
    assert all(result["ok"] for result in found["results"])
