"""What every stage declares beside its arithmetic (issue 46): its gradient and its effect on the
range of the scores (core/engine/stages/contract.py), checked for EVERY stage in REGISTRY, so a
new stage is checked the day it lands:

* a ChainRule's derivative against central finite differences of the stage's own ``compute``,
  and every declared gradient end to end: the backward pass's dL/d each input against
  (L(x + ε) − L(x − ε)) / 2ε, on a small random scenario that turns the stage on;
* a range rule against the extreme it promises: over random scores before the stage, the
  largest |score| after it never exceeds the rule's bound, nor its derivative the rule's
  steepest.

A throwaway "temperature" stage (the scores divided by a scenario key, t) put into a copy of
REGISTRY shows the checks catch a wrong gradient, and that the mask's leak proof asks the rule:
at t = 0.001 and mask_value −800 a row put all its weight on a hidden key and `check` said ok.
"""

from __future__ import annotations

import dataclasses
import json
import math

import numpy as np
import pytest

import attn_tui.core.engine.stages as stages
from attn_tui.core.engine.attention import Attention, Window
from attn_tui.core.engine.backward import gradients
from attn_tui.core.engine.gradient_check import finite_difference
from attn_tui.core.engine.overflow import check_range
from attn_tui.core.engine.stages import KEYS, PREVIOUS, Stage, stages_for
from attn_tui.core.engine.stages.contract import (
    ChainRule,
    Grows,
    Keeps,
    Multiplies,
    NoGradient,
    Outside,
    check_registry,
)
from attn_tui.core.engine.stages.mask import cannot_leak, leak, leak_warnings
from attn_tui.core.errors import NumericError
from attn_tui.core.loading.scenario_file import loads

# ---- small random scenarios, one of which turns each stage on ----------------------------------

RNG = np.random.default_rng(46)


def matrix(rows: int, cols: int, size: float = 1.0) -> str:
    return json.dumps(np.round(RNG.normal(scale=size, size=(rows, cols)), 3).tolist())


def qkv(extra: str = "", T: int = 3, d: int = 2) -> str:
    return (
        f"tokens: {json.dumps([f't{i}' for i in range(T)])}\nQ: {matrix(T, d)}\nK: {matrix(T, d)}\n"
        f"V: {matrix(T, d)}\nloss: {{target: {matrix(T, d)}}}\n{extra}"
    )


def projected(extra: str = "") -> str:
    """Two heads of d_k = 2 projected from X, then Wo: Concat and Project."""
    return (
        f"tokens: [a, b, c]\nheads: 2\nX: {matrix(3, 3)}\nWq: {matrix(3, 4)}\nWk: {matrix(3, 4)}\n"
        f"Wv: {matrix(3, 4)}\nWo: {matrix(4, 3)}\nloss: {{target: {matrix(3, 3)}}}\n{extra}"
    )


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


# ---- the checks, written once: for the registry's stages and for the throwaway's ---------------


class Fed(Window):
    """A window whose stage reads ``before`` as the stage before it: its compute and its
    derivative then work on any scores a test chooses."""

    def __init__(self, attention, stage, before: np.ndarray) -> None:
        super().__init__(
            attention, stage, 0, range(before.shape[0]), range(before.shape[1]), keep=False
        )
        self.before = before

    def previous(self, cols=None) -> np.ndarray:
        return self.before


def check_chain_rule(scenario, stage: Stage, eps: float = 1e-6) -> None:
    """The ChainRule against central finite differences of ``compute``: for random scores X and
    a random upstream gradient G, Σ G ∘ ∂compute/∂X_ij measured, cell by cell, is what ``back``
    gives; and ``back`` is G times the ``derivative`` it declares."""
    attention = Attention(scenario)
    X = RNG.normal(scale=2.0, size=(scenario.T, scenario.T_k))
    G = RNG.normal(size=X.shape)
    derived = stage.gradient.back(Fed(attention, stage, X), G)
    said = G * np.broadcast_to(stage.gradient.derivative(Fed(attention, stage, X)), X.shape)
    assert np.allclose(derived, said, rtol=1e-12, atol=0), stage.name
    for i, j in np.ndindex(X.shape):
        up, down = X.copy(), X.copy()
        up[i, j] += eps
        down[i, j] -= eps
        measured = (
            np.sum(G * stage.compute(Fed(attention, stage, up)))
            - np.sum(G * stage.compute(Fed(attention, stage, down)))
        ) / (2 * eps)
        assert measured == pytest.approx(derived[i, j], abs=1e-7, rel=1e-6), (stage.name, i, j)


def check_end_to_end(scenario, label: str) -> None:
    """dL/d every input cell from the backward pass against the loss measured either side of it."""
    found = gradients(scenario).inputs
    for name, values in scenario.inputs.items():
        for index in np.ndindex(values.shape):
            measured = finite_difference(scenario, name, index)
            assert measured == pytest.approx(found[name][index], abs=1e-7, rel=1e-6), (
                label,
                name,
                index,
            )


