"""Predict, then reveal: a student's guesses for the cells of a stage, row by row, and what
must stay hidden until a row is revealed.

The rule, derived from the stage registry: while row ``i`` of a predicted stage (of a head) is
not revealed, every stage computed from it — and the stage itself — hides row ``i``: its cells,
its arithmetic, the variants, the overview and the exports. The stages it is computed from stay
visible (they are what the student works from). A masked cell of the weights is exactly 0 and
needs no guess: it is shown.

A guess is close when it is within ``CLOSE`` of the value attention gives in the state the guess
was made in: the row's values are kept with the first guess (or the reveal), and a guess is judged
against them, not against numbers a later edit (a lesson's next beat, say) made. A row revealed in
another state than the current one says so instead of marking its guesses against numbers they
were never about. Guesses are kept apart from the scenario until the student keeps them as
``expect:``.
"""

from __future__ import annotations

import numpy as np

from attn_tui.core.engine.explanation import Line, Span
from attn_tui.core.model.labels import token_labels
from attn_tui.core.engine.stages import column_labels
from attn_tui.core.numbers import fixed
from attn_tui.core.model.options import Expected
from attn_tui.core.engine.stages import gives_away, stage_keyed, stages_for

CLOSE = 0.05
UNKNOWN, CLOSE_ENOUGH, OFF = 0, 1, 2  # verdicts for a cell


class Rows:
    """A T × columns matrix, NaN but for the rows written: a student guesses a few rows, and
    two dense matrices of 16,384 × 16,384 keys were 4 GB made as a lesson opened (10 s)."""

    def __init__(self, shape: tuple[int, int]) -> None:
        self.shape = shape
        self._rows: dict[int, np.ndarray] = {}

    def row(self, row: int) -> np.ndarray:
        found = self._rows.get(row)
        return np.full(self.shape[1], np.nan) if found is None else found.copy()

    def set_row(self, row: int, values) -> None:
        values = np.broadcast_to(np.asarray(values, dtype=np.float64), (self.shape[1],))
        if np.isnan(values).all():
            self._rows.pop(row, None)
        else:
            self._rows[row] = values.copy()

    def set(self, row: int, col: int, value: float) -> None:
        self._rows.setdefault(row, np.full(self.shape[1], np.nan))[col] = value

    def block(self, rows: range, cols: range) -> np.ndarray:
        out = np.full((len(rows), len(cols)), np.nan)
        for row, values in self._rows.items():
            if row in rows:
                out[row - rows.start] = values[cols.start:cols.stop]
        return out

    def written(self) -> list[int]:
        return sorted(self._rows)

    def dense(self) -> np.ndarray:
        return self.block(range(self.shape[0]), range(self.shape[1]))


