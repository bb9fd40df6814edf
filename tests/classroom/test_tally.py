"""A beat's tally: the histogram's bins worked by hand, and mistakes named in #43's words."""

import numpy as np

from attn_tui.core import load
from attn_tui.core.classroom.beats import predict_beats
from attn_tui.core.classroom.tally import BeatTally, spread
from tests.conftest import SCENARIOS


def test_a_share_of_attention_is_drawn_from_0_to_1():
    # correct 0.503; bins of 1/8 from 0: 0.1 → bin 0, 0.5 and 0.576 → bin 4, the correct value in
    # bin 4
    found = spread(np.array([0.576, 0.5, 0.1, np.nan]), 0.503, (0.0, 1.0))
    assert (found.low, found.high) == (0.0, 1.0)
    assert found.counts == (1, 0, 0, 0, 2, 0, 0, 0) and found.correct_bin == 4
    assert found.median == 0.5 and found.guessed == 3
    wider = spread(np.array([1.5]), 0.503, (0.0, 1.0))  # a guess outside widens the axis
    assert (wider.low, wider.high) == (0.0, 1.5) and wider.counts[-1] == 1


def test_the_class_is_counted_by_mistake_in_words():
    beat = next(
        b
        for b in predict_beats(load(SCENARIOS / "cat_sat_lesson.yaml")).values()
        if b.key == "weights"
    )
    tally = BeatTally(beat)
    # "sat" scores [1, 1, 2]: ÷√2 and softmax give [0.248, 0.248, 0.503]; without ÷√2,
    # [0.212, 0.212, 0.576]
    tally.add("a", (0.248, 0.248, 0.503))
    tally.add("b", (0.212, 0.212, 0.576))
    tally.add("c", (0.21, 0.21, 0.58))
    tally.add("d", (0.9, 0.05, 0.05))
    counts = tally.counts()
    assert counts.answered == 4 and counts.right == 1
    assert (
        counts.mistakes[0][1:] == ("forgot to divide by √d_k", 2)
        and counts.mistakes[-1][0] == "other"
    )
    assert [s.low for s in counts.spreads] == [0.0] * 3
