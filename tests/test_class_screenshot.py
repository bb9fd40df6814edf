"""docs/class_answers.svg, docs/classroom.md's picture of the teacher's screen while a class
answers, is what docs/class_screenshot.py makes today (regenerate with python
docs/class_screenshot.py); and it shows what the script fed it, counted by hand: 12 answers, 6
right, 3 forgot √d_k, 2 divided by d_k, 1 other."""

from __future__ import annotations

from tests.conftest import ROOT, load_script

SCRIPT = ROOT / "docs" / "class_screenshot.py"
CHECKED_IN = ROOT / "docs" / "class_answers.svg"


async def test_the_checked_in_picture_is_what_the_script_makes_now():
    svg = await load_script(SCRIPT).screenshot()
    assert svg == CHECKED_IN.read_text(encoding="utf-8"), (
        "docs/class_answers.svg is out of date: run python docs/class_screenshot.py"
    )
    text = svg.replace("&#160;", " ")
    for words in (
        "12 answered of 12 following",
        "6 right",
        "3 forgot to divide by √d_k",
        "1 other",
        "2 divided by d_k",
        "0.503",
        "beat 4/9",
    ):
        assert words in text, words


def test_classroom_md_shows_the_picture():
    assert "](class_answers.svg)" in (ROOT / "docs" / "classroom.md").read_text(encoding="utf-8")