class Predictions:
    """The guesses and revealed rows of each predicted stage, per head (``None`` for the
    stages after the heads)."""

    def __init__(self, scenario) -> None:
        self.scenario = scenario
        self.follow(scenario)
        self.guesses: dict[tuple[str, int | None], Rows] = {}
        self.revealed: dict[tuple[str, int | None], np.ndarray] = {}
        # each row's values in the state its guesses were made in (NaN rows: none yet)
        self.answers: dict[tuple[str, int | None], Rows] = {}
        # a lesson's predict beats: each beat's own row (row_state) while another beat is
        # current, and which beat's row each row shown holds now (beat → (stage, head, row, state))
        self.kept: dict[object, tuple[str, int, int, tuple]] = {}
        self.holder: dict[tuple[str, int | None, int], object] = {}
        # a row's guesses made in another state (an edit undone or redone since), by the bits
        # of the values they were about: they come back when the row is guessed in that state
        self.other_states: dict[tuple[tuple[str, int | None], int, bytes], np.ndarray] = {}
        for key in scenario.predict:
            stage = stage_keyed(key)
            for head in (range(scenario.heads) if stage.per_head else (None,)):
                shape = (scenario.T, stage.column_count(scenario))
                self.guesses[(stage.name, head)] = Rows(shape)
                self.answers[(stage.name, head)] = Rows(shape)
                self.revealed[(stage.name, head)] = np.zeros(scenario.T, bool)

    def follow(self, scenario) -> None:
        """Take the scenario's steps as they are now (a step came or went: tiles, decoding)."""
        self.steps = stages_for(scenario)
        self.by_name = {stage.name: stage for stage in self.steps}

    @property
    def stages(self) -> tuple[str, ...]:
        """The names of the predicted stages."""
        return tuple(dict.fromkeys(name for name, _ in self.guesses))

    def predicts(self, stage: str) -> bool:
        return stage in self.stages

    def _head(self, stage: str, head: int) -> int | None:
        return head if self.by_name[stage].per_head else None

    def hidden_rows(self, stage: str, head: int = 0) -> np.ndarray:
        """Per query row: whether showing ``stage`` (of ``head``) would give an unrevealed
        prediction away."""
        hidden = np.zeros(self.scenario.T, bool)
        reads = gives_away(stage, self.steps)
        for (name, h), revealed in self.revealed.items():
            if name in reads and (h is None or h == head or not self.by_name[stage].per_head):
                hidden |= ~revealed
        return hidden

    def hiding(self, stage: str, head: int, row: int) -> list[str]:
        """The predicted stages whose unrevealed ``row`` hides ``row`` of ``stage``."""
        reads = gives_away(stage, self.steps)
        return [name for (name, h), revealed in self.revealed.items()
                if name in reads and (h is None or h == head or not self.by_name[stage].per_head)
                and not revealed[row]]

    def anything_hidden(self) -> bool:
        return any(not revealed.all() for revealed in self.revealed.values())

    def _actual(self, attention, stage: str, head: int, row: int) -> np.ndarray:
        cols = range(self.by_name[stage].column_count(attention.scenario))
        return attention.values(stage, head or 0, range(row, row + 1), cols)[0]

    def guess(self, stage: str, head: int, row: int, col: int, value: float, attention) -> None:
        """A guess of one cell, in the state ``attention`` computes: a row guessed before in
        another state starts afresh (those guesses were about other numbers), or with the
        guesses made in this state before; the other state's guesses are set aside, not lost
        (undo or redo back to it, and they come back with the next guess there)."""
        key = (stage, self._head(stage, head))
        actual = self._actual(attention, stage, head, row)
        before = self.answers[key].row(row)
        if not np.isnan(before).all() and not same_bits(before, actual):
            aside = self.guesses[key].row(row)
            if not np.isnan(aside).all():
                self.other_states[(key, row, before.tobytes())] = aside
            self.guesses[key].set_row(row, self.other_states.pop((key, row, actual.tobytes()), np.nan))
        self.answers[key].set_row(row, actual)
        self.guesses[key].set(row, col, value)

    def current_state(self, stage: str, head: int, row: int, attention) -> bool:
        """Whether ``row``'s guesses (or its reveal) were made in the state shown now."""
        answers = self.answers[(stage, self._head(stage, head))].row(row)
        return np.isnan(answers).all() or same_bits(answers, self._actual(attention, stage, head, row))

    def guesses_of(self, stage: str, head: int) -> Rows:
        return self.guesses[(stage, self._head(stage, head))]

    def reveal(self, stage: str, head: int, row: int, attention) -> None:
        key = (stage, self._head(stage, head))
        if np.isnan(self.guesses[key].row(row)).all():  # no guess: the row is revealed as it is now
            self.answers[key].set_row(row, self._actual(attention, stage, head, row))
        self.revealed[key][row] = True

    def row_state(self, stage: str, head: int, row: int) -> tuple[np.ndarray, np.ndarray, bool]:
        """One row's guesses, the values they were about and whether it is revealed (copies)."""
        key = (stage, self._head(stage, head))
        return self.guesses[key].row(row), self.answers[key].row(row), bool(self.revealed[key][row])

    def set_row_state(self, stage: str, head: int, row: int, state: tuple | None) -> None:
        """Put back a ``row_state``; None: the row afresh (no guess, not revealed)."""
        key = (stage, self._head(stage, head))
        guesses, answers, revealed = state or (np.nan, np.nan, False)
        self.guesses[key].set_row(row, guesses)
        self.answers[key].set_row(row, answers)
        self.revealed[key][row] = revealed

    def leave_beat(self, beat: int, stage: str, head: int, row: int) -> None:
        """A predict beat stops being current: its row is kept as it is, and stays shown —
        unless the row was guessed outside the lesson (the scenario's ``predict:``): those
        guesses come back, as they were."""
        self.kept[beat] = (stage, head, row, self.row_state(stage, head, row))
        place = (stage, self._head(stage, head), row)
        outside = ("outside", place)
        if outside in self.kept and self.holder.get(place) == beat:
            self.set_row_state(stage, head, row, self.kept[outside][3])
            self.holder[place] = outside

    def enter_beat(self, beat: int, stage: str, head: int, row: int) -> None:
        """A predict beat becomes current: its own row back, or the row afresh if it was never
        current (a row guessed outside the lesson is kept aside, and still counts)."""
        place = (stage, self._head(stage, head), row)
        if place not in self.holder or self.holder[place] == ("outside", place):
            state = self.row_state(stage, head, row)
            if not np.isnan(state[0]).all():
                self.kept[("outside", place)] = (stage, head, row, state)
            else:
                self.kept.pop(("outside", place), None)
        kept = self.kept.get(beat)
        self.set_row_state(stage, head, row, None if kept is None else kept[3])
        self.holder[place] = beat

    def is_revealed(self, stage: str, head: int, row: int) -> bool:
        return bool(self.revealed[(stage, self._head(stage, head))][row])

    def verdict(self, stage: str, head: int, rows: range, cols: range, actual: np.ndarray) -> np.ndarray:
        """Per cell of a window: CLOSE_ENOUGH or OFF for a guessed cell of a revealed row."""
        key = (stage, self._head(stage, head))
        guesses = self.guesses[key].block(rows, cols)
        answers = self.answers[key].block(rows, cols)
        # a row's guesses are marked beside the numbers they were about, never beside others
        here = np.all((answers.view(np.int64) == actual.view(np.int64)) | np.isnan(answers), axis=1)
        judged = ~np.isnan(guesses) & (self.revealed[key][rows.start:rows.stop] & here)[:, None]
        with np.errstate(invalid="ignore"):
            close = np.abs(guesses - answers) <= CLOSE
        return np.where(judged, np.where(close, CLOSE_ENOUGH, OFF), UNKNOWN).astype(np.int8)

    def score(self, attention=None) -> tuple[int, int]:
        """(close, judged): guessed cells of revealed rows, over every stage and head, each
        against the numbers of the state it was made in."""
        close = judged = 0
        for key, guesses in self.guesses.items():
            for row in guesses.written():
                if not self.revealed[key][row]:
                    continue
                row_guesses = guesses.row(row)
                guessed = ~np.isnan(row_guesses)
                judged += int(guessed.sum())
                close += int((np.abs(row_guesses[guessed] - self.answers[key].row(row)[guessed]) <= CLOSE).sum())
        for beat, (stage, head, row, (guesses, answers, revealed)) in self.kept.items():
            if not revealed or self.holder.get((stage, self._head(stage, head), row)) == beat:
                continue  # (shown now: counted above)
            guessed = ~np.isnan(guesses)
            judged += int(guessed.sum())
            close += int((np.abs(guesses[guessed] - answers[guessed]) <= CLOSE).sum())
        return close, judged

    def as_expect(self) -> dict[str, Expected]:
        """The guesses as a scenario's ``expect:`` (cells not guessed are left out); a
        multi-head stage's guesses as one matrix per head."""
        found: dict[str, Expected] = {}
        for name in self.stages:
            stage = self.by_name[name]
            heads = [key for key in self.guesses if key[0] == name]
            stacked = np.stack([self.guesses[key].dense() for key in heads])
            if np.isnan(stacked).all():
                continue
            values = stacked if stage.per_head and self.scenario.heads > 1 else stacked[0]
            found[stage.key] = Expected(np.nan_to_num(values, nan=0.0), ~np.isnan(values))
        return found


