"""What every stage declares beside its arithmetic (issue 46): its gradient and its effect on the
range of the scores (core/engine/stages/contract.py), checked for EVERY stage in REGISTRY, so a
new stage is checked the day it lands:

* a ChainRule's derivative against central finite differences of the stage's own ``compute``,
  and every declared gradient end to end: the backward pass's dL/d each input against
  (L(x + ε) − L(x − ε)) / 2ε, on a small random scenario that turns the stage on;
* a range rule against the extreme it promises: over random scores before the stage, the
  largest |score| after it never exceeds the rule's bound, nor its derivative the rule's
  steepest.

A throwaway stage shows that these checks catch a wrong gradient or range rule:
tests/engine/test_a_throwaway_stage_is_held_to_its_gradient_and_range_rule.py.
"""

from __future__ import annotations

import numpy as np
import pytest

import attn_tui.core.engine.stages as stages
from attn_tui.core.engine.attention import Attention
from attn_tui.core.engine.stages import Stage, stages_for
from attn_tui.core.engine.stages.contract import ChainRule, NoGradient, Outside
from attn_tui.core.loading.scenario_file import loads
from tests.engine.stage_contract_checks import (
    check_chain_rule,
    check_end_to_end,
    check_range_rule,
    matrix,
    projected,
    qkv,
)

# ---- small random scenarios, one of which turns each stage on ----------------------------------

# Each stage is checked in the first of these that has it: a new stage that none turns on fails
# test_every_stage_is_turned_on_by_one_of_the_scenarios until a line for it is added here.
SCENARIOS = (
    qkv(),
    qkv("causal: false\nscale: 0.7\n"),
    qkv("rope: {base: 10, pairs: interleaved}\n"),
    qkv("alibi: {slope: 0.5}\n"),
    qkv(f"bias: {matrix(3, 3)}\n"),
    qkv("softcap: 1.5\n"),
    qkv("mask_value: -2\nwindow: 2\n"),
    qkv("tiles: {queries: 2, keys: 2}\n"),
    qkv("decode: true\n"),
    projected(),
    # QK-norm in every style, before and after RoPE, per head with grouped keys and over the whole
    # projection: the gradient back through the norm is checked end to end in each
    projected("qk_norm: {style: qwen3, q_weight: [0.5, 1.5], k_weight: [1.2, -0.8]}\nrope: {}\n"),
    qkv("qk_norm: {style: gemma3, q_weight: [0.3, -0.2], k_weight: [0.1, 0.4]}\n"),
    projected("qk_norm: {style: olmo2, q_weight: [1, 0.5, 2, 1], k_weight: [0.7, 1, 1, 1.3]}\n"),
    qkv("rope: {base: 10}\nqk_norm: {style: llama4}\n"),
    f"tokens: [a, b, c]\nheads: 2\nkv_heads: 1\nX: {matrix(3, 3)}\nWq: {matrix(3, 4)}\n"
    f"Wk: {matrix(3, 2)}\nWv: {matrix(3, 2)}\nloss: {{target: {matrix(3, 4)}}}\n"
    "qk_norm: {style: qwen3, k_weight: [1.5, 0.5]}\n",
    # learned sinks (gpt-oss): the sink's column in softmax's sum, each head its own
    projected("sinks: [1.5, -0.5]\n"),
    # chunked attention (Llama 4): the mask's dS is 0 on another chunk's keys
    qkv("chunk: 2\n", T=5),
)


def scenario_with(stage: Stage):
    """The first scenario above in which ``stage`` is a step, or None."""
    for text in SCENARIOS:
        scenario = loads(text)
        if stage in stages_for(scenario):
            return scenario
    return None


def declaring(*kinds) -> list[Stage]:
    return [stage for stage in stages.REGISTRY if isinstance(stage.gradient, kinds)]


# ---- every stage of the registry ---------------------------------------------------------------


def test_every_stage_is_turned_on_by_one_of_the_scenarios():
    """Else its gradient and its range rule would go unchecked: add a scenario to SCENARIOS."""
    checked = [
        stage
        for stage in stages.REGISTRY
        if not isinstance(stage.gradient, NoGradient) or not isinstance(stage.score_range, Outside)
    ]
    missing = [stage.name for stage in checked if scenario_with(stage) is None]
    assert missing == [], f"no scenario in SCENARIOS turns on {missing}: add one"


@pytest.mark.parametrize("stage", declaring(ChainRule), ids=lambda stage: stage.name)
def test_a_chain_rule_agrees_with_finite_differences_of_its_stage(stage):
    check_chain_rule(scenario_with(stage), stage)


@pytest.mark.parametrize(
    "stage", declaring(ChainRule, stages.contract.GradientSteps), ids=lambda stage: stage.name
)
def test_every_declared_gradient_agrees_with_finite_differences_of_the_loss(stage):
    scenario = scenario_with(stage)
    if isinstance(
        stage.gradient, stages.contract.GradientSteps
    ):  # its steps are the scenario's too
        assert set(stage.gradient.steps) <= {step.name for step in stages_for(scenario)}, stage.name
    check_end_to_end(scenario, stage.name)


@pytest.mark.parametrize("number", range(len(SCENARIOS)))
def test_every_scenario_here_has_gradients_that_agree_with_finite_differences(number):
    """Each scenario whole (an explicit bias: dL/d bias is dL/d the Bias stage's values)."""
    check_end_to_end(loads(SCENARIOS[number]), f"scenario {number}")


@pytest.mark.parametrize(
    "stage",
    [stage for stage in stages.REGISTRY if not isinstance(stage.score_range, Outside)],
    ids=lambda stage: stage.name,
)
def test_every_range_rule_holds_at_the_extremes(stage):
    check_range_rule(scenario_with(stage), stage)


def test_a_rule_bounds_the_real_scores_too():
    """On a scenario with every rule at once (scale 0.7, a bias, softcap), the largest |score|
    reaching the mask is within score_bound of the largest |q·k|."""
    from attn_tui.core.engine.overflow import score_bound

    scenario = loads(qkv(f"scale: 0.7\nbias: {matrix(3, 3, 5.0)}\nsoftcap: 4\n"))
    attention = Attention(scenario)
    rows, keys = range(3), range(3)
    raw = float(np.abs(attention.values("score", 0, rows, keys)).max())
    before_mask = attention.values(attention.previous("mask"), 0, rows, keys)
    assert float(np.abs(before_mask).max()) <= score_bound(scenario, raw, attention.options) * (
        1 + 1e-12
    )
