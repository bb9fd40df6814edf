"""A class's answers at one predict beat, counted: how many answered, how many are right, the
wrong ones grouped by the mistake they match, and each column's spread of guesses (a small
histogram with the correct value's bin marked, and the median). A student's latest answer is
the one that counts."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

import numpy as np

from attn_tui.core.classroom.beats import PredictBeat
from attn_tui.core.classroom.judging import OTHER, TOLERANCE, BeatJudge, Verdict

BINS = 8
BARS = " ▁▂▃▄▅▆▇█"


@dataclass(frozen=True)
class Spread:
    """One column's guesses: counts per bin from ``low`` to ``high``, the bin the correct value
    falls in, and the median (None: nobody guessed this column)."""

    counts: tuple[int, ...]
    low: float
    high: float
    correct: float
    correct_bin: int
    median: float | None
    guessed: int

    def bars(self) -> str:
        top = max(self.counts, default=0)
        return (
            "".join(
                BARS[0 if not count else max(1, round(count / top * (len(BARS) - 1)))]
                for count in self.counts
            )
            if top
            else " " * len(self.counts)
        )


@dataclass(frozen=True)
class Counts:
    beat: int
    answered: int
    right: int
    mistakes: tuple[tuple[str, str, int], ...]  # (key, words, how many), most first; "other" last
    spreads: tuple[Spread, ...]

    @property
    def other(self) -> int:
        return sum(count for key, _, count in self.mistakes if key == OTHER)


class BeatTally:
    """The latest answer of each student at one predict beat."""

    def __init__(self, beat: PredictBeat, tolerance: float = TOLERANCE) -> None:
        self.beat = beat
        self.judge = BeatJudge(beat, tolerance)
        self.latest: dict[str, tuple[float | None, ...]] = {}
        self._correct: np.ndarray | None = None

    def add(self, student: str, guess: tuple[float | None, ...]) -> None:
        self.latest[student] = guess

    @property
    def correct(self) -> np.ndarray:
        if self._correct is None:
            beat = self.beat
            self._correct = self.judge.attention.values(
                beat.stage, beat.head, range(beat.row, beat.row + 1), range(beat.columns)
            )[0]
        return self._correct

    def verdict(self, student: str) -> Verdict:
        return self.judge(self.latest[student])

    def counts(self, among: Collection[str] | None = None) -> Counts:
        """The counts of every student's latest answer, or of those ``among`` these students
        (the teacher's screen: those following now)."""
        latest = (
            self.latest
            if among is None
            else {student: guess for student, guess in self.latest.items() if student in among}
        )
        right = 0
        grouped: dict[tuple[str, str], int] = {}
        for guess in latest.values():
            verdict = self.judge(guess)
            if verdict.right:
                right += 1
            else:
                key = (verdict.mistake or OTHER, verdict.words)
                grouped[key] = grouped.get(key, 0) + 1
        mistakes = sorted(
            ((key, words, count) for (key, words), count in grouped.items()),
            key=lambda found: (found[0] == OTHER, -found[2], found[1]),
        )
        return Counts(self.beat.beat, len(latest), right, tuple(mistakes), self.spreads(latest))

    def spreads(self, latest: dict[str, tuple[float | None, ...]]) -> tuple[Spread, ...]:
        guesses = np.array(
            [[np.nan if value is None else value for value in guess] for guess in latest.values()],
            dtype=np.float64,
        ).reshape(len(latest), self.beat.columns)
        axis = SHARES if self.beat.key in SHARE_STAGES else None
        return tuple(
            spread(guesses[:, column], float(self.correct[column]), axis)
            for column in range(self.beat.columns)
        )


SHARE_STAGES = {"weights"}  # a share of attention: its histogram always spans 0 to 1
SHARES = (0.0, 1.0)


def spread(values: np.ndarray, correct: float, axis: tuple[float, float] | None = None) -> Spread:
    """The histogram of one column's guesses (NaN: not guessed) around the correct value, over
    ``axis`` at least (when given) and widened to every guess."""
    guessed = values[~np.isnan(values)]
    finite = correct if np.isfinite(correct) else 0.0
    low, high = axis or (finite, finite)
    low = float(min(guessed.min(initial=finite), finite, low))
    high = float(max(guessed.max(initial=finite), finite, high))
    if high - low < 1e-9:
        low, high = low - 0.5, high + 0.5
    edges = np.linspace(low, high, BINS + 1)
    counts = np.histogram(guessed, bins=edges)[0] if guessed.size else np.zeros(BINS, int)
    correct_bin = int(min(BINS - 1, max(0, np.searchsorted(edges, finite, side="right") - 1)))
    median = float(np.median(guessed)) if guessed.size else None
    return Spread(
        tuple(int(count) for count in counts),
        low,
        high,
        correct,
        correct_bin,
        median,
        int(guessed.size),
    )
