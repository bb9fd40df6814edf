"""Lessons in core: reading ``lesson:`` (every bad beat refused with FILE:LINE:COL) and playing
one against a Session (every beat's state, back and forth, undo)."""

from __future__ import annotations

import math
import time

import numpy as np
import pytest

from attn_tui.core import ScenarioError, load, loads
from attn_tui.core.editing.lesson_player import LessonPlayer
from attn_tui.core.editing.session import Session
from attn_tui.core.loading.scenario_file import check_text
from attn_tui.core.model.lesson import MAX_BEATS
from tests.conftest import SCENARIOS
from tests.reference import softmax

CAT_SAT = (SCENARIOS / "cat_sat.yaml").read_text()
LINES = CAT_SAT.count("\n")  # the lesson below starts on the line after these
SAT, CAT, THE = 2, 1, 0


def with_lesson(beats: str, base: str = CAT_SAT, path: str = "lesson.yaml"):
    return loads(base + "lesson:\n" + beats, path)


def refused(beats: str, base: str = CAT_SAT) -> str:
    with pytest.raises(ScenarioError) as caught:
        with_lesson(beats, base)
    return str(caught.value)


WALK = """\
  - {say: The scores of "sat", step: score, row: sat}
  - step: softmax
    row: 2
  - {say: A louder query, edit: {matrix: Q, row: sat, col: 1, to: 5}}
  - {set: {causal: false}, step: weighted_sum}
  - {edit: [{matrix: Q, row: 3, col: d2, to: 2.5}, {matrix: V, row: the, col: 1, to: -1}], \
set: {scale: none}}
"""


# ---- reading ------------------------------------------------------------------------------------


def test_a_lesson_is_read_into_beats_by_name_and_number():
    lesson = with_lesson(WALK).lesson
    first, second, third, fourth, fifth = lesson.beats
    assert (first.say, first.step, first.row) == ('The scores of "sat"', "score", SAT)
    assert (second.step, second.row, second.line) == ("softmax", CAT, LINES + 3)
    assert [(e.matrix, e.row, e.col, e.value) for e in third.edits] == [("Q", SAT, 0, 5.0)]
    assert fourth.options == (("causal", False),) and fourth.step == "weighted_sum"
    assert [(e.matrix, e.row, e.col, e.value) for e in fifth.edits] == [
        ("Q", 2, 1, 2.5),
        ("V", 0, 0, -1.0),
    ]
    assert fifth.options == (("scale", False),)


def test_a_scenario_without_a_lesson_has_none_and_the_file_check_reads_the_beats():
    assert load(SCENARIOS / "cat_sat.yaml").lesson is None
    assert check_text(CAT_SAT + "lesson:\n" + WALK).title == "The cat sat"
    with pytest.raises(ScenarioError):  # checking a file promises that loading it works
        check_text(CAT_SAT + "lesson:\n  - {step: sideways}\n")


@pytest.mark.parametrize(
    "beats, where, message",
    [
        (
            "  - {step: weighted_summ}\n",
            (1, 12),
            "step 'weighted_summ' is not a stage of this scenario (its "
            "stages: score, scale, mask, softmax, weighted_sum); did you "
            "mean 'weighted_sum'?",
        ),
        ("  - {step: Weighted sum}\n", (1, 12), "did you mean 'weighted_sum'?"),
        ("  - {step: output}\n", (1, 12), "did you mean 'weighted_sum'?"),
        ("  - {row: dog}\n", (1, 11), "row 'dog' is not one of the tokens (tokens: the cat sat)"),
        ("  - {row: 4}\n", (1, 11), "row must be from 1 to 3, not 4"),
        ("  - {column: 0}\n", (1, 14), "column must be from 1 to 3, not 0"),
        ("  - {head: 2}\n", (1, 12), "this scenario has one head"),
        ("  - {sayy: hello}\n", (1, 6), "unknown key 'sayy' in lesson beat 1; did you mean 'say'?"),
        ("  - {}\n", (1, 5), "lesson beat 1 is empty"),
        ("  - {answer: 42}\n", (1, 6), "answer goes with ask"),
        (
            "  - {edit: {matrix: W, row: 1, col: 1, to: 1}}\n",
            (1, 21),
            "'W' is not a matrix one can edit here (Q, K, V)",
        ),
        (
            "  - {edit: {matrix: Q, row: sat, col: 3, to: 1}}\n",
            (1, 39),
            "edit col must be from 1 to 2, not 3",
        ),
        (
            "  - {edit: {matrix: Q, row: dog, col: 1, to: 1}}\n",
            (1, 29),
            "edit row 'dog' is not one of the tokens",
        ),
        (
            "  - {edit: {matrix: Q, row: sat, col: d3, to: 1}}\n",
            (1, 39),
            "edit col 'd3' is not one of Q's columns (d1 d2",
        ),
        (
            "  - {edit: {matrix: Q, row: sat, col: 1, to: .nan}}\n",
            (1, 46),
            "edit to is .nan; numbers must be finite",
        ),
        ("  - {edit: {matrix: Q, row: sat, col: 1}}\n", (1, 12), "an edit needs to"),
        ("  - {set: {causal: maybe}}\n", (1, 20), "set causal must be true or false"),
        ("  - {set: {scale: -2}}\n", (1, 19), "scale must be positive"),
        ("  - {set: {mask_value: 1}}\n", (1, 12), "unknown key 'mask_value' in lesson beat 1 set"),
        (
            "  - {step: mask, predict: row}\n",
            (1, 18),
            "the mask stage is not one to predict (predict a row of "
            "score, scale, softmax, weighted_sum); give one of them as its step:",
        ),
        (
            "  - {step: mask}\n  - {predict: row}\n",
            (2, 6),
            "it is at step mask from an earlier beat: give one of them",
        ),
        ("  - {step: softmax, predict: column}\n", (1, 30), "predict takes row"),
        ("  - 3\n", (1, 5), "lesson beat 1 must be a mapping of keys to values"),
        ("  - {say: [a, b]}\n", (1, 11), "lesson beat 1 say must be text, not a list"),
    ],
)
def test_a_bad_beat_is_refused_where_it_is_written(beats, where, message):
    error = refused(beats)
    line, col = where
    assert error.startswith(f"lesson.yaml:{LINES + 1 + line}:{col}: "), error
    assert message in error, error


