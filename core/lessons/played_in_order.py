"""The checks of a lesson that need its beats played in order, once each beat has been read
(``core.lessons.reader``): a beat that asks for a prediction must show a stage a student can
predict, wherever the earlier beats left the step; and every beat's numbers and options must stay
within float64, as the file's own must.
"""

from __future__ import annotations

from attn_tui.core.errors import NumericError
from attn_tui.core.files.yaml_numbers import located
from attn_tui.core.files.yaml_source import Node
from attn_tui.core.model.lesson import Lesson
from attn_tui.core.model.scenario import Scenario
from attn_tui.core.reading.keys import entries


def check_predictions(lesson: Lesson, scenario: Scenario, nodes: list[Node]) -> None:
    """A beat that asks for a prediction shows a stage a student can predict."""
    from attn_tui.core.engine.stages import stage_named, stages_for
    from attn_tui.core.lessons.lesson import start_position

    start = start_position(scenario)
    for index, (beat, node) in enumerate(zip(lesson.beats, nodes)):
        if not beat.predict:
            continue
        stage = stage_named(lesson.position(index, start).step)
        if not stage.teaching.predictable:
            predictable = [s.name for s in stages_for(scenario) if s.teaching.predictable]
            found = entries(node, "a beat")
            how = (
                "give one of them as its step:"
                if "step" in found
                else f"it is at step {stage.name} from an earlier beat: "
                "give one of them as its step:"
            )
            raise located(
                found["predict"].key,
                f"lesson beat {index + 1}: the {stage.name} stage is not one to predict "
                f"(predict a row of {', '.join(predictable)}); {how}",
            )


def check_numbers_in_range(lesson: Lesson, scenario: Scenario, nodes: list[Node]) -> None:
    """Every beat's numbers and options stay within float64, as the file's own must: the beats
    played in order, each edited cell checked for what it changes, as the app checks a person's
    edit (a whole-matrix pass per beat made 1,000 beats at T = 16,384 take minutes)."""
    import dataclasses

    from attn_tui.core.engine.overflow import (
        check_range,
        divides_less,
        option_sets,
        require_finite_cell,
    )
    from attn_tui.core.model.heads import HeadInputs
    from attn_tui.core.model.scenario import working_copy

    inputs, working = HeadInputs(scenario), {}
    for index, (beat, node) in enumerate(zip(lesson.beats, nodes)):
        if not beat.changes:
            continue
        try:  # forward, beat after beat: what changes is this beat's own edits and options
            for edit in beat.edits:
                if edit.matrix not in working:  # a copy of its own, written in place
                    working[edit.matrix], view = working_copy(scenario.inputs[edit.matrix])
                    scenario = dataclasses.replace(
                        scenario, inputs={**scenario.inputs, edit.matrix: view}
                    )
                at = (edit.row, edit.col) if edit.head is None else (edit.head, edit.row, edit.col)
                working[edit.matrix][at] = edit.value
                changes = inputs.update(scenario, edit.matrix, edit.row, edit.col, edit.head)
                require_finite_cell(
                    scenario,
                    inputs,
                    changes,
                    edit.matrix,
                    edit.row,
                    edit.col,
                    edit.head,
                    option_sets(scenario),
                )
            for name, value in beat.options:
                before = scenario
                scenario = scenario.with_options(**{name: value})
                if name == "scale" and divides_less(scenario, before):
                    check_range(scenario, inputs)
        except NumericError as error:
            found = entries(node, "a beat")
            where = found["edit"].key if "edit" in found else found["set"].key
            raise located(where, f"lesson beat {index + 1}: with this beat, {error}") from None