def check_range_rule(scenario, stage: Stage) -> None:
    """Over random scores before the stage, of sizes from 1e-3 to 1e3: the largest |score| after
    it is at most the rule's bound of the largest before it (to rounding), and so is each cell's
    (a bound on a number is a bound on every number below it), and |derivative| ≤ steepest."""
    attention = Attention(scenario)
    rule = stage.score_range
    for size in (1e-3, 1.0, 30.0, 1e3):
        X = RNG.normal(scale=size, size=(scenario.T, scenario.T_k))
        window = Fed(attention, stage, X)
        after = stage.compute(window)
        shown = (
            ~attention.blocked(window.rows, window.cols) if stage.masks else np.ones(X.shape, bool)
        )
        promised = rule.bound(float(np.abs(X).max()), scenario, attention.options)
        assert float(np.abs(after[shown]).max()) <= promised * (1 + 1e-12), (stage.name, size)
        cellwise = rule.bound(np.abs(X), scenario, attention.options)
        assert (np.abs(after[shown]) <= cellwise[shown] * (1 + 1e-12)).all(), (stage.name, size)
        if isinstance(stage.gradient, ChainRule):
            slope = np.abs(np.broadcast_to(stage.gradient.derivative(window), X.shape))
            assert slope.max() <= rule.steepest(scenario, attention.options) * (1 + 1e-12), (
                stage.name,
                size,
            )


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


# ---- a stage without its parts -----------------------------------------------------------------


def temperature_stage(gradient="right", score_range="right") -> Stage:
    """The scores divided by t (``temperature: t``), with its gradient and range rule as asked."""

    def t(scenario) -> float:
        return scenario.stage_settings["temperature"].t

    rules = {
        "right": ChainRule(
            back=lambda w, gradient: gradient / t(w.scenario),
            derivative=lambda w: 1.0 / t(w.scenario),
            heading=lambda s, o: " ÷ t",
            factor=lambda w, value: f" × {value:g}",
        ),
        # (what a forgotten pass_back meant: the gradient passed on unchanged, and said so)
        "unchanged": ChainRule(
            back=lambda w, gradient: gradient,
            derivative=lambda w: 1.0,
            heading=lambda s, o: "",
            factor=lambda w, value: "",
        ),
    }
    ranges = {
        "right": Multiplies(
            lambda scenario, options: 1.0 / t(scenario),
            Grows("score over the temperature", lambda scenario, options: f"÷ t = {t(scenario):g}"),
        ),
        "adds nothing": Keeps("as mask.py assumed of every stage that is not a bias"),
    }
    return Stage(
        name="temperature",
        title="Temperature",
        key="tempered",
        reads=(PREVIOUS,),
        changes="as the scores",
        columns=KEYS,
        palette="diverging",
        heading=lambda scenario, options: "scores ÷ t",
        compute=lambda w: w.previous() / t(w.scenario),
        explain=lambda w: "÷ t",
        applies=lambda scenario: "temperature" in scenario.stage_settings,
        gradient=rules.get(gradient, gradient),
        score_range=ranges.get(score_range, score_range),
    )


@dataclasses.dataclass(frozen=True)
class Temperature:
    t: float

    def describe(self) -> str:
        return f"temperature {self.t:g}"

    def yaml(self, matrix) -> str:
        return f"temperature: {self.t!r}\n"

    def of_head(self, h, heads):
        return self


@pytest.fixture
def with_temperature(monkeypatch):
    """Put a temperature stage (before the mask) into a copy of REGISTRY; give the scenario its t."""

    def install(stage: Stage):
        registry = list(stages.REGISTRY)
        registry.insert([step.name for step in registry].index("mask"), stage)
        monkeypatch.setattr(stages, "REGISTRY", tuple(registry))

    return install


def tempered(text: str, t: float):
    scenario = loads(text)
    return dataclasses.replace(
        scenario, stage_settings={**scenario.stage_settings, "temperature": Temperature(t)}
    )


@pytest.mark.parametrize("part", ["gradient", "score_range"])
def test_a_stage_without_a_required_part_is_refused_naming_the_stage_and_the_part(part):
    with pytest.raises(
        TypeError, match=rf"stage 'temperature' declares no {part}: every stage must declare one"
    ):
        temperature_stage(**{part: None})
    with pytest.raises(TypeError, match=rf"stage 'temperature' declares '1.0' as its {part}"):
        temperature_stage(**{part: "1.0"})  # (not one of the kinds: a bare number, say)


