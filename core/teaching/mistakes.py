"""The known ways to get attention wrong, each declared once: what it is, how to fix it, when a
scenario can show it, and attention recomputed that way (through the same engine, so a bias or
a mask rule the scenario has is in the recomputation too). ``core.teaching.compare`` names the one a
student's numbers match."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from attn_tui.core.engine.attention import Attention
from attn_tui.core.engine.stages import mask, softmax, weighted_sum
from attn_tui.core.engine.trace import Trace, trace
from attn_tui.core.errors import NumericError
from attn_tui.core.model.scenario import Scenario


@dataclass(frozen=True)
class Mistake:
    """A known way to get attention wrong: what it is, how to fix it, when a scenario can show
    it, and attention recomputed that way (the stages it gives, by key)."""

    key: str
    what: str
    fix: str
    applies: Callable[[Scenario, Trace], bool]
    recompute: Callable[[Scenario, Trace], dict | None]
    words: str = ""  # one short phrase for a class's tally: "forgot to divide by √d_k"


def _with(causal_offset: int = 1, **changes) -> Callable[[Scenario, Trace], dict | None]:
    """A mistake that is attention itself under other options (or another causal offset)."""

    def recompute(scenario: Scenario, correct: Trace) -> dict | None:
        options = dataclasses.replace(correct.options, **changes)
        return _traced(
            Attention(scenario, options, visibility=scenario.visibility(options, causal_offset))
        )

    return recompute


def _traced(attention: Attention) -> dict | None:
    """Every stage of a recomputation by key, and the attention itself under ``attention``; a
    row that sees nothing gives NaN where it has no values, as a student's code would."""
    try:
        other = trace(attention)
    except NumericError:
        return None
    found: dict = {"attention": attention}
    with np.errstate(invalid="ignore"):
        for stage in other.steps:
            values = other[stage.key]
            found[stage.key] = (
                np.where(other.empty[:, None], np.nan, values)
                if stage.arithmetic.empty_rows
                else values
            )
    return found


def _transposed(scenario: Scenario, correct: Trace) -> dict | None:
    """K·Qᵀ for Q·Kᵀ, and everything after it: attention with the queries and keys swapped."""
    swapped = dataclasses.replace(
        scenario, inputs={"Q": correct.K, "K": correct.Q, "V": correct.V}, expect={}
    )
    found = _traced(
        Attention(swapped, correct.options, visibility=scenario.visibility(correct.options))
    )
    if found is not None:
        del found["attention"]  # its arithmetic would read as attention's own, on swapped inputs
    return found


def _mask_after_softmax(scenario: Scenario, correct: Trace) -> dict:
    weights = softmax.softmax(correct.before(mask.STAGE.name)) * ~correct.blocked
    return {softmax.STAGE.key: weights, weighted_sum.STAGE.key: weights @ correct.V}


def _softmax_axis(scenario: Scenario, correct: Trace) -> dict:
    with np.errstate(invalid="ignore"):
        weights = softmax.softmax(correct.before(softmax.STAGE.name).T).T
    return {softmax.STAGE.key: weights, weighted_sum.STAGE.key: weights @ correct.V}


def _unstable_softmax(scenario: Scenario, correct: Trace) -> dict:
    """exp(x) / Σ exp(x) without subtracting the row's largest score first: exp overflows to inf
    above ~709 (float64; ~88 in float32) and inf / inf is NaN."""
    with np.errstate(over="ignore", invalid="ignore"):
        e = np.exp(correct.before(softmax.STAGE.name))
        weights = e / e.sum(axis=-1, keepdims=True)
    return {softmax.STAGE.key: weights, weighted_sum.STAGE.key: _weighted(weights, correct.V)}


def _mask_zero(scenario: Scenario, correct: Trace) -> dict:
    """The hidden scores set to 0 (a multiplied 0/1 mask) instead of −∞: a hidden key still
    gets exp(0) of the softmax."""
    scores = np.where(correct.blocked, 0.0, correct.before(mask.STAGE.name))
    weights = softmax.softmax(scores)
    return {softmax.STAGE.key: weights, weighted_sum.STAGE.key: weights @ correct.V}