def test_the_lesson_itself_must_be_a_list_of_beats():
    assert refused("  say: hello\n").startswith(
        f"lesson.yaml:{LINES + 2}:3: lesson must be a list of beats"
    )
    assert "lesson is empty" in str(
        pytest.raises(ScenarioError, loads, CAT_SAT + "lesson:\n", "x").value
    )
    assert "lesson has no beats" in refused("  []\n")


def test_a_cross_attention_or_windowed_lesson_cannot_set_a_mask_that_means_nothing():
    cross = (SCENARIOS / "cross_attention.yaml").read_text()
    assert "no causal mask in cross-attention" in refused("  - {set: {causal: true}}\n", cross)
    window = (SCENARIOS / "sliding_window.yaml").read_text()
    assert "the sliding window already hides the future" in refused(
        "  - {set: {causal: false}}\n", window
    )


def test_heads_are_named_or_numbered():
    two = (SCENARIOS / "two_heads.yaml").read_text()
    scenario = loads(
        two + "head_names: [previous, itself]\nlesson:\n  - {head: 2}\n  - {head: itself}\n"
        "  - {head: previous}\n",
        "x.yaml",
    )
    assert [beat.head for beat in scenario.lesson.beats] == [1, 1, 0]
    assert "there is no head 3" in refused("  - {head: 3}\n", two)
    assert "head 'nobody' is not one of this scenario's heads" in refused(
        "  - {head: nobody}\n", two
    )


def test_an_edit_that_would_overflow_float64_is_refused_with_its_beat():
    beats = (
        "  - {step: score}\n"
        "  - {edit: [{matrix: Q, row: sat, col: 1, to: 1e200}, "
        "{matrix: K, row: sat, col: 1, to: 1e200}]}\n"
    )
    error = refused(beats)
    assert error.startswith(f"lesson.yaml:{LINES + 3}:6: lesson beat 2: with this beat, "), error
    assert "overflows float64" in error
    # one beat alone is fine (1e200 × 1 is a number), and a later beat that puts the other
    # back keeps the lesson playable
    with_lesson(
        "  - {edit: {matrix: Q, row: sat, col: 1, to: 1e200}}\n"
        "  - {edit: [{matrix: Q, row: sat, col: 1, to: 1}, "
        "{matrix: K, row: sat, col: 1, to: 1e200}]}\n"
    )


def test_unscaling_is_checked_too():
    # a score of 1.7e308 is a number, divided by √2 too; unscaled, the row's softmax is still
    # finite, so only a value that cannot be a score at all is refused
    big = 1.3e154
    beats = (
        f"  - {{edit: [{{matrix: Q, row: sat, col: 1, to: {big}}}, "
        f"{{matrix: K, row: sat, col: 1, to: {big}}}]}}\n"
    )
    with_lesson(beats)
    assert big * big < 1.8e308


def test_10000_beats_are_refused_at_the_first_beat_past_the_bound():
    beats = "".join(
        f"  - {{say: beat {n}, step: {'score' if n % 2 else 'softmax'}}}\n" for n in range(10_000)
    )
    start = time.perf_counter()
    error = refused(beats)
    assert error == (
        f"lesson.yaml:{LINES + 2 + MAX_BEATS}:5: the lesson has 10,000 beats; at most {MAX_BEATS:,}"
    )
    assert time.perf_counter() - start < 10  # a guard against hanging, not a speed test


