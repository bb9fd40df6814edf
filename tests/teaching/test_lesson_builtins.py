"""The built-in lessons say only what the app computes: every number in a beat's narration is
one the app's own arithmetic shows at that beat (and the chapter's numbers are checked against
the chapter in test_source_texts.py)."""

from __future__ import annotations

import re

import pytest

from attn_tui.core import explain, load
from attn_tui.core.editing.lesson_player import LessonPlayer
from attn_tui.core.editing.session import Session
from attn_tui.core.engine.stages import stages_for
from attn_tui.core.loading.catalog import builtins
from tests.conftest import SCENARIOS

LESSONS = [builtin.name for builtin in builtins() if load(builtin.path).lesson is not None]
NUMBER = re.compile(r"\d+\.\d+(?:e\d+)?%?|\d+%|\[[\d, ]+\]")


def test_the_built_in_lessons_are_these():
    assert LESSONS == [
        "cat_sat_lesson",
        "scaling_lesson",
        "attention_sinks",
        "chunked_attention",
        "learning_to_attend",
        "qk_norm",
    ]


@pytest.mark.parametrize("name", LESSONS)
def test_every_number_a_beat_says_is_the_apps_own_at_that_beat(name):
    session = Session(load(SCENARIOS / f"{name}.yaml"), keep_recovery=False)
    player = LessonPlayer(session, session.scenario.lesson)
    checked = 0
    for index, beat in enumerate(session.scenario.lesson.beats):
        where = player.go(index)
        shown = "\n".join(
            explain(session.attention, stage.name, where.row, where.column, head=where.head).plain()
            for stage in stages_for(session.scenario)
        )
        found = set(NUMBER.findall(shown.replace("−", "-")))
        for number in NUMBER.findall(beat.say):
            assert number in found, (index + 1, number)
            checked += 1
    # the two chapter lessons say many more
    shorter = {"learning_to_attend": 7, "attention_sinks": 10, "chunked_attention": 1, "qk_norm": 8}
    assert checked >= shorter.get(name, 31)


def test_the_chapter_lesson_walks_the_chapters_stages_and_asks_its_questions():
    lesson = load(SCENARIOS / "cat_sat_lesson.yaml").lesson
    steps = [beat.step for beat in lesson.beats if beat.step]
    assert steps[:5] == ["score", "scale", "mask", "softmax", "weighted_sum"]
    questions = " ".join(beat.ask for beat in lesson.beats)
    for asked in (
        "Why divide by √d_k?",
        "What does the mask do",
        "Why does the code subtract the row's largest",
    ):
        assert asked in questions
    assert any(beat.predict for beat in lesson.beats)


def test_the_scaling_lesson_edits_the_query_until_softmax_saturates():
    session = Session(load(SCENARIOS / "scaling_lesson.yaml"), keep_recovery=False)
    player = LessonPlayer(session, session.scenario.lesson)
    largest = []
    for index in range(len(player)):
        player.go(index)
        largest.append(
            float(session.attention.values("softmax", 0, range(2, 3), range(3))[0].max())
        )
    assert largest[1] < largest[2] < largest[3] < largest[5]  # louder queries, then no scaling
    assert round(largest[5], 3) == 1.0 and round(largest[-1], 3) == 0.503


def test_the_learning_lessons_answer_tells_the_losses_the_runs_have():
    """The answer must not say the loss "falls almost to zero" while it spikes first; its numbers
    are the runs' own (and the runs' are an independent SGD's: tests/tui/test_loss_axis.py)."""
    from attn_tui.core.engine.training import runs

    scenario = load(SCENARIOS / "learning_to_attend.yaml")
    answer = " ".join(next(beat.answer for beat in scenario.lesson.beats if beat.answer).split())
    scaled, unscaled = runs(scenario)[1:]
    scaled.run()
    unscaled.run()
    spike = max(range(len(scaled.losses)), key=scaled.losses.__getitem__)
    jump = max(range(len(unscaled.losses)), key=unscaled.losses.__getitem__)
    assert (spike, jump) == (2, 1)
    assert f"from {scaled.losses[0]:.3f} to {scaled.losses[spike]:.3f} at step {spike}" in answer
    assert f"({scaled.losses[-1]:.3f} at step 200)" in answer
    assert f"jumps to {unscaled.losses[jump]:.3f} at step {jump}" in answer
    assert f"stalls at {unscaled.losses[-1]:.3f}" in answer
