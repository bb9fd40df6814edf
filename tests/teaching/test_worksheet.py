"""Worksheets: the handout with blanks for the stages to predict, and its answer key."""

from __future__ import annotations

import re

from attn_tui.core import load
from attn_tui.core import loads
from attn_tui.core.outputs.markdown import BLANK, to_markdown
from attn_tui.tui.cli import main
from tests.conftest import ROOT, SCENARIOS
from tests.teaching.test_markdown import assert_well_formed

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
    assert by_heading["Step 5 — Weighted sum"].row("sat") == [BLANK] * 2  # weights·V gives them away
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
