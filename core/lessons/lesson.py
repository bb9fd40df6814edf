"""Where a scenario's lesson starts and which stages it keeps on (the lesson itself, as data,
is ``core.model.lesson``; playing it against a Session is ``core.editing.lesson_player``)."""

from __future__ import annotations

from attn_tui.core.model.lesson import Position
from attn_tui.core.model.scenario import Scenario


def start_position(scenario: Scenario) -> Position:
    """Where the app opens a scenario: its first step, its focus row, the first key, head 1."""
    from attn_tui.core.engine.stages import stages_for

    return Position(stages_for(scenario)[0].name, scenario.focus)


def beat_showing(scenario: Scenario, name: str) -> int | None:
    """The first beat (from 0) of the scenario's lesson that shows stage ``name``, or None: a
    step the app can turn off (d, the tiles) stays while a beat shows it, or the lesson could
    not be played, nor the file saved, without it."""
    lesson = scenario.lesson
    if lesson is None:
        return None
    return next((index for index, beat in enumerate(lesson.beats) if beat.step == name), None)


def stays_for_the_lesson(scenario: Scenario, stage) -> None:
    """``NotApplicable`` if the scenario's lesson shows ``stage``, which the app would turn off."""
    from attn_tui.core.errors import NotApplicable

    beat = beat_showing(scenario, stage.name)
    if beat is not None:
        raise NotApplicable(
            f"The lesson shows the {stage.title} step (beat {beat + 1}): it stays on"
        )
