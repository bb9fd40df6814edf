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
``expect:``. The Why pane's lines for them are ``core.teaching.prediction_lines``.
"""

from __future__ import annotations

import numpy as np

from attn_tui.core.engine.stages import gives_away, stage_keyed, stages_for
from attn_tui.core.model.options import Expected

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
                out[row - rows.start] = values[cols.start : cols.stop]
        return out

    def written(self) -> list[int]:
        return sorted(self._rows)

    def dense(self) -> np.ndarray:
        return self.block(range(self.shape[0]), range(self.shape[1]))


Place = tuple[tuple[str, "int | None"], int]  # (stage, head) and a row


class Guessed:
    """One row's guesses in one state: the values attention gave the row there (``answers``, the
    state itself), the guesses typed against them (NaN: none) and whether the row was revealed."""

    def __init__(self, answers: np.ndarray, revealed: bool = False) -> None:
        self.answers = answers.copy()
        self.guesses = np.full(len(answers), np.nan)
        self.revealed = revealed


class Predictions:
    """The guesses and revealed rows of each predicted stage, per head (``None`` for the
    stages after the heads).

    Every guess lives in one place, ``entries``: per row of a stage (and head), per state — the
    bits of the values the row had when it was guessed — and, for a stage only a lesson's beats
    predict, per beat (two beats asking for one row ask two questions). A guess is never lost.
    What is shown (``guesses``, ``answers``, ``revealed``: what the views, the Why pane and
    ``verdict`` read) is always one of those entries, copied: the entry of the state the numbers
    are in now, or — in a state where the row was never guessed — the one shown last (its Why
    pane says it was about other numbers). The score counts every entry once. ``sync`` follows
    the numbers after any change (the Session calls it); ``enter_beat`` shows the row a beat
    asks for, in the state it asks it in."""

    def __init__(self, scenario, asked_by_beats: frozenset[str] = frozenset()) -> None:
        self.scenario = scenario
        self.follow(scenario)
        self.asked_by_beats = (
            asked_by_beats  # stages no ``predict:`` asks for: shown until a beat does
        )
        self.guesses: dict[tuple[str, int | None], Rows] = {}
        self.revealed: dict[tuple[str, int | None], np.ndarray] = {}
        self.answers: dict[
            tuple[str, int | None], Rows
        ] = {}  # each shown row's state (NaN: none yet)
        self.entries: dict[Place, dict[tuple[object, bytes], Guessed]] = {}
        self.shown: dict[Place, tuple[object, bytes]] = {}
        self.owner: dict[Place, object] = {}  # the beat whose guesses a row of a beat's stage shows
        for key in scenario.predict:
            stage = stage_keyed(key)
            for head in range(scenario.heads) if stage.arithmetic.per_head else (None,):
                shape = (scenario.T, stage.column_count(scenario))
                self.guesses[(stage.name, head)] = Rows(shape)
                self.answers[(stage.name, head)] = Rows(shape)
                self.revealed[(stage.name, head)] = np.full(
                    scenario.T, stage.name in asked_by_beats
                )

    def take_over(self, other: Predictions) -> None:
        """Keep what ``other`` holds of the stages both predict (a lesson adding its stages)."""
        for key in other.guesses.keys() & self.guesses.keys():
            self.guesses[key], self.answers[key] = other.guesses[key], other.answers[key]
            self.revealed[key] = other.revealed[key]
        for place in other.entries:
            if place[0] in self.guesses:
                self.entries[place] = other.entries[place]
                if place in other.shown:
                    self.shown[place] = other.shown[place]

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
        return head if self.by_name[stage].arithmetic.per_head else None

    def hidden_rows(self, stage: str, head: int = 0) -> np.ndarray:
        """Per query row: whether showing ``stage`` (of ``head``) would give an unrevealed
        prediction away."""
        hidden = np.zeros(self.scenario.T, bool)
        reads = gives_away(stage, self.steps)
        for (name, h), revealed in self.revealed.items():
            if name in reads and (
                h is None or h == head or not self.by_name[stage].arithmetic.per_head
            ):
                hidden |= ~revealed
        return hidden

    def hiding(self, stage: str, head: int, row: int) -> list[str]:
        """The predicted stages whose unrevealed ``row`` hides ``row`` of ``stage``."""
        reads = gives_away(stage, self.steps)
        return [
            name
            for (name, h), revealed in self.revealed.items()
            if name in reads
            and (h is None or h == head or not self.by_name[stage].arithmetic.per_head)
            and not revealed[row]
        ]

    def anything_hidden(self) -> bool:
        return any(not revealed.all() for revealed in self.revealed.values())

    def _actual(self, attention, stage: str, head: int | None, row: int) -> np.ndarray:
        cols = range(self.by_name[stage].column_count(attention.scenario))
        return np.asarray(
            attention.values(stage, head or 0, range(row, row + 1), cols)[0], dtype=np.float64
        )

    # ---- the one place a guess lives ---------------------------------------------------------

    def _here(self, key, row: int, actual: np.ndarray) -> tuple[object, bytes]:
        """The entry's name for ``row`` in the state ``actual`` says, for the beat it belongs to."""
        return self.owner.get((key, row)), actual.tobytes()

    def _entry(self, key, row: int, actual: np.ndarray) -> Guessed:
        """The row's entry in this state, made (not guessed, not revealed) if there is none."""
        found = self.entries.setdefault((key, row), {})
        name = self._here(key, row, actual)
        if name not in found:
            found[name] = Guessed(actual)
        return found[name]

    def _show(self, key, row: int, name: tuple[object, bytes] | None) -> None:
        """Show entry ``name`` of the row (None: the row as it is before any guess)."""
        place = (key, row)
        entry = None if name is None else self.entries[place][name]
        if entry is None:
            self.shown.pop(place, None)
            self.guesses[key].set_row(row, np.nan)
            self.answers[key].set_row(row, np.nan)
            self.revealed[key][row] = key[0] in self.asked_by_beats
            return
        self.shown[place] = name
        self.guesses[key].set_row(row, entry.guesses)
        self.answers[key].set_row(row, entry.answers)
        self.revealed[key][row] = entry.revealed

    def sync(self, attention) -> None:
        """The numbers changed (an edit, undo, redo, a beat): each row guessed shows its entry of
        the state it is in now, if it has one; where it has none, what it showed stays."""
        for (key, row), found in self.entries.items():
            if key[0] not in self.by_name:  # (its step is off: nothing shows it)
                continue
            name = self._here(key, row, self._actual(attention, key[0], key[1], row))
            if name in found and self.shown.get((key, row)) != name:
                self._show(key, row, name)

    def guess(self, stage: str, head: int, row: int, col: int, value: float, attention) -> None:
        """A guess of one cell, in the state ``attention`` computes: it goes to the row's guesses
        in this state (a row shown with another state's guesses starts afresh here, or with the
        guesses made in this state before; the other state's are kept, not lost)."""
        key = (stage, self._head(stage, head))
        actual = self._actual(attention, stage, key[1], row)
        entry = self._entry(key, row, actual)
        entry.guesses[col] = value
        self._show(key, row, self._here(key, row, actual))

    def current_state(self, stage: str, head: int, row: int, attention) -> bool:
        """Whether ``row``'s guesses (or its reveal) were made in the state shown now."""
        answers = self.answers[(stage, self._head(stage, head))].row(row)
        return np.isnan(answers).all() or same_bits(
            answers, self._actual(attention, stage, head, row)
        )

    def guesses_of(self, stage: str, head: int) -> Rows:
        return self.guesses[(stage, self._head(stage, head))]

    def reveal(self, stage: str, head: int, row: int, attention) -> None:
        """The row shown revealed: its guesses judged against the numbers they were about; a row
        shown without a guess is revealed as it is now."""
        key = (stage, self._head(stage, head))
        name = self.shown.get((key, row))
        if name is None or np.isnan(self.entries[(key, row)][name].guesses).all():
            actual = self._actual(attention, stage, key[1], row)
            entry, name = self._entry(key, row, actual), self._here(key, row, actual)
        else:
            entry = self.entries[(key, row)][name]
        entry.revealed = True
        self._show(key, row, name)

    def enter_beat(self, beat: int, stage: str, head: int, row: int, attention) -> None:
        """A beat asks for ``row``: the row's guesses in the state it is in now (of this beat, for
        a stage only beats predict; else those typed under ``predict:``, at any beat), or the row
        afresh, to guess."""
        key = (stage, self._head(stage, head))
        if stage in self.asked_by_beats:
            self.owner[(key, row)] = beat
        actual = self._actual(attention, stage, key[1], row)
        self._entry(key, row, actual)
        self._show(key, row, self._here(key, row, actual))

    def is_revealed(self, stage: str, head: int, row: int) -> bool:
        return bool(self.revealed[(stage, self._head(stage, head))][row])

    def verdict(
        self, stage: str, head: int, rows: range, cols: range, actual: np.ndarray
    ) -> np.ndarray:
        """Per cell of a window: CLOSE_ENOUGH or OFF for a guessed cell of a revealed row."""
        key = (stage, self._head(stage, head))
        guesses = self.guesses[key].block(rows, cols)
        answers = self.answers[key].block(rows, cols)
        # a row's guesses are marked beside the numbers they were about, never beside others
        here = np.all((answers.view(np.int64) == actual.view(np.int64)) | np.isnan(answers), axis=1)
        judged = ~np.isnan(guesses) & (self.revealed[key][rows.start : rows.stop] & here)[:, None]
        with np.errstate(invalid="ignore"):
            close = np.abs(guesses - answers) <= CLOSE
        return np.where(judged, np.where(close, CLOSE_ENOUGH, OFF), UNKNOWN).astype(np.int8)

    def score(self, attention=None) -> tuple[int, int]:
        """(close, judged): the guessed cells of every revealed entry (every stage, head, row,
        state and beat, each once), each against the numbers of the state it was made in."""
        close = judged = 0
        for found in self.entries.values():
            for entry in found.values():
                if entry.revealed:
                    guessed = ~np.isnan(entry.guesses)
                    judged += int(guessed.sum())
                    close += int(
                        (np.abs(entry.guesses[guessed] - entry.answers[guessed]) <= CLOSE).sum()
                    )
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
            values = (
                stacked if stage.arithmetic.per_head and self.scenario.heads > 1 else stacked[0]
            )
            found[stage.key] = Expected(np.nan_to_num(values, nan=0.0), ~np.isnan(values))
        return found


def same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    return a.shape == b.shape and bool(
        np.all(np.asarray(a).view(np.int64) == np.asarray(b).view(np.int64))
    )
