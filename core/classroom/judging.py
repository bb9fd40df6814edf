"""A guessed row judged: right (within the tolerance), or the known mistake it matches, in
words. The diagnosis is ``core.teaching``'s; this only asks it about one row at one beat.

(Until ``core/teaching/judgement.py`` (#43) lands, a thin adapter with its contract: a Judge
per scenario, called with a stage's key, its values in its full shape, NaN where not given.)"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np
from attn_tui.core.classroom.beats import PredictBeat
from attn_tui.core.model.options import Expected
from attn_tui.core.model.scenario import Scenario
from attn_tui.core.teaching.compare import compare
from attn_tui.core.teaching.predictions import CLOSE

TOLERANCE = CLOSE  # what the app marks ✓ when a student reveals a row: the lesson's tolerance
RIGHT, OTHER = "right", "other"


@dataclass(frozen=True)
class Verdict:
    """What the teacher's screen and the summary count: right, or the mistake's words (or other)."""

    right: bool
    mistake: str | None   # the mistake's key, None if right or unexplained
    words: str            # "the scores were not divided by √d_k", "right", "other"


class _Judge:
    """The contract of ``core.teaching.judgement.Judge`` (#43), through ``compare``."""

    def __init__(self, scenario: Scenario, *, tolerance: float | None = None) -> None:
        self.scenario = scenario
        self.tolerance = scenario.expect_tolerance if tolerance is None else tolerance

    def __call__(self, stage: str, values: np.ndarray, *, head: int = 0) -> Verdict:
        given = ~np.isnan(values)
        scenario = dataclasses.replace(self.scenario, expect={stage: Expected(np.nan_to_num(values), given)},
                                       expect_tolerance=self.tolerance)
        comparison = compare(scenario)
        found = next((one for one in comparison.stages if one.stage == stage), None)
        right = found is not None and found.matches
        diagnosis = None if right else comparison.diagnosis
        if right:
            return Verdict(True, None, RIGHT)
        if diagnosis is None or diagnosis.tolerance is not None and diagnosis.tolerance > self.tolerance:
            return Verdict(False, None, OTHER)
        return Verdict(False, diagnosis.key, diagnosis.what)


class BeatJudge:
    """Judges rows guessed at one predict beat; a guess seen before is not judged again (a
    class gives a few distinct answers many times)."""

    def __init__(self, beat: PredictBeat, tolerance: float = TOLERANCE) -> None:
        self.beat = beat
        self._judge = _Judge(beat.scenario, tolerance=tolerance)
        self._seen: dict[tuple, Verdict] = {}

    def __call__(self, guess: tuple[float | None, ...]) -> Verdict:
        found = self._seen.get(guess)
        if found is None:
            found = self._seen[guess] = self._judge(self.beat.key, self._values(guess), head=self.beat.head)
        return found

    def _values(self, guess) -> np.ndarray:
        beat, scenario = self.beat, self.beat.scenario
        shape = (scenario.T, beat.columns)
        heads = scenario.heads if scenario.heads > 1 and _per_head(beat) else 0
        values = np.full((heads, *shape) if heads else shape, np.nan)
        row = np.array([np.nan if value is None else value for value in guess], dtype=np.float64)
        if heads:
            values[beat.head, beat.row] = row
        else:
            values[beat.row] = row
        return values


def _per_head(beat: PredictBeat) -> bool:
    from attn_tui.core.engine.stages import stage_named

    return stage_named(beat.stage).per_head
