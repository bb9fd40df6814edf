"""What every stage must declare beside its arithmetic (issue 46): its **gradient** and its
**effect on the range of the scores**, each one of a few small kinds below. ``Stage`` refuses
to be made without both, naming the stage and the part; :func:`check_registry` refuses a
registry whose stages declare kinds the backward pass or the range checks cannot use.

The stages from the scores (excluded) to the mask (excluded) are computed cell by cell, each
from the one before it (:func:`between_scores_and_mask`): the backward pass crosses each by its
:class:`ChainRule`, and the overflow and leak checks bound the scores through each by its range
rule (:class:`Adds`, :class:`Multiplies`, :class:`Caps`). Nothing in those checks names a stage.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

if TYPE_CHECKING:
    import numpy as np

    from attn_tui.core.engine.attention import Window
    from attn_tui.core.engine.explanation import Writer
    from attn_tui.core.model.heads import HeadInputs
    from attn_tui.core.model.options import Options
    from attn_tui.core.model.scenario import Scenario


def _silent(w: Writer) -> str | None:
    return None


# ---- its gradient ---------------------------------------------------------------------------


@dataclass(frozen=True)
class ChainRule:
    """The gradient of a stage computed cell by cell from the one before it: ``back`` gives
    dL/d the values it reads from dL/d its values (the chain rule: each cell times the stage's
    derivative there, the Jacobian being diagonal), ``derivative`` that derivative itself (for
    the words and for the tests, which check the two agree). The rest says how the dScores step
    writes it."""

    back: Callable[
        [Window, np.ndarray], np.ndarray
    ]  # (window, dL/d its values) → dL/d what it reads
    derivative: Callable[[Window], np.ndarray | float]  # the scale's: 1 / divisor; a bias's: 1.0
    heading: Callable[[Scenario, Options], str]  # its term in dScores' heading: " ∘ softcap′"
    factor: Callable[[Writer, float], str]  # its factor of one cell in a row: " × 0.9993"
    before: Callable[[Writer], str | None] = _silent  # what dScores says of it, before the row
    after: Callable[[Writer], str | None] = _silent  # and after it


@dataclass(frozen=True)
class GradientSteps:
    """A stage whose gradient the backward pass works out in steps of its own: their names
    (softmax's is dS = P ∘ (dP − D), the step ``d_scores``)."""

    steps: tuple[str, ...]


@dataclass(frozen=True)
class NoGradient:
    """A stage the backward pass never crosses, and why."""

    why: str


BRANCH = NoGradient(
    "a branch: it computes again, another way, what "
    "the stages before it did; no later stage reads it"
)
OF_THE_BACKWARD_PASS = NoGradient("a step of the backward pass: itself a gradient")

Gradient = ChainRule | GradientSteps | NoGradient


# ---- its effect on the range of the scores --------------------------------------------------


@dataclass(frozen=True)
class Grows:
    """What a range rule that can make a score larger says when one overflows float64."""

    what: str  # its values in a sentence: "scaled score"
    detail: Callable[[Scenario, Options], str]  # its part of the numbers: "divided by 1.414"
    advice: str = "use smaller numbers"
    keys: tuple[str, ...] = ()  # the scenario keys to point at first ("scale")


@dataclass(frozen=True)
class Adds:
    """|after| ≤ |before| + largest(scenario): it adds at most that to any score (a bias).

    Each rule's ``bound`` maps a bound on |score| before the stage (a number or an array, cell
    by cell) to one after it, and ``steepest`` bounds its derivative (the backward range check)."""

    largest: Callable[[Scenario], float]
    grows: Grows
    # The input it adds cell for cell, when the scenario gives one ("bias"): an edit of it is
    # checked by ``edited`` (scenario, inputs, row, col, head, option sets: NumericError if it
    # leaves its range), and dL/d it is dL/d the stage's values (it adds: the derivative is 1).
    input: str | None = None
    edited: Callable[[Scenario, HeadInputs, int, int, int | None, list[Options]], None] | None = (
        None
    )

    def bound(self, before, scenario: Scenario, options: Options):
        return before + self.largest(scenario)

    def steepest(self, scenario: Scenario, options: Options) -> float:
        return 1.0  # (it adds: d after / d before = 1)


@dataclass(frozen=True)
class Multiplies:
    """|after| ≤ |before| × factor(scenario, options), its derivative at most the factor too
    (the scale: 1 / the divisor)."""

    factor: Callable[[Scenario, Options], float]
    grows: Grows
    # Options the app's keys can switch to that change its factor (the s key: ÷√d_k, ÷1): when
    # another stage can make a score larger, the checks bound the scores under these too.
    reachable: tuple[Options, ...] = ()

    def bound(self, before, scenario: Scenario, options: Options):
        return before * self.factor(scenario, options)

    def steepest(self, scenario: Scenario, options: Options) -> float:
        return self.factor(scenario, options)


@dataclass(frozen=True)
class Caps:
    """|after| ≤ min(|before|, limit(scenario)): it keeps every score within ±limit and moves
    none away from 0, its derivative at most 1 (softcap's c·tanh(x / c), slope 1 − tanh²)."""

    limit: Callable[[Scenario], float]

    def bound(self, before, scenario: Scenario, options: Options):
        import numpy as np

        return np.minimum(before, self.limit(scenario))

    def steepest(self, scenario: Scenario, options: Options) -> float:
        return 1.0


@dataclass(frozen=True)
class Keeps:
    """|after| ≤ |before| on the cells it shows, and why (the mask: a visible key's score passes
    unchanged; a hidden one becomes the mask value, which the leak check weighs)."""

    why: str

    def bound(self, before, scenario: Scenario, options: Options):
        return before

    def steepest(self, scenario: Scenario, options: Options) -> float:
        return 1.0


@dataclass(frozen=True)
class Outside:
    """Its values are not on the way from the scores to the mask, and why (the queries before
    the scores, the weights after the mask, a gradient)."""

    why: str


AFTER_THE_MASK = Outside("after the mask: its numbers are not scores")
OF_THE_BACKWARD = Outside("a step of the backward pass: a gradient, not a score")

ScoreRange = Adds | Multiplies | Caps | Keeps  # a rule a stage on the scores' way declares
RangeRule = Adds | Multiplies | Caps | Keeps | Outside

GRADIENTS = (ChainRule, GradientSteps, NoGradient)
RANGES = (Adds, Multiplies, Caps, Keeps, Outside)


def check_stage(stage) -> None:
    """TypeError, naming the stage and the part, if it declares no gradient or no range rule
    (or one of a kind this module does not know)."""
    for part, kinds, example in (
        ("gradient", GRADIENTS, "ChainRule(...), GradientSteps((...)) or NoGradient(why)"),
        ("score_range", RANGES, "Adds, Multiplies, Caps, Keeps or Outside(why)"),
    ):
        value = getattr(stage, part)
        if not isinstance(value, kinds):
            said = "declares no" if value is None else f"declares {value!r} as its"
            raise TypeError(
                f"stage {stage.name!r} {said} {part}: every stage must declare one ({example}; "
                "see core/engine/stages/contract.py)"
            )


def between_scores_and_mask(steps) -> list:
    """The steps from the scores (excluded) up to the mask (excluded): each computed cell by
    cell from the one before it, crossed by the backward pass by its ChainRule and bounded by
    its range rule."""
    names = [stage.name for stage in steps]
    return list(steps[names.index("score") + 1 : names.index("mask")])


def check_registry(registry) -> None:
    """TypeError if a stage's gradient or range rule is of a kind the program cannot use where
    it stands: every stage between the scores and the mask declares a ChainRule and a range
    rule on the scores (the backward pass and the overflow checks cross it), no other stage
    does (it would be declared and never used), the steps a GradientSteps names are steps of
    the backward pass, and a branch or a backward step has no gradient."""
    by_name = {stage.name: stage for stage in registry}
    on_the_scores = {stage.name for stage in between_scores_and_mask(registry)}
    for stage in registry:
        check_stage(stage)
        where = f"stage {stage.name!r}"
        if stage.name in on_the_scores:
            if not isinstance(stage.gradient, ChainRule):
                raise TypeError(
                    f"{where} lies between the scores and the mask, "
                    "which the backward pass crosses cell by cell: its "
                    f"gradient must be a ChainRule, not {stage.gradient!r}"
                )
            if isinstance(stage.score_range, Outside):
                raise TypeError(
                    f"{where} lies between the scores and the mask: its score_range must say how "
                    "it changes the scores' range (Adds, Multiplies, Caps or Keeps), not Outside"
                )
        elif isinstance(stage.gradient, ChainRule):
            raise TypeError(
                f"{where} declares a ChainRule, which the backward pass uses only between "
                "the scores and the mask: say GradientSteps((...)) or NoGradient(why)"
            )
        elif isinstance(stage.score_range, (Adds, Multiplies, Caps)):
            raise TypeError(
                f"{where} declares a range rule on the scores but is not "
                "between the scores and the mask, where the checks ask it"
            )
        if (stage.arithmetic.branch or stage.arithmetic.backward) and not isinstance(
            stage.gradient, NoGradient
        ):
            raise TypeError(
                f"{where} is a {'branch' if stage.arithmetic.branch else 'backward step'}: the "
                "backward pass never crosses it, so its gradient is NoGradient(why)"
            )
        if isinstance(stage.gradient, GradientSteps):
            for name in stage.gradient.steps:
                if name not in by_name or not by_name[name].arithmetic.backward:
                    raise TypeError(
                        f"{where}'s gradient names {name!r}, "
                        "which is not a step of the backward pass"
                    )
