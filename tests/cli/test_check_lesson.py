"""``check`` tells of a file's lesson: that it has one and that it was read
fine, or, where a beat is wrong, the file, line and column and what is wrong."""

from __future__ import annotations

from attn_tui.tui.cli import main
from tests.conftest import SCENARIOS


def test_check_says_the_lesson_was_read_and_what_it_holds(capsys):
    # cat_sat_lesson.yaml by hand: 9 beats under lesson:, one "predict: row", three "ask:"
    assert main(["check", str(SCENARIOS / "cat_sat_lesson.yaml")]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[-1].startswith("lesson: 9 beats (1 to predict, 3 with a question), read fine")


def test_check_says_nothing_of_a_lesson_a_file_has_not(capsys):
    assert main(["check", str(SCENARIOS / "cat_sat.yaml")]) == 0
    assert "lesson" not in capsys.readouterr().out


def test_a_wrong_beat_is_named_where_it_is_written(tmp_path, capsys):
    path = tmp_path / "bad.yaml"
    text = (SCENARIOS / "cat_sat.yaml").read_text(encoding="utf-8")
    path.write_text(text + "lesson:\n  - {say: Look, step: nope}\n", encoding="utf-8")
    line = text.count("\n") + 2
    assert main(["check", str(path)]) == 2
    err = capsys.readouterr().err
    # ("  - {say: Look, step: " is 22 characters: 'nope' starts at column 23)
    assert f"bad.yaml:{line}:23: lesson beat 1: step 'nope' is not a stage of this scenario" in err
