"""What every stage declares beside its arithmetic (issue 46, core/engine/stages/contract.py),
held to on a stage that is not in the registry. A stage without its gradient or its range rule is
refused, naming the stage and the part. A throwaway "temperature" stage (the scores divided by a
scenario key, t) put into a copy of REGISTRY shows the checks
(tests/engine/stage_contract_checks.py) catch a wrong gradient, and that the mask's leak proof
asks the rule: at t = 0.001 and mask_value −800 a row put all its weight on a hidden key and
`check` said ok.
"""

from __future__ import annotations

import dataclasses
import math

import pytest

import attn_tui.core.engine.stages as stages
from attn_tui.core.engine.attention import Attention
from attn_tui.core.engine.overflow import check_range
from attn_tui.core.engine.stages import KEYS, PREVIOUS, Arithmetic, Display, Stage, stages_for
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
from tests.engine.stage_contract_checks import (
    check_chain_rule,
    check_end_to_end,
    check_range_rule,
    qkv,
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
        arithmetic=Arithmetic(
            compute=lambda w: w.previous() / t(w.scenario), reads=(PREVIOUS,), columns=KEYS
        ),
        display=Display(
            heading=lambda scenario, options: "scores ÷ t",
            explain=lambda w: "÷ t",
            palette="diverging",
            changes="as the scores",
        ),
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
    """Put a temperature stage (before the mask) into a copy of REGISTRY; give the scenario its
    t."""

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
        "from attn_tui.core.engine.stages import KEYS, PREVIOUS, Arithmetic, Display, Stage\n"
        "from attn_tui.core.engine.stages.contract import Keeps\n"
        "STAGE = Stage(name='forgot', title='Forgot', key='forgot',\n"
        "              arithmetic=Arithmetic(lambda w: w.previous(), (PREVIOUS,), KEYS),\n"
        "              display=Display(lambda s, o: '', lambda w: '', 'diverging', '-'),\n"
        "              score_range=Keeps('it changes nothing'))\n"
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


# ---- the throwaway temperature stage, caught ---------------------------------------------------


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