def same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    return a.shape == b.shape and bool(np.all(np.asarray(a).view(np.int64) == np.asarray(b).view(np.int64)))


def hidden_lines(predictions: Predictions, stage: str, head: int, row: int, scenario) -> list[Line]:
    """What the explanation pane says instead of arithmetic that would give a prediction away."""
    from attn_tui.core.engine.stages import step_number

    label = token_labels(scenario.row_tokens)[row]
    steps = ", ".join(f"{predictions.by_name[name].title} (step {step_number(scenario, name)})"
                      for name in dict.fromkeys(predictions.hiding(stage, head, row)))
    return [Line((Span(f'Hidden until you predict and reveal "{label}" at {steps}: its arithmetic '
                       "would give the answer away.", "note"),))]


def prediction_lines(predictions: Predictions, stage: str, head: int, row: int, attention) -> list[Line]:
    """The explanation pane's lines for a stage to predict: what to do while the row is hidden,
    each guess against the value once revealed, and the score so far."""
    scenario = attention.scenario
    described = predictions.by_name[stage]
    label = token_labels(scenario.row_tokens)[row]
    guesses = predictions.guesses_of(stage, head).row(row)
    columns = column_labels(scenario, described)
    close, judged = predictions.score(attention)
    revealed_any = any(revealed.any() for revealed in predictions.revealed.values())
    score = (f"Score so far: {close} of {judged} guesses close (within {CLOSE:g})" if judged
             else "No guess judged yet" if revealed_any else "No row revealed yet")
    if not predictions.is_revealed(stage, head, row):
        typed = int((~np.isnan(guesses)).sum())
        guessable = len(guesses)  # a masked cell is known (a weight of 0), not guessed
        if described.masked_given:
            guessable -= int(attention.blocked(range(row, row + 1), range(len(guesses))).sum())
        return [Line((Span(f'Predict the {described.numbers} of "{label}" before you see them: '
                           "type a number (Enter edits a guess made), Tab moves on; r reveals the row.", "token"),)),
                Line((Span(f"{typed} of {guessable} cells guessed. {score}.", "note"),))]
    actual = attention.values(stage, head, range(row, row + 1), range(len(guesses)))[0]
    if not predictions.current_state(stage, head, row, attention):
        guessed = ~np.isnan(guesses)
        answers = predictions.answers[(stage, predictions._head(stage, head))].row(row)
        near = int((np.abs(guesses[guessed] - answers[guessed]) <= CLOSE).sum())
        n = int(guessed.sum())
        told = (f"its {n} {'guess was' if n == 1 else 'guesses were'} judged against those: {near} close" if n
                else "it was revealed without a guess")
        return [Line((Span(f'"{label}" was predicted when its numbers were different (before or after an edit): '
                           f"{told}.", "token"),)),
                Line((Span("The numbers above are the ones now; go back to where you guessed to see your "
                           "guesses beside theirs.", "note"),)),
                Line((Span(score + ".", "note"),))]
    lines = [Line((Span(f'Your guesses for "{label}":' if not np.isnan(guesses).all()
                        else f'"{label}" was revealed without a guess.', "token"),))]
    for j, guess in enumerate(guesses):
        if np.isnan(guess):
            continue
        off = abs(guess - actual[j])
        mark = "✓ close" if off <= CLOSE else f"✗ off by {fixed(off, scenario.precision)}"
        lines.append(Line((Span(f"  {columns[j]}: {fixed(float(guess), scenario.precision)} → actual "
                                f"{fixed(float(actual[j]), scenario.precision)}  ", "text"),
                           Span(mark, "result" if off <= CLOSE else "masked"))))
    lines.append(Line((Span(score + ".", "note"),)))
    return lines