def _weighted(weights: np.ndarray, V: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", over="ignore"):
        return weights @ V


def _k_as_v(scenario: Scenario, correct: Trace) -> dict:
    return {weighted_sum.STAGE.key: correct[softmax.STAGE.key] @ correct.K}


MISTAKES = (
    Mistake(
        "transposed",
        "the scores are transposed (K·Qᵀ instead of Q·Kᵀ)",
        "compute scores = Q @ K.T, so that row i holds query i against every key",
        lambda scenario, correct: scenario.T == scenario.T_k,
        _transposed,
        words="transposed the scores (K·Qᵀ)",
    ),
    Mistake(
        "unscaled",
        "the scores were not divided by √d_k",
        "divide the scores by np.sqrt(d_k) before the softmax",
        lambda scenario, correct: correct.options.scale is not False,
        _with(scale=False),
        words="forgot to divide by √d_k",
    ),
    Mistake(
        "divided_by_d_k",
        "the scores were divided by d_k instead of √d_k",
        "divide by np.sqrt(d_k), not by d_k",
        lambda scenario, correct: correct.options.scale is True and correct.d_k != 1,
        lambda scenario, correct: _with(scale=float(correct.d_k))(scenario, correct),
        words="divided by d_k, not √d_k",
    ),
    Mistake(
        "divided_by_d_k_not_scale",
        "the scores were divided by d_k instead of the scenario's divisor",
        "divide by the scale the scenario gives",
        lambda scenario, correct: (
            correct.options.scale not in (True, False)
            and float(correct.options.scale) != correct.d_k
        ),
        lambda scenario, correct: _with(scale=float(correct.d_k))(scenario, correct),
        words="divided by d_k, not the scale",
    ),
    Mistake(
        "no_mask",
        "the causal mask was not applied",
        "before the softmax, set the scores where j > i to -inf (np.triu(np.ones((T, T)), k=1))",
        lambda scenario, correct: correct.options.causal,
        _with(causal=False),
        words="forgot the causal mask",
    ),
    Mistake(
        "mask_hides_self",
        "the mask is off by one: a token cannot see itself",
        "use np.triu(…, k=1), not k=0: the diagonal must stay visible",
        lambda scenario, correct: correct.options.causal,
        _with(0),
        words="mask hides the token itself",
    ),
    Mistake(
        "mask_sees_ahead",
        "the mask is off by one: a token sees one step ahead",
        "use np.triu(…, k=1), not k=2: only the future is hidden",
        lambda scenario, correct: correct.options.causal,
        _with(2),
        words="mask sees one step ahead",
    ),
    Mistake(
        "mask_after_softmax",
        "the mask was applied after the softmax",
        "mask the scores (set them to -inf) before the softmax, so each row still sums to 1",
        lambda scenario, correct: correct.options.causal,
        _mask_after_softmax,
        words="put the mask after the softmax",
    ),
    Mistake(
        "softmax_axis",
        "the softmax runs over the wrong axis (columns)",
        "normalise each row: softmax(scores, axis=-1)",
        lambda scenario, correct: True,
        _softmax_axis,
        words="softmax over the wrong axis",
    ),
    Mistake(
        "softmax_overflow",
        "the softmax does not subtract each row's largest score first, so exp overflows "
        "(to inf, and inf / inf is NaN) when the scores are large (~1,000; ~90 in float32)",
        "subtract the row's max before exp: e = np.exp(x - x.max(axis=-1, keepdims=True))",
        lambda scenario, correct: True,
        _unstable_softmax,
        words="softmax overflows (no max subtracted)",
    ),
    Mistake(
        "mask_zero",
        "the hidden scores were set to 0 instead of −∞ (a 0/1 mask multiplied in)",
        "set the hidden scores to -np.inf (or add -1e9), not 0: exp(0) = 1 still gives them weight",
        lambda scenario, correct: bool(correct.blocked.any()),
        _mask_zero,
        words="masked with 0, not −∞",
    ),
    Mistake(
        "k_as_v",
        "the weights multiply K where V belongs",
        "the output is weights @ V",
        lambda scenario, correct: correct.K.shape == correct.V.shape,
        _k_as_v,
        words="multiplied K, not V",
    ),
)
MISTAKE_NAMED = {mistake.key: mistake for mistake in MISTAKES}

# What to change in a scenario so that two mistakes give different numbers.
TELL_APART = {
    frozenset(
        {"no_mask", "mask_sees_ahead"}
    ): "with only two tokens, seeing one step ahead is seeing everything: add a third token",
    frozenset({"unscaled", "divided_by_d_k"}): "make d_k at least 2",
    frozenset({"unscaled", "divided_by_d_k_not_scale"}): "make d_k differ from 1",
}