def test_text_is_kept_as_written_markup_and_escapes_included():
    text = 'say: "[bold red]x[/] \\e]52;c;AAAA\\a [@click=app.quit]q[/]"'
    beat = with_lesson(f"  - {text}\n").lesson.beats[0]
    assert beat.say == "[bold red]x[/] \x1b]52;c;AAAA\x07 [@click=app.quit]q[/]"
    assert "at most 2,000" in refused(f"  - {{say: {'x' * 2001}}}\n")


# ---- playing ------------------------------------------------------------------------------------


def player(beats: str = WALK) -> tuple[Session, LessonPlayer]:
    session = Session(with_lesson(beats), keep_recovery=False)
    return session, LessonPlayer(session, session.scenario.lesson)


def test_every_beat_restores_the_state_it_describes_back_and_forth():
    session, play = player()
    Q0, K0, V0 = (session.scenario.inputs[name].copy() for name in "QKV")
    expected_Q = {0: Q0, 1: Q0, 2: Q0.copy(), 3: Q0.copy(), 4: Q0.copy()}
    for beat in (2, 3, 4):
        expected_Q[beat][SAT, 0] = 5.0
    expected_Q[4][2, 1] = 2.5
    positions = [
        ("score", SAT),
        ("softmax", CAT),
        ("softmax", CAT),
        ("weighted_sum", CAT),
        ("weighted_sum", CAT),
    ]
    options = [(True, True)] * 3 + [(False, True), (False, False)]
    for order in ([0, 1, 2, 3, 4], [3, 2, 1, 0], [4, 0, 2, 4, 1]):
        for beat in order:
            where = play.go(beat)
            assert (where.step, where.row) == positions[beat]
            assert np.array_equal(session.scenario.inputs["Q"], expected_Q[beat])
            assert session.scenario.inputs["V"][THE, 0] == (-1.0 if beat == 4 else 1.0)
            assert np.array_equal(session.scenario.inputs["K"], K0)
            assert (session.scenario.options.causal, session.scenario.options.scale) == options[
                beat
            ]
    play.go(0)
    assert not session.modified  # back at the first beat: the file's own numbers and options
    assert session.scenario.inputs["V"].tobytes() == V0.tobytes()


def test_the_weights_of_a_beat_are_attentions_own():
    session, play = player()
    play.go(2)  # q3 = [5, 1] against k = [1, 0], [0, 1], [1, 1]: scores 5, 1, 6; ÷√2
    scores = np.array([5.0, 1.0, 6.0]) / math.sqrt(2)
    weights = session.attention.values("softmax", 0, range(SAT, SAT + 1), range(3))[0]
    assert np.allclose(weights, softmax(scores), rtol=0, atol=1e-15)
    assert (
        round(float(weights[2]), 3) == 0.657
    )  # by hand: 1 / (1 + e^(1/√2 − 6/√2) + e^(5/√2 − 6/√2))


def test_a_beats_edits_are_undone_by_undo():
    session, play = player()
    play.go(2)
    assert session.cell("Q", SAT, 0) == 5.0
    session.undo()
    assert session.cell("Q", SAT, 0) == 1.0
    play.go(4)  # three cells and two options: each its own undo
    for _ in range(5):
        session.undo()
    assert not session.modified


def test_a_students_own_edits_elsewhere_stay_and_a_lesson_cell_is_set_again():
    session, play = player()
    play.go(0)
    session.set_cell("K", THE, 1, 9.0)  # the student's own
    session.set_cell("Q", SAT, 0, -3.0)  # a cell the lesson sets at beat 3
    play.go(2)
    assert session.cell("K", THE, 1) == 9.0 and session.cell("Q", SAT, 0) == 5.0
    play.go(1)
    assert session.cell("Q", SAT, 0) == 1.0  # as the file has it, before the lesson's edit


def test_a_prediction_beat_hides_only_its_row_from_that_beat_until_revealed():
    session, play = player(
        "  - {step: softmax}\n"
        "  - {step: softmax, row: cat, predict: row}\n"
        "  - {step: weighted_sum}\n"
    )
    predictions = session.predictions
    play.go(0)
    assert not predictions.hidden_rows("softmax", 0).any()  # a beat before may show the weights
    play.go(1)
    assert predictions.hidden_rows("softmax", 0).tolist() == [False, True, False]
    assert predictions.hidden_rows("weighted_sum", 0).tolist() == [
        False,
        True,
        False,
    ]  # it would tell
    assert play.waiting_for(0) is not None
    predictions.reveal("softmax", 0, CAT, session.attention)
    assert play.waiting_for(0) is None and not predictions.hidden_rows("weighted_sum", 0).any()
    play.go(0)
    play.go(1)  # asked once: back and forth, the row stays revealed
    assert play.waiting_for(0) is None


def test_an_answer_is_pending_until_shown():
    session, play = player(
        "  - {ask: Why divide by the square root of d_k?, answer: To keep the scores small}\n"
    )
    play.go(0)
    assert play.answer_pending()
    play.reveal_answer()
    assert not play.answer_pending()
