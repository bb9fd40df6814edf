"""``--markdown --lesson``: the lesson as a handout (no asked-for number in the student's copy),
``--answers`` filled in with each predicted row computed at its beat; and the command line's
other lesson flags."""

from __future__ import annotations

import numpy as np
import pytest

from attn_tui.core import load
from attn_tui.core.outputs.lesson_handout import lesson_markdown
from attn_tui.tui.cli import main
from tests.conftest import SCENARIOS
from tests.reference import softmax


def handout(capsys, *flags: str) -> str:
    assert main(["--markdown", "--lesson", *flags]) == 0
    return capsys.readouterr().out


def test_the_students_handout_has_every_beat_blanks_and_room_to_answer(capsys):
    text = handout(capsys, "scaling_lesson")
    assert text.startswith("# Why scaling matters (a lesson) — lesson\n")
    assert [line for line in text.splitlines() if line.startswith("## Beat")] == [
        f'## Beat {n} · Step {step} · row "sat"'
        for n, step in [(1, "2 Scale"), *((n, "4 Softmax") for n in range(2, 9))]
    ]
    beat4 = text.split("## Beat 4")[1].split("## Beat 5")[0]
    assert "- Q\\[sat, d1] is set to 10\n- Q\\[sat, d2] is set to 10" in beat4
    assert "| sat | ____ | ____ | ____ |" in beat4 and "0.998" not in beat4
    beat6 = text.split("## Beat 6")[1].split("## Beat 7")[0]
    assert "- the scores are not scaled" in beat6
    assert "**Question:** Why does this matter when a model learns?" in beat6
    assert "Answer: \\_\\_\\_" in beat6 and "gradients near zero" not in text


def test_the_answers_fill_in_each_prediction_at_its_beats_numbers(capsys):
    text = handout(capsys, "--answers", "scaling_lesson")
    beat4 = text.split("## Beat 4")[1].split("## Beat 5")[0]
    # q3 = [10, 10] at beat 4: scores [10, 10, 20] ÷ √2; by hand 1/(1 + 2e^(−10/√2)) = 0.998
    assert "| sat | 0.001 | 0.001 | 0.998 |" in beat4
    assert "**Answer:** A saturated softmax has gradients near zero" in text
    chapter = handout(capsys, "--answers", "cat_sat_lesson")
    assert "| sat | 0.248 | 0.248 | 0.503 |" in chapter  # the chapter's weights of "sat"


def test_text_from_the_lesson_cannot_break_the_markdown(tmp_path):
    path = tmp_path / "hostile.yaml"
    path.write_text(
        (SCENARIOS / "cat_sat.yaml").read_text() + "lesson:\n"
        '  - say: "# not a heading\\n| not | a table | <b>x</b> \\e[2J"\n'
        '    ask: "*bold* [link](http://x)"\n'
    )
    text = lesson_markdown(load(path))
    assert "\\# not a heading" in text and "\\| not \\| a table \\| \\<b>x\\</b> ␛\\[2J" in text
    assert "**Question:** \\*bold\\* \\[link](http://x)" in text and "\x1b" not in text


def test_a_question_over_two_lines_keeps_its_line_break(tmp_path):
    path = tmp_path / "two.yaml"
    path.write_text(
        (SCENARIOS / "cat_sat.yaml").read_text() + "lesson:\n"
        '  - ask: "Why divide?\\n# And by what?"\n'
    )
    text = lesson_markdown(load(path))
    assert "**Question:** Why divide?\n\\# And by what?" in text and "␊" not in text


def test_the_command_line_asks_for_a_lesson_where_it_needs_one(capsys):
    assert main(["--markdown", "--lesson", "cat_sat"]) == 2
    assert "has no lesson:" in capsys.readouterr().err
    for flags in (["--json", "--lesson"], ["--markdown", "--lesson", "--worksheet"], ["--follow"]):
        with pytest.raises(SystemExit) as caught:
            main([*flags, "cat_sat_lesson"])
        assert caught.value.code == 2
    assert main(["--serve", "cat_sat", "--lesson"]) == 2
    assert "has no lesson:" in capsys.readouterr().err


def test_a_lesson_of_10000_beats_is_refused_by_the_command_line_in_one_line(tmp_path, capsys):
    path = tmp_path / "long.yaml"
    path.write_text(
        (SCENARIOS / "cat_sat.yaml").read_text() + "lesson:\n" + "  - {step: softmax}\n" * 10_000
    )
    assert main(["--check", str(path)]) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and "the lesson has 10,000 beats; at most 1,000" in error


LESSON_OF_EDITS = """title: edits
tokens: [a, b, c]
heads: 2
Q: [[[1, 0], [0, 1], [1, 1]], [[0, 1], [1, 0], [2, 0]]]
K: [[[1, 0], [0, 1], [1, 1]], [[1, 1], [0, 1], [1, 0]]]
V: [[[1, 0], [0, 1], [1, 1]], [[1, 0], [0, 1], [1, 1]]]
lesson:
  - {step: softmax, row: 3, predict: row}
  - {step: softmax, row: 3, predict: row, edit: {matrix: K, head: 1, row: 1, col: 1, to: 4}}
  - {step: weighted_sum, row: 2, predict: row, edit: {matrix: V, head: 1, row: 2, col: 2, to: -3}}
  - {step: softmax, row: 3, predict: row, edit: {matrix: K, head: 1, row: 1, col: 1, to: -2}}
  - {step: softmax, row: 3, predict: row, set: {scale: none}}
  - {step: softmax, row: 3, head: 2, predict: row, edit: {matrix: K, head: 2, row: 3, col: 2, \
to: 5}}
"""


