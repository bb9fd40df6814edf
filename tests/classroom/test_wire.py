"""The answer message as the teacher's app reads it: every hostile line refused, a valid one
read back exactly; checked against the lesson's predict beats."""

from __future__ import annotations

import math

import pytest

from attn_tui.core import load
from attn_tui.core.classroom import wire
from attn_tui.core.classroom.beats import predict_beats, refusal
from tests.conftest import SCENARIOS


def test_an_answer_goes_and_comes_back_as_typed():
    line = wire.answer_line(4, 2, [0.248, float("nan"), 0.503])
    assert line == b"answer 4 2 0.248 _ 0.503\n"
    assert wire.parse(line) == wire.Answer(4, 2, (0.248, None, 0.503))
    assert wire.parse(wire.answer_line(1, 0, [1e-7, -12345.5])) == wire.Answer(
        1, 0, (1e-7, -12345.5)
    )
    assert wire.parse(wire.hello_line("3f9a0c1e")) == wire.Hello("3f9a0c1e")
    assert wire.parse(wire.name_line("  Ada   Lovelace ")) == wire.Name("Ada Lovelace")
    assert wire.parse("name Zoë\n".encode()) == wire.Name("Zoë")


@pytest.mark.parametrize(
    "line",
    [
        b"answer 4 2 nan 0.2 0.3\n",
        b"answer 4 2 NaN 0.2 0.3\n",
        b"answer 4 2 inf 0.2 0.3\n",
        b"answer 4 2 1e99 0.2 0.3\n",
        b"answer 4 2 2000000 0 0\n",  # beyond a guess
        b"answer 4 2 0.2 0.3",  # cut off: no newline
        b"answer 4 2 _ _ _\n",
        b"answer 4 2\n",
        b"answer 4\n",
        b"answer x 2 0.1\n",
        b"answer -4 2 0.1\n",
        b"answer 4 2 0x10\n",
        b"answer 4 2 0.1  0.2\n",
        b"answer 4 2 0.1,0.2\n",
        b"answer 4 2 " + b"0.1 " * 33 + b"\n",  # more columns than carried
        b"answer 4 2 " + b"1" * 600 + b"\n",  # longer than a line
        b"\x1b]52;c;AAAA\x07\n",
        b"[/INST] answer 4 2 0.1\n",
        b"answer 4 2 0.1\x1b[2J\n",
        b"hello ZZZZZZZZ\n",
        b"hello 3f9a\n",
        b"hello \n",
        b"name \n",
        b"name Ada\x1b[31m\n",
        b"name " + b"a" * 30 + b"\n",
        b"name 1337\n",
        b"name Ada  Lovelace\n",
        b"\xff\xfe\n",
        b"\n",
        b"",
    ],
)
def test_every_hostile_line_is_refused(line):
    assert isinstance(wire.parse(line), wire.Refused)


def test_what_cannot_be_a_line_is_not_made():
    with pytest.raises(ValueError):
        wire.answer_line(4, 2, [math.inf])
    with pytest.raises(ValueError):
        wire.answer_line(4, 2, [0.1] * 33)
    with pytest.raises(ValueError):
        wire.name_line("[/INST]")
    with pytest.raises(ValueError):
        wire.hello_line("../../etc")


def test_an_answer_must_fit_a_predict_beat_of_the_lesson():
    beats = predict_beats(load(SCENARIOS / "cat_sat_lesson.yaml"))
    # the lesson's one predict beat is beat 4 (from 1): the softmax weights of "sat" (row 2)
    assert [(b.beat, b.stage, b.key, b.row, b.columns) for b in beats.values()] == [
        (4, "softmax", "weights", 2, 3)
    ]
    assert refusal(beats, wire.Answer(4, 2, (0.25, 0.25, 0.5))) is None
    assert "asks for no prediction" in refusal(beats, wire.Answer(3, 2, (0.25, 0.25, 0.5)))
    # said as a person counts rows (from 1) and names them: "sat" is the third token
    assert refusal(beats, wire.Answer(4, 1, (0.25, 0.25, 0.5))) == (
        'beat 4 asks for row 3 ("sat"), not row 2'
    )
    assert "3 columns, not 2" in refusal(beats, wire.Answer(4, 2, (0.25, 0.25)))
    assert "3 columns, not 4" in refusal(beats, wire.Answer(4, 2, (0.25, 0.25, 0.5, 0.0)))
