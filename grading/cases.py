"""The battery a student's attention is checked on (``check --impl --cases`` and ``grade``): the
built-ins a plain ``attention(Q, K, V, causal)`` can compute, random T up to 64, T = 1,
d_k = 1, causal and not, large logits (scores ~1,000, where a softmax that does not
subtract the row's max overflows), and a mask that hides every key of one query (given only to a
function that takes a mask: grading/empty_rows.py says how that row is judged). Each case is a
Scenario of its own, judged by its Judge.

The random cases' numbers are fixed for ``check --impl --cases`` (a student's own check, the same
each time) and drawn afresh for each ``grade`` run (``seed``): a student has attn-tui, and with
it every fixed case's answers, which a file could look up by its inputs' bytes and pass without
computing attention. The built-ins' numbers are public (their YAML) whatever the seed."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

import numpy as np

from attn_tui.core.engine.attention import Attention
from attn_tui.core.model.options import Options
from attn_tui.core.model.scenario import Scenario
from attn_tui.core.teaching.judgement import Judge


@dataclass
class Case:
    name: str
    scenario: Scenario
    _judges: dict = field(default_factory=dict, repr=False)

    @property
    def causal(self) -> bool:
        return bool(self.scenario.options.causal)

    @property
    def explicit(self) -> bool:
        """Whether the case has a mask of its own (beyond causal): only a mask argument gives it."""
        return self.scenario.mask is not None

    def allowed(self) -> np.ndarray:
        """Which keys each query may see (True), every rule of the case combined."""
        scenario = self.scenario
        rows, keys = np.arange(scenario.T), np.arange(scenario.T_k)
        return ~scenario.visibility().blocked(rows, keys)

    def inputs(self) -> dict[str, np.ndarray]:
        """Q, K and V as attention reads them (projected, when the scenario projects X)."""
        given = Attention(self.scenario).inputs
        return {"Q": np.array(given.Q(0)), "K": np.array(given.K(0)), "V": np.array(given.V(0))}

    def judge(self, tolerance: float | None = None) -> Judge:
        """One Judge per tolerance (float32 results are judged at float32's)."""
        if tolerance not in self._judges:
            self._judges[tolerance] = Judge(self.scenario, tolerance=tolerance)
        return self._judges[tolerance]


def plain(scenario: Scenario) -> bool:
    """Whether ``attention(Q, K, V, causal)`` computes this scenario: one head, Q·Kᵀ/√d_k, no
    bias, no RoPE, and no mask but the causal one."""
    return (
        not scenario.multi_head
        and not scenario.cross
        and scenario.rope is None
        and scenario.options.scale is True
        and scenario.window is None
        and scenario.padding is None
        and scenario.mask is None
        and set(scenario.stage_settings) <= {"online"}
        and not any(key in scenario.inputs for key in ("bias",))
    )


def of_scenario(scenario: Scenario, name: str | None = None) -> Case:
    return Case(name or scenario.display_name, scenario)


def random_case(
    name: str, T: int, d_k: int, d_v: int, causal: bool, seed: int | list[int], spread: float = 1.0
) -> Case:
    rng = np.random.RandomState(seed)
    inputs = {
        "Q": rng.randn(T, d_k) * spread,
        "K": rng.randn(T, d_k) * spread,
        "V": rng.randn(T, d_v),
    }
    tokens = tuple(f"t{i + 1}" for i in range(T))
    return Case(name, Scenario(name, tokens, inputs, Options(causal=causal)))


# 1 = may attend; the second query (t2) sees nothing, every other query sees its own key
HIDES_A_ROW = np.array(
    [[1, 0, 1, 0, 1], [0, 0, 0, 0, 0], [1, 1, 1, 0, 0], [0, 1, 0, 1, 1], [1, 1, 1, 1, 1]], bool
)


def masked_row_case(seed: int | list[int] = 9) -> Case:
    """Five queries, not causal, a mask that hides every key of t2 (and some of the others')."""
    case = random_case("a fully masked row (the mask hides every key of t2)", 5, 3, 2, False, seed)
    return Case(case.name, dataclasses.replace(case.scenario, mask=HIDES_A_ROW))


def battery(include_builtins: bool = True, seed: int | None = None) -> list[Case]:
    """The default cases, in the order they are reported; the random ones' numbers drawn from
    ``seed`` (None: the fixed numbers ``check --impl --cases`` shows)."""
    from attn_tui.core import load
    from attn_tui.core.loading import catalog

    def drawn(fixed: int) -> int | list[int]:
        return fixed if seed is None else [seed, fixed]

    cases = []
    if include_builtins:
        for builtin in catalog.builtins():
            scenario = load(builtin.path)
            if plain(scenario) and not scenario.variants:
                cases.append(of_scenario(scenario, builtin.name))
    cases += [
        random_case("random T=5, d_k=4, causal", 5, 4, 4, True, drawn(1)),
        random_case("random T=7, d_k=3, d_v=5, not causal", 7, 3, 5, False, drawn(2)),
        random_case("random T=64, d_k=16, causal", 64, 16, 8, True, drawn(3)),
        random_case("random T=64, d_k=8, not causal", 64, 8, 8, False, drawn(4)),
        random_case("T=1", 1, 4, 3, True, drawn(5)),
        random_case("d_k=1", 6, 1, 2, True, drawn(6)),
        # scores of ~1,000: exp overflows unless each row's max is subtracted first
        random_case("large logits (scores ~1,000), causal", 6, 4, 4, True, drawn(7), spread=25.0),
        random_case(
            "large logits (scores ~1,000), not causal", 6, 4, 4, False, drawn(8), spread=25.0
        ),
        masked_row_case(drawn(9)),
    ]
    return cases
