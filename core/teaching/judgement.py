"""Judge many sets of numbers against one scenario: a class's live answers, a student's own
code run on a case and ``check``'s ``expect:`` all ask the same question — are these a
stage's numbers, and if not, which known mistake gives them?

A :class:`Judge` works out the correct attention and each mistake's recomputation once, the
first time a judgement needs them, and reuses them for every later set of numbers, so judging
the 40th student's row costs microseconds. For a scenario over ``MAX_RECOMPUTED`` tokens the
mistakes are not recomputed (each is a whole trace): such numbers are judged right or ``other``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attn_tui.core.engine.attention import Attention
from attn_tui.core.engine.stages import expect_keys, mask, softmax, stage_keyed, weighted_sum
from attn_tui.core.engine.trace import Trace, trace
from attn_tui.core.model.options import Expected
from attn_tui.core.model.scenario import Scenario
from attn_tui.core.teaching.compare import (
    ROUNDED,
    SAME,
    Diagnosis,
    StageComparison,
    _compare,
    _distance,
    _nice,
    head_scenario,
)
from attn_tui.core.teaching.mistakes import MISTAKE_NAMED, MISTAKES, TELL_APART, _weighted

MAX_RECOMPUTED = (
    256  # tokens: above this a mistake's recomputation (a whole trace each) is not done
)
RIGHT, OTHER = "right", "other"
MAX_MEMO = 4096  # patterns of given cells remembered (per head, stage and mistake)


@dataclass(frozen=True)
class Judgement:
    stage: str  # the expect: key judged: "weights", "output", "scores", "scaled", …
    right: bool  # every given cell within the tolerance
    mistake: str | None  # the Mistake.key the numbers match; None if right or unexplained
    words: str  # one short phrase for a class tally ("forgot to divide by √d_k", "right", "other")
    comparison: StageComparison  # the given cells against attention's
    diagnosis: Diagnosis | None  # when a mistake matched


class Judge:
    """Judges many sets of numbers against one scenario: the correct attention and each mistake's
    recomputation are worked out once (lazily) and reused, so judging the 40th student's row costs
    microseconds, and its work is bounded for large T (over ``MAX_RECOMPUTED`` tokens no mistake
    is recomputed: numbers that are not right are 'other')."""

    def __init__(
        self,
        scenario: Scenario,
        *,
        tolerance: float | None = None,
        attention: Attention | None = None,
        correct: Trace | None = None,
    ) -> None:
        """``attention`` and head 0's ``correct`` trace, when the caller has them already."""
        self.scenario = scenario
        self.tolerance = scenario.expect_tolerance if tolerance is None else float(tolerance)
        self._attention = attention
        self._heads: dict[int, tuple[Scenario, Trace]] = {}
        if correct is not None and not scenario.multi_head:
            self._heads[0] = (scenario, correct)
        self._mistaken: dict[tuple[int, str], dict | None] = {}
        self._stages: tuple[str, ...] | None = None
        self._filled: dict[tuple, tuple] = {}  # (head, mistake, stage): _readings, worked out once
        self._shapes: dict[str, tuple[int, int]] = {}
        self._moved: dict[
            tuple, bool
        ] = {}  # (head, stage, mistake, given cells): the mistake changes them

    @property
    def attention(self) -> Attention:
        if self._attention is None:
            self._attention = Attention(self.scenario)
        return self._attention

    def stages(self) -> tuple[str, ...]:
        """The keys this scenario's numbers may be judged at (its head's stages, in step order)."""
        if (
            self._stages is None
        ):  # (the scenario is frozen: worked out once, as every judgement asks)
            self._stages = tuple(
                key
                for key in expect_keys(self.scenario)
                if stage_keyed(key).arithmetic.per_head and not stage_keyed(key).arithmetic.backward
            )
        return self._stages

    def shape(self, stage: str) -> tuple[int, int]:
        """The full shape of ``stage``'s values (rows × columns)."""
        if stage not in self._shapes:
            found = stage_keyed(stage)
            self._shapes[stage] = found.row_count(self.scenario), found.column_count(self.scenario)
        return self._shapes[stage]

    def head(self, h: int = 0) -> tuple[Scenario, Trace]:
        """Head ``h`` as a one-head scenario and its correct trace (worked out once)."""
        if h not in self._heads:
            if not 0 <= h < self.scenario.heads:
                raise ValueError(f"head {h} is not one of this scenario's {self.scenario.heads}")
            single = self.scenario
            if self.scenario.multi_head:
                single = head_scenario(self.scenario, self.attention, h, {})
            attention = self.attention if single is self.scenario else Attention(single)
            self._heads[h] = (single, trace(attention))
        return self._heads[h]

    def mistaken(self, key: str, h: int = 0) -> dict | None:
        """Attention computed mistake ``key``'s way for head ``h`` (its stages by key), or None
        when the mistake cannot show in this scenario (or is too large to recompute)."""
        if (h, key) not in self._mistaken:
            single, correct = self.head(h)
            mistake = MISTAKE_NAMED[key]
            found = None
            if single.T <= MAX_RECOMPUTED and mistake.applies(single, correct):
                found = mistake.recompute(single, correct)
            self._mistaken[(h, key)] = found
        return self._mistaken[(h, key)]

    def __call__(
        self, stage: str, values: np.ndarray, *, head: int = 0, given: np.ndarray | None = None
    ) -> Judgement:
        """Judge ``values`` (the stage's full shape; NaN where not given) at ``stage``. Numbers a
        program returned pass ``given`` (True where it gave a cell): then a NaN it gave is a value,
        judged, as a softmax's overflow is, not a cell left out."""
        if stage not in self.stages():
            raise ValueError(
                f"{stage!r} is not a stage of this scenario: one of {', '.join(self.stages())}"
            )
        values = np.asarray(values, dtype=np.float64)
        if values.shape != self.shape(stage):
            raise ValueError(
                f"{stage} is {self.shape(stage)[0]} × {self.shape(stage)[1]}, "
                f"not {' × '.join(map(str, values.shape))}"
            )
        correct = self.head(head)[1]
        given = (
            ~np.isnan(values)
            if given is None
            else np.broadcast_to(np.asarray(given, bool), values.shape).copy()
        )
        if stage_keyed(stage).arithmetic.empty_rows and correct.empty.any():
            given &= ~correct.empty[:, None]
        compared = _compare(stage, Expected(values, given), correct[stage], self.tolerance)
        if compared.matches:
            return Judgement(stage, True, None, RIGHT, compared, None)
        diagnosis = self.diagnose(stage, values, given, correct[stage], head)
        if diagnosis is None:
            return Judgement(stage, False, None, OTHER, compared, None)
        return Judgement(
            stage, False, diagnosis.key, MISTAKE_NAMED[diagnosis.key].words, compared, diagnosis
        )

    def diagnose(
        self, stage: str, values: np.ndarray, given: np.ndarray, right: np.ndarray, head: int = 0
    ) -> Diagnosis | None:
        """The mistake (or mistakes this scenario cannot tell apart) whose ``stage`` the given
        cells match; at a looser tolerance when they match one only if rounded. None if none."""
        tolerance = self.tolerance
        candidates = []
        for mistake in MISTAKES:
            mistaken = self.mistaken(mistake.key, head)
            if mistaken is None or stage not in mistaken:
                continue
            theirs = mistaken[stage]
            if theirs.shape != values.shape or not self._changes(
                mistake.key, stage, head, theirs, right, given
            ):
                continue  # a mistake that changes nothing here cannot be told apart from attention
            readings, empty = self._readings(mistake.key, stage, head)
            if empty is not None and not self._changes(
                mistake.key, stage, head, theirs, right, given & ~empty[:, None]
            ):
                # a row that sees nothing under the mistake, filled as a finite value fills
                # it, is evidence only beside rows the mistake changes (a predicted first row of
                # 1/3s alone is not a mask off by one)
                readings = readings[:1]
            distance, theirs = min(
                ((_distance(values, reading, given), reading) for reading in readings),
                key=lambda found: found[0],
            )
            candidates.append((distance, mistake.key, theirs))
        if not candidates:
            return None
        off_right = _distance(values, right, given)
        candidates.sort(key=lambda found: found[0])
        best_distance, _, best = candidates[0]
        if best_distance > tolerance and (best_distance > ROUNDED or best_distance >= off_right):
            return None
        same = [key for _, key, theirs in candidates if _distance(theirs, best, given) <= SAME]
        suggestion = None
        if len(same) > 1:
            suggestion = TELL_APART.get(
                frozenset(same),
                "change the inputs (more tokens, Q ≠ K, d_k ≥ 2) "
                "so that these mistakes give different numbers",
            )
        return Diagnosis(
            tuple(MISTAKE_NAMED[key] for key in same),
            None if best_distance <= tolerance else _nice(best_distance),
            suggestion,
        )

    def _readings(
        self, key: str, stage: str, head: int
    ) -> tuple[list[np.ndarray], np.ndarray | None]:
        """Mistake ``key``'s ``stage`` as each way of masking gives it (worked out once). Where
        the mistake's mask leaves a query seeing no key (off by one, k=0 hides the first token's
        only key), −∞ then a softmax gives NaN, but code that masks with a finite value gives
        numbers: −1e9 put in place of the scores, uniform weights and V's mean; −1e9 added to
        every score, the row as if unmasked (a constant added to a whole row does not change its
        softmax); PyTorch's scaled_dot_product_attention, 0. The same mistake, written another
        way, is named the same. With the readings, the rows that see nothing (None: no such
        row)."""
        memo = (head, key, stage)
        if memo in self._filled:
            return self._filled[memo]
        mistaken = self.mistaken(key, head)
        theirs = mistaken[stage]
        readings, empty = [theirs], None
        # (only a mistake that is attention under another mask leaves rows empty; NaN rows of
        # another, an overflowing softmax's, are its numbers)
        if "attention" in mistaken and stage in (softmax.STAGE.key, weighted_sum.STAGE.key):
            empty = mistaken["attention"].empty(range(theirs.shape[0]))
            if empty.any():
                readings += self._filled_rows(stage, theirs, empty, head)
            else:
                empty = None
        self._filled[memo] = readings, empty
        return readings, empty

    def _filled_rows(
        self, stage: str, theirs: np.ndarray, empty: np.ndarray, head: int
    ) -> list[np.ndarray]:
        """``theirs`` with its ``empty`` rows as uniform weights, the rows unmasked, and 0."""
        correct = self.head(head)[1]
        named = [step.name for step in correct.steps]
        scores = correct.before(mask.STAGE.name if mask.STAGE.name in named else softmax.STAGE.name)
        with np.errstate(over="ignore", invalid="ignore"):
            e = np.exp(scores - scores.max(axis=-1, keepdims=True))
            unmasked = e / e.sum(axis=-1, keepdims=True)
        T_k = scores.shape[1]
        filled = []
        for weights in (np.full(T_k, 1.0 / T_k), unmasked, np.zeros(T_k)):
            as_weights = np.broadcast_to(weights, scores.shape)
            found = as_weights if stage == softmax.STAGE.key else _weighted(as_weights, correct.V)
            reading = np.array(theirs, dtype=np.float64)
            reading[empty] = found[empty]
            filled.append(reading)
        return filled

    def _changes(
        self,
        key: str,
        stage: str,
        head: int,
        theirs: np.ndarray,
        right: np.ndarray,
        given: np.ndarray,
    ) -> bool:
        """Whether mistake ``key`` moves any of the ``given`` cells of ``stage`` past the tolerance
        (the same for every set of numbers that gives the same cells: a class's rows ask once)."""
        memo = (head, stage, key, given.shape, given.tobytes())
        found = self._moved.get(memo)
        if found is None:
            found = self._moved[memo] = _distance(theirs, right, given) > self.tolerance
            if len(self._moved) > MAX_MEMO:
                self._moved.clear()  # (numbers given cell by cell at random: bounded, not a leak)
        return found

    def row(self, stage: str, row: int, values: np.ndarray, *, head: int = 0) -> Judgement:
        """Judge one predicted row: ``values`` are row ``row``'s cells (NaN where not given)."""
        rows, columns = self.shape(stage)
        if not 0 <= row < rows:
            raise ValueError(f"row {row} is not one of {stage}'s {rows}")
        full = np.full((rows, columns), np.nan)
        full[row] = np.asarray(values, dtype=np.float64).reshape(columns)
        return self(stage, full, head=head)