def test_each_beats_scenario_has_exactly_the_cells_set_so_far_and_shares_what_no_beat_edits(
    tmp_path,
):
    """The scenarios the answers are computed on (a working copy of each edited matrix, not a
    copy of every input per beat), against copies with each beat's cells set by hand."""
    path = tmp_path / "edits.yaml"
    path.write_text(LESSON_OF_EDITS)
    scenario = load(path)
    by_hand = {name: scenario.inputs[name].copy() for name in scenario.inputs}
    settings = [  # (matrix, index, value) each beat sets, as the file says (from 1)
        [],
        [("K", (0, 0, 0), 4.0)],
        [("V", (0, 1, 1), -3.0)],
        [("K", (0, 0, 0), -2.0)],
        [],
        [("K", (1, 2, 1), 5.0)],
    ]
    for beat, (at, sets) in enumerate(
        zip(scenario.lesson.scenarios(scenario), settings, strict=True)
    ):
        for matrix, index, value in sets:
            by_hand[matrix][index] = value
        for name in scenario.inputs:
            assert np.array_equal(at.inputs[name], by_hand[name]), (beat, name)
        assert at.inputs["Q"] is scenario.inputs["Q"]  # no beat edits Q: shared, not copied
        assert (at.options.scale is False) == (beat >= 4), beat  # (scale: none)
    assert (
        scenario.inputs["K"][0, 0, 0] == 1 and scenario.inputs["V"][0, 1, 1] == 1
    )  # the file's, untouched


def test_the_answers_of_a_lesson_of_edits_are_its_beats_numbers(tmp_path, capsys):
    path = tmp_path / "edits.yaml"
    path.write_text(LESSON_OF_EDITS)
    assert main(["--markdown", "--lesson", "--answers", str(path)]) == 0
    beats = capsys.readouterr().out.split("## Beat ")[1:]

    def row(beat):
        line = next(line for line in beats[beat].splitlines() if line.startswith("| c "))
        return [float(cell) for cell in line.strip(" |").split("|")[1:]]

    # by hand, row c of head 1: q = [1, 1]; k_a = [1, 0] then [4, 0] (beat 2), [-2, 0] (beat 4)
    for beat, k_a, scale in ((0, 1, 2**-0.5), (1, 4, 2**-0.5), (3, -2, 2**-0.5), (4, -2, 1.0)):
        assert row(beat) == pytest.approx(softmax([k_a * scale, 1 * scale, 2 * scale]), abs=6e-4), (
            beat
        )
    # head 2 at beat 6: q = [2, 0]; k = [1, 1], [0, 1], [1, 5], not scaled: scores 2, 0, 2
    assert row(5) == pytest.approx(softmax([2, 0, 2]), abs=6e-4)


def test_a_row_of_many_keys_prints_the_32_around_the_beats_column(tmp_path):
    # a predicted row of 16,384 keys was a 16,384-column table: 1,000 such beats wrote 412 MB
    T, rng = 300, np.random.RandomState(4)
    Q, K, V = rng.randn(T, 2), rng.randn(T, 2), rng.randn(T, 2)
    np.savez(tmp_path / "m.npz", Q=Q, K=K, V=V)
    (tmp_path / "m.yaml").write_text(
        "title: many\nnpz: m.npz\ncausal: false\nlesson:\n"
        "  - {step: softmax, row: 7, column: 100, predict: row}\n"
    )
    text = lesson_markdown(load(tmp_path / "m.yaml"), answers=True)
    beat = text.split("## Beat 1")[1]
    table = [line for line in beat.splitlines() if line.startswith("| t7 ")]
    assert len(table) == 1
    cells = table[0].strip("| ").split(" | ")[1:]
    assert len(cells) == 32
    assert (
        "(columns 84–115 of 300: the app shows the whole row)" in text
    )  # column 100 the 17th of them
    scores = Q[6] @ K.T / np.sqrt(2)  # by hand: row 7's softmax, columns 84 … 115
    weights = softmax(scores)
    assert cells == [f"{w:.3f}" for w in weights[83:115]]
    assert '"t256", … (44 more) ·' in text  # the tokens line names 256


def test_a_row_near_the_end_shows_the_last_32_columns():
    from attn_tui.core.outputs.lesson_handout import shown_columns

    assert shown_columns(10, 3) == range(10)
    assert shown_columns(300, 0) == range(0, 32)
    assert shown_columns(300, 299) == range(268, 300)


def test_a_predicted_stage_is_named_by_a_noun(tmp_path):
    # not "The scaled of "t3"" nor "The projected of "sat""
    path = tmp_path / "l.yaml"
    path.write_text(
        (SCENARIOS / "cat_sat.yaml").read_text()
        + "lesson:\n  - {step: scale, row: sat, predict: row}\n"
        "  - {step: softmax, row: sat, predict: row}\n"
    )
    text = lesson_markdown(load(path))
    assert 'Predict the scaled values of "sat" before you look:' in text
    assert 'Predict the weights of "sat" before you look:' in text


def test_a_masked_cell_is_given_not_asked(tmp_path):
    # no blanks in cells the causal mask hides (the app gives them)
    path = tmp_path / "l.yaml"
    path.write_text(
        (SCENARIOS / "cat_sat.yaml").read_text()
        + "lesson:\n  - {step: softmax, row: the, predict: row}\n"
    )
    text = lesson_markdown(load(path))
    row = [line for line in text.splitlines() if line.startswith("| the ")][-1]
    assert row.replace(" ", "") == "|the|____|0.000|0.000|", row  # "the" sees itself alone
