"""Worksheets: the handout with blanks for the stages to predict, and its answer key."""

from __future__ import annotations

import re

from attn_tui.core import load, loads
from attn_tui.core.outputs.markdown import to_markdown
from attn_tui.core.outputs.markdown_syntax import BLANK
from attn_tui.tui.cli import main
from tests.conftest import ROOT, SCENARIOS
from tests.markdown_tables import assert_well_formed

# numbers of cat_sat's later stages, as the chapter prints them: none may appear on the worksheet
GIVEAWAYS = ("0.707", "1.414 |", "0.248", "0.503", "0.330", "0.670", "8.169", "2.028", "0.500")


def test_without_predict_every_stage_after_score_is_blank_and_nothing_gives_it_away():
    worksheet = to_markdown(load(SCENARIOS / "cat_sat.yaml"), sheet="worksheet")
    tables = assert_well_formed(worksheet)
    by_heading = {table.heading.split(":")[0]: table for table in tables}
    assert by_heading["Step 1 — Score"].row("sat") == ["1", "1", "2"]  # the scores are given
    assert by_heading["Step 2 — Scale"].row("sat") == [BLANK] * 3
    assert by_heading["Step 3 — Mask"].row("the") == [BLANK, "−∞", "−∞"]  # masked cells are given
    assert by_heading["Step 4 — Softmax"].row("the")[:3] == [BLANK, "0.000", "0.000"]
    assert by_heading["Step 5 — Weighted sum"].row("sat") == [BLANK] * 2
    for number in GIVEAWAYS:
        assert number not in worksheet, number
    assert "25%" not in worksheet  # not even in the description


def test_predict_chooses_the_blanks_and_what_they_would_give_away():
    text = (SCENARIOS / "cat_sat.yaml").read_text() + "predict: [weights]\n"
    worksheet = to_markdown(loads(text, "lesson.yaml"), sheet="worksheet")
    by_heading = {table.heading.split(":")[0]: table for table in assert_well_formed(worksheet)}
    assert by_heading["Step 2 — Scale"].row("sat") == ["0.707", "0.707", "1.414"]
    assert by_heading["Step 4 — Softmax"].row("sat") == [BLANK] * 5
    assert (
        by_heading["Step 5 — Weighted sum"].row("sat") == [BLANK] * 2
    )  # weights·V gives them away
    assert "8.169" not in worksheet and "exp(1.414)" not in worksheet


def test_the_answer_key_fills_in_exactly_the_worksheets_blanks():
    scenario = load(SCENARIOS / "cat_sat.yaml")
    worksheet = assert_well_formed(to_markdown(scenario, sheet="worksheet"))
    answers = assert_well_formed(to_markdown(scenario, sheet="answers"))
    assert [t.heading for t in worksheet] == [t.heading for t in answers]
    filled = 0
    for blank, answer in zip(worksheet, answers):
        assert blank.head == answer.head
        for blank_row, answer_row in zip(blank.rows, answer.rows):
            for mine, theirs in zip(blank_row, answer_row):
                if mine == BLANK:
                    assert re.fullmatch(r"−?[0-9.]+", theirs), theirs
                    filled += 1
                else:
                    assert mine == theirs
    # scale 9; mask 9 less 3 masked; softmax 9 less 3 masked, plus max and H; output 3×2
    assert filled == 9 + 6 + (6 + 3 + 3) + 6
    assert "0.248" in to_markdown(scenario, sheet="answers")


def test_the_command_line_writes_both(capsys):
    assert main(["--markdown", "--worksheet", "cat_sat"]) == 0
    assert "— worksheet" in capsys.readouterr().out
    assert main(["--markdown", "--answers", "cat_sat"]) == 0
    assert "— answer key" in capsys.readouterr().out


def test_worksheet_answers_is_the_answer_key_as_readme_says(capsys):
    """docs/cli.md: "--markdown --worksheet … (--answers: its answer key)": a teacher adds --answers
    to the worksheet's command, and gets the key for that worksheet."""
    assert main(["--markdown", "--answers", "cat_sat"]) == 0
    key = capsys.readouterr().out
    assert main(["--markdown", "--worksheet", "--answers", "cat_sat"]) == 0
    assert capsys.readouterr().out == key and "— answer key" in key
    cli = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    assert "attn-tui --markdown --worksheet --answers cat_sat" in cli
    assert "attn-tui markdown --worksheet --answers cat_sat" in cli


def test_no_extras_leaves_max_and_entropy_out_of_the_worksheet_and_its_key(capsys):
    """A worksheet asks for the weights, not each row's max and entropy beside them. cat_sat's
    Softmax table by hand: "the" sees itself alone (a blank, then two masked 0.000), "cat" sees
    two keys, "sat" three; with --no-extras those 3 + 2 + 1 weights are the only blanks."""
    assert main(["markdown", "--worksheet", "--no-extras", "cat_sat"]) == 0
    worksheet = capsys.readouterr().out
    softmax = {t.heading.split(":")[0]: t for t in assert_well_formed(worksheet)}[
        "Step 4 — Softmax"
    ]
    assert softmax.head == ["query ↓ · key →", "the", "cat", "sat"]
    assert [softmax.row(token) for token in ("the", "cat", "sat")] == [
        [BLANK, "0.000", "0.000"],
        [BLANK, BLANK, "0.000"],
        [BLANK, BLANK, BLANK],
    ]
    assert "entropy" not in worksheet and "max =" not in worksheet
    assert main(["markdown", "--answers", "--no-extras", "cat_sat"]) == 0
    key = {t.heading.split(":")[0]: t for t in assert_well_formed(capsys.readouterr().out)}[
        "Step 4 — Softmax"
    ]
    assert key.head == softmax.head and key.row("sat") == [
        "0.248",
        "0.248",
        "0.503",
    ]  # the chapter's
    assert (
        main(["markdown", "--worksheet", "cat_sat"]) == 0
    )  # without it: as before, max and H asked
    with_extras = {t.heading.split(":")[0]: t for t in assert_well_formed(capsys.readouterr().out)}
    assert with_extras["Step 4 — Softmax"].head[-2:] == ["max", "H"]


def test_no_extras_is_refused_with_a_lesson_handout_and_documented(capsys):
    import pytest

    with pytest.raises(SystemExit) as exited:
        main(["markdown", "--lesson", "--no-extras", "cat_sat_lesson"])
    assert (
        exited.value.code == 2
        and "--no-extras goes with the walk-through" in capsys.readouterr().err
    )
    for page in ("cli.md", "classroom.md"):
        assert "--no-extras" in (ROOT / "docs" / page).read_text(encoding="utf-8"), page
