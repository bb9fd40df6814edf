"""Playing a lesson against a Session.

Playing a beat moves the Session the way a person's keys move it — every change goes through
``Session.apply``, so undo takes it back, saving and predictions work as they do for a person —
and going back to an earlier beat sets the lesson's cells and options to what that beat
describes. A student's own edits of cells the lesson does not touch stay as they are. Here, in
the editing layer, as it plays against a Session (``core.model.lesson`` is the lesson's data).
"""

from __future__ import annotations

import dataclasses

import numpy as np

from attn_tui.core.editing.session import Session
from attn_tui.core.lessons.lesson import start_position
from attn_tui.core.model.edits import Edit, SetCell, SetOption
from attn_tui.core.model.lesson import Beat, Lesson, OptionValue, Position
from attn_tui.core.model.scenario import Scenario
from attn_tui.core.teaching.predictions import Predictions


def _same(a: OptionValue | float, b: OptionValue | float) -> bool:
    """Bit for bit and type for type: ``True`` is not the divisor 1.0, ``-0.0`` is not 0."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    return np.float64(a).view(np.int64) == np.float64(b).view(np.int64)


class LessonPlayer:
    """A lesson being played against one Session: which beat is current, and which answers
    have been shown. It holds no numbers of its own beyond the values the lesson's cells and
    options had when playing began (what going back before the first edit restores)."""

    def __init__(self, session: Session, lesson: Lesson, start: Position | None = None) -> None:
        self.session = session
        self.lesson = lesson
        self.start = start or start_position(session.scenario)
        self.beat: int | None = None  # the current beat, from 0 (None before the first)
        self.answered: set[int] = set()
        self.applied: list[Edit] = []  # what the last go() changed
        self.put_back: list[Edit] = []  # of those, the student's own values the beat undid
        scenario, saved = session.scenario, session.saved
        # before the first beat: the file's own values (as last saved when playing began)
        self._base_cells = {
            cell: float(
                saved.inputs[cell[0]][cell[2:] if cell[1] is None else (cell[1], *cell[2:])]
            )
            for cell in lesson.touched_cells()
        }
        self._base_options = {
            name: getattr(saved.options, name) for name in lesson.touched_options()
        }
        session.predictions = lesson_predictions(scenario, lesson, self.start, session.predictions)

    def __len__(self) -> int:
        return len(self.lesson)

    @property
    def current(self) -> Beat | None:
        return None if self.beat is None else self.lesson.beats[self.beat]

    def position(self, index: int | None = None) -> Position:
        index = self.beat if index is None else index
        return self.start if index is None else self.lesson.position(index, self.start)

    def changes(self, index: int) -> list[Edit]:
        """The edits that take the session's lesson cells and options to beat ``index``'s."""
        cells = {**self._base_cells, **self.lesson.cells(index)}
        found: list[Edit] = []
        for cell, value in cells.items():
            now = _cell(self.session, cell)
            if not _same(now, value):
                matrix, head, row, col = cell
                found.append(SetCell(matrix, row, col, float(value), now, head))
        options = {**self._base_options, **self.lesson.options(index)}
        for name, value in options.items():
            now = getattr(self.session.scenario.options, name)
            if not _same(now, value):
                found.append(SetOption(name, value, now))
        return found

    def go(self, index: int) -> Position:
        """Make beat ``index`` current: apply its changes (each undoable) and return where it
        looks. ``NumericError`` (a student's own edits with the beat's would overflow) leaves
        the changes applied so far, and the beat not current."""
        if not 0 <= index < len(self.lesson):
            raise IndexError(f"beat {index + 1} of {len(self.lesson)}")
        predictions = self.session.predictions
        self.applied = []
        # what the lesson had set before this beat: a change from anything else undoes the student's
        had = (
            {**self._base_cells, **self.lesson.cells(self.beat)}
            if self.beat is not None
            else self._base_cells
        )
        had_options = {
            **self._base_options,
            **(self.lesson.options(self.beat) if self.beat is not None else {}),
        }
        changes = self.changes(index)
        self.put_back = [
            edit
            for edit in changes
            if not _same(
                edit.old,
                had[(edit.matrix, edit.head, edit.row, edit.col)]
                if isinstance(edit, SetCell)
                else had_options[edit.name],
            )
        ]
        for edit in changes:
            self.applied.append(self.session.apply(edit))
        self.beat = index
        where = self.position(index)
        # a beat's prediction is of the numbers it shows: asked for until revealed in that state
        # (and, for a stage only beats predict, at that beat), then revealed with its guesses and
        # marks whenever they come back; guesses typed under predict: in this state are shown
        if self.lesson.beats[index].predict and predictions is not None:
            predictions.enter_beat(index, where.step, where.head, where.row, self.session.attention)
        return where

    def waiting_for(self, head: int) -> str | None:
        """Why the lesson cannot go on yet (the current beat asks for a prediction not yet
        revealed), or None."""
        beat, predictions = self.current, self.session.predictions
        if beat is None or not beat.predict or predictions is None:
            return None
        if any(not _same(_cell(self.session, edit.cell), edit.value) for edit in beat.edits):
            # (u took the beat's own edit back: its question is about numbers no longer shown)
            return "this beat asks about its own numbers, which u took back: U puts them back"
        where = self.position()
        if predictions.is_revealed(where.step, head, where.row):
            return None
        return "guess this row (type a number, Tab the next), then r reveals it and n goes on"

    def only_its_own_edits(self) -> bool:
        """Whether everything unsaved is the lesson's own doing at the current beat (its edits
        and options, nothing the student typed): quitting then loses nothing of theirs."""
        session = self.session
        if dict(session.scenario.stage_settings) != dict(session.saved.stage_settings):
            return False
        edits = session.net_edits()
        return len(self.its_own(edits)) == len(edits)

    def its_own(self, edits: list[Edit]) -> list[Edit]:
        """Of ``edits`` (the session's net edits), those that set what the lesson sets at the
        current beat: the file has them already (its lesson), so saving and the recovery copy
        leave them out."""
        index = self.beat
        cells = {**self._base_cells, **(self.lesson.cells(index) if index is not None else {})}
        options = {
            **self._base_options,
            **(self.lesson.options(index) if index is not None else {}),
        }
        own = []
        for edit in edits:
            if isinstance(edit, SetCell):
                wanted = cells.get((edit.matrix, edit.head, edit.row, edit.col))
            elif isinstance(edit, SetOption):
                wanted = options.get(edit.name)
            else:
                continue
            if wanted is not None and _same(wanted, edit.value):
                own.append(edit)
        return own

    def still_put_back(self) -> list[Edit]:
        """Of the student's values the current beat put back, those still put back (u took the
        others back to the student's)."""
        session = self.session
        return [
            edit
            for edit in self.put_back
            if _same(
                _cell(session, (edit.matrix, edit.head, edit.row, edit.col))
                if isinstance(edit, SetCell)
                else getattr(session.scenario.options, edit.name),
                edit.value,
            )
        ]

    def answer_pending(self) -> bool:
        beat = self.current
        return beat is not None and bool(beat.answer) and self.beat not in self.answered

    def reveal_answer(self) -> None:
        if self.beat is not None:
            self.answered.add(self.beat)


def _cell(session: Session, cell: tuple[str, int | None, int, int]) -> float:
    matrix, head, row, col = cell
    return session.cell(matrix, row, col, head)


def lesson_predictions(
    scenario: Scenario, lesson: Lesson, start: Position, existing: Predictions | None
) -> Predictions | None:
    """The predictions a session keeps with this lesson: the scenario's own (``predict:``), and
    the stages a beat asks to predict a row of. Such a stage shows every row until a beat asks
    for one (``LessonPlayer.go`` hides it then), and that row until the student reveals it."""
    from attn_tui.core.engine.stages import stage_named

    wanted = {
        lesson.position(index, start).step
        for index, beat in enumerate(lesson.beats)
        if beat.predict
    }
    own = set(scenario.predict)
    extra = [name for name in sorted(wanted) if stage_named(name).key not in own]
    if not extra:
        return existing
    keys = tuple(dict.fromkeys([*scenario.predict, *(stage_named(name).key for name in extra)]))
    predictions = Predictions(dataclasses.replace(scenario, predict=keys), frozenset(extra))
    if existing is not None:  # keep what was guessed and revealed of the file's own stages
        predictions.take_over(existing)
    return predictions


def narration(
    player: LessonPlayer | None,
    head: int = 0,
    recording: int | None = None,
    following: str | None = None,
) -> list[tuple[str, str]]:
    """What the narration bar says, as (kind, text) lines: kind is ``beat``, ``say``, ``ask``,
    ``answer`` or ``note``. ``recording`` is the number of beats recorded so far (None: not
    recording); ``following`` a sentence on following a teacher (or leading a class)."""
    lines: list[tuple[str, str]] = []
    if player is not None and player.current is not None:
        beat = player.current
        lines.append(("beat", f"beat {player.beat + 1}/{len(player)}"))
        if beat.say:
            lines.append(("say", beat.say))
        if beat.ask:
            lines.append(("ask", f"Question: {beat.ask}"))
            if beat.answer:
                lines.append(
                    ("note", "r shows the answer")
                    if player.answer_pending()
                    else ("answer", f"Answer: {beat.answer}")
                )
        put_back = player.still_put_back()
        if put_back:
            lines.append(("note", _put_back_line(put_back)))
        waiting = player.waiting_for(head)
        if waiting:
            lines.append(("note", f"Your turn: {waiting}"))
        elif player.beat == len(player) - 1:
            lines.append(("note", "The lesson's last beat (N goes back)"))
    if recording is not None:
        lines.append(
            (
                "note",
                f"● recording: {recording} beat{'' if recording == 1 else 's'} so far · "
                "ctrl+r writes them into the file's lesson:",
            )
        )
    if following:
        lines.append(("note", following))
    return lines


def _put_back_line(edits: list[Edit]) -> str:
    """The narration's notice that a beat set cells (or options) the student had changed back
    to the lesson's values. Rows, columns and heads from 1, as a lesson's ``edit:`` names them."""
    names = [
        f"{edit.matrix}{'' if edit.head is None else f' head {edit.head + 1}'} "
        f"row {edit.row + 1} col {edit.col + 1}"
        if isinstance(edit, SetCell)
        else edit.name
        for edit in edits
    ]
    shown = ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
    return (
        f"This beat put {shown} back to the lesson's values "
        "(your edits there are undone; u brings them back)"
    )


def follow_line(
    leading: bool,
    connected: bool,
    following: bool,
    teacher_beat: int | None,
    followers: int = 0,
    address: str = "",
) -> str:
    """The narration bar's sentence on a class that follows a teacher (``--serve --follow``)."""
    if leading:
        where = f" · students open {address}" if address else ""
        return (
            f"Leading the class: {followers} app{'' if followers == 1 else 's'} "
            f"following your beats{where}"
        )
    if not following:
        at = f" at beat {teacher_beat}" if teacher_beat is not None else ""
        return f"On your own · f rejoins the teacher{at}"
    if not connected:
        return "Following the teacher, whose app is not there yet · f leaves"
    at = f" (at beat {teacher_beat})" if teacher_beat is not None else ""
    return f"Following the teacher{at} · f leaves, to go at your own pace"
