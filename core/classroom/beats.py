"""The predict beats of a lesson, as the teacher's app checks a class's answers against them:
at which beat a row is predicted, of which stage and head, how many columns it has, and the
scenario as it is at that beat (the lesson's edits and options up to it)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from attn_tui.core.classroom.wire import MAX_CELLS, Answer
from attn_tui.core.engine.stages import stage_named
from attn_tui.core.lessons.lesson import start_position
from attn_tui.core.model.labels import token_labels
from attn_tui.core.model.scenario import Scenario
from attn_tui.core.text import visible


@dataclass(frozen=True)
class PredictBeat:
    beat: int  # from 1
    stage: str  # the stage's name (``softmax``)
    key: str  # its key in expect: and in the log (``weights``)
    head: int
    row: int
    columns: int
    scenario: Scenario  # as it is at this beat

    @property
    def collected(self) -> bool:
        """Whether the channel carries this row (at most MAX_CELLS columns)."""
        return self.columns <= MAX_CELLS


def predict_beats(scenario: Scenario) -> dict[int, PredictBeat]:
    """Every beat (from 1) of the scenario's lesson that asks for a prediction."""
    lesson = scenario.lesson
    if lesson is None:
        return {}
    start = start_position(scenario)
    found: dict[int, PredictBeat] = {}
    for index, at_beat in enumerate(lesson.scenarios(scenario)):
        if not lesson.beats[index].predict:
            continue
        where = lesson.position(index, start)
        stage = stage_named(where.step)
        kept = dataclasses.replace(
            at_beat, inputs={name: np.array(value) for name, value in at_beat.inputs.items()}
        )
        found[index + 1] = PredictBeat(
            index + 1, stage.name, stage.key, where.head, where.row, stage.column_count(kept), kept
        )
    return found


def refusal(beats: dict[int, PredictBeat], answer: Answer) -> str | None:
    """Why ``answer`` is not an answer to one of ``beats`` (None: it is)."""
    beat = beats.get(answer.beat)
    if beat is None:
        return f"beat {answer.beat} asks for no prediction"
    if answer.row != beat.row:  # (said as people count rows: from 1, the token named)
        tokens = beat.scenario.row_tokens
        asked = f'row {beat.row + 1} ("{visible(token_labels(tokens)[beat.row])}")'
        return f"beat {answer.beat} asks for {asked}, not row {answer.row + 1}"
    if len(answer.guess) != beat.columns:
        return f"beat {answer.beat}'s row has {beat.columns} columns, not {len(answer.guess)}"
    return None
