"""A guessed row judged: right (within the lesson's tolerance), or the known mistake it matches,
in words. The diagnosis is ``core.teaching.judgement``'s Judge, the same one ``check --impl``
and ``grade`` use; this only asks it about one row at one beat."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from attn_tui.core.classroom.beats import PredictBeat
from attn_tui.core.model.options import Expected
from attn_tui.core.teaching.compare import compare
from attn_tui.core.teaching.judgement import OTHER, RIGHT, Judge
from attn_tui.core.teaching.predictions import CLOSE

TOLERANCE = CLOSE  # what the app marks ✓ when a student reveals a row: the lesson's tolerance
__all__ = ["OTHER", "RIGHT", "TOLERANCE", "BeatJudge", "Verdict"]


@dataclass(frozen=True)
class Verdict:
    """What the teacher's screen and the summary count: right, or the mistake's words (or other)."""

    right: bool
    mistake: str | None  # the mistake's key, None if right or unexplained
    words: str  # "forgot to divide by √d_k", "right", "other"


class BeatJudge:
    """Judges rows guessed at one predict beat; a guess seen before is not judged again (a
    class gives a few distinct answers many times)."""

    def __init__(self, beat: PredictBeat, tolerance: float = TOLERANCE) -> None:
        self.beat = beat
        self._judge = Judge(beat.scenario, tolerance=tolerance)
        self._seen: dict[tuple, Verdict] = {}

    def __call__(self, guess: tuple[float | None, ...]) -> Verdict:
        found = self._seen.get(guess)
        if found is None:
            found = self._seen[guess] = self._verdict(guess)
        return found

    @property
    def attention(self):
        """The beat's attention, worked out once for the judge and the tally alike."""
        return self._judge.attention

    def _verdict(self, guess: tuple[float | None, ...]) -> Verdict:
        beat = self.beat
        row = np.array([np.nan if value is None else value for value in guess], dtype=np.float64)
        if (
            beat.key not in self._judge.stages()
        ):  # (a stage after the heads are joined: no mistake is recomputed there)
            return Verdict(True, None, RIGHT) if self._matches(row) else Verdict(False, None, OTHER)
        judged = self._judge.row(beat.key, beat.row, row, head=beat.head)
        if judged.right:
            return Verdict(True, None, RIGHT)
        if (
            judged.diagnosis is None
            or judged.diagnosis.tolerance is not None
            and judged.diagnosis.tolerance > self._judge.tolerance
        ):
            return Verdict(
                False, None, OTHER
            )  # (near a mistake only when rounded more loosely than the lesson asks)
        return Verdict(False, judged.mistake, judged.words)

    def _matches(self, row: np.ndarray) -> bool:
        beat, scenario = self.beat, self.beat.scenario
        values = np.full((scenario.T, beat.columns), np.nan)
        values[beat.row] = row
        given = ~np.isnan(values)
        expected = {beat.key: Expected(np.nan_to_num(values), given)}
        found = compare(
            dataclasses.replace(scenario, expect=expected, expect_tolerance=self._judge.tolerance),
            self._judge.attention,
        )
        return all(one.matches for one in found.stages if one.stage == beat.key)