def test_a_module_whose_stage_lacks_its_gradient_fails_at_import(tmp_path, monkeypatch):
    """As a stage module is written: Stage(...) at its top level, so importing it fails."""
    (tmp_path / "forgot.py").write_text(
        "from attn_tui.core.engine.stages import KEYS, PREVIOUS, Stage\n"
        "from attn_tui.core.engine.stages.contract import Keeps\n"
        "STAGE = Stage(name='forgot', title='Forgot', key='forgot', reads=(PREVIOUS,), changes='-', columns=KEYS,\n"
        "              palette='diverging', heading=lambda s, o: '', compute=lambda w: w.previous(),\n"
        "              explain=lambda w: '', score_range=Keeps('it changes nothing'))\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(TypeError, match="stage 'forgot' declares no gradient"):
        __import__("forgot")


def test_a_stage_before_the_mask_with_no_chain_rule_is_refused_by_the_registry(with_temperature):
    """The backward pass crosses every stage between the scores and the mask: one that says it
    has no gradient there is refused as soon as the registry is used, naming it."""
    with_temperature(temperature_stage(gradient=NoGradient("forgot")))
    with pytest.raises(TypeError, match="stage 'temperature' lies between the scores and the mask"):
        stages_for(loads(qkv()))
    with pytest.raises(
        TypeError, match="'temperature' lies between the scores and the mask: its score_range"
    ):
        check_registry(
            [
                *stages.REGISTRY[:5],
                temperature_stage(score_range=Outside("not on the scores")),
                *stages.REGISTRY[5:],
            ]
        )


# ---- the throwaway temperature stage, caught -------------------------------------------------------


def test_a_temperature_stage_with_a_wrong_gradient_is_caught(with_temperature):
    """Declared "unchanged" (what a forgotten pass_back meant), t = 0.5: both checks fail."""
    with_temperature(temperature_stage(gradient="unchanged"))
    stage = stages.stage_named("temperature")
    scenario = tempered(qkv(), 0.5)
    assert stage in stages_for(scenario)
    with pytest.raises(AssertionError):
        check_chain_rule(scenario, stage)
    with pytest.raises(AssertionError):
        check_end_to_end(scenario, "temperature")


def test_a_temperature_stage_with_its_right_gradient_and_rule_passes_every_check(with_temperature):
    with_temperature(temperature_stage())
    stage = stages.stage_named("temperature")
    scenario = tempered(qkv(), 0.5)
    check_chain_rule(scenario, stage)
    check_end_to_end(scenario, "temperature")
    check_range_rule(scenario, stage)


def test_a_range_rule_that_says_too_little_is_caught(with_temperature):
    with_temperature(temperature_stage(score_range="adds nothing"))
    with pytest.raises(AssertionError):
        check_range_rule(tempered(qkv(), 0.5), stages.stage_named("temperature"))


LEAKY = (
    "tokens: [a, b]\nQ: [[-1], [1]]\nK: [[1], [1]]\nV: [[1], [0]]\nscale: false\nmask_value: -800\n"
)


def test_the_leak_check_asks_the_range_rule(with_temperature):
    """Row a sees only key a, whose score is −1; ÷ 0.001 makes it −1000, below the hidden key's
    mask value −800, so the hidden key takes all but e^−200 of the weight. By the norms alone
    (|q·k| ≤ 1, + nothing) the mask could not leak, and `check` said ok; the rule (× 1000) says
    it can, the scan finds the row, and the warning says so."""
    with_temperature(temperature_stage())
    attention = Attention(tempered(LEAKY, 0.001))
    weights = attention.values("softmax", 0, range(2), range(2))
    hidden = 1.0 / (1.0 + math.exp(-200.0))  # by hand: e^−800 / (e^−1000 + e^−800)
    assert weights[0, 1] == pytest.approx(hidden, rel=1e-12)
    assert not cannot_leak(attention)
    share, h, row = leak(attention)
    assert (h, row) == (0, 0) and share == pytest.approx(hidden, rel=1e-12)
    assert leak_warnings({"": attention}) and "of row 1" in leak_warnings({"": attention})[0]


def test_a_rule_that_hides_the_growth_would_have_let_the_leak_through(with_temperature):
    """The same scenario with the rule declared as "changes nothing" (mask.py's old assumption):
    the proof from norms then wrongly says no key can leak — what the rule is for."""
    with_temperature(temperature_stage(score_range="adds nothing"))
    attention = Attention(tempered(LEAKY, 0.001))
    assert cannot_leak(attention) and leak(attention) is None
    assert attention.values("softmax", 0, range(1), range(2))[0, 1] > 0.999  # yet it leaks


def test_the_overflow_check_asks_the_range_rule(with_temperature):
    """|q·k| = 1e306 is finite; ÷ 0.001 is not: refused, in the temperature's own words."""
    with_temperature(temperature_stage())
    scenario = tempered("tokens: [a]\nQ: [[1e153]]\nK: [[1e153]]\nV: [[1]]\nscale: false\n", 0.001)
    with pytest.raises(NumericError, match="a score over the temperature overflows float64"):
        check_range(scenario)
    check_range(tempered("tokens: [a]\nQ: [[1e153]]\nK: [[1e153]]\nV: [[1]]\nscale: false\n", 1.0))
