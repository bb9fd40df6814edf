"""Every stage of scaled dot-product attention for a scenario, as float64 arrays.

``compute`` is the one place the arithmetic happens; the TUI, ``--json``, ``--print`` and the
explanations all read the Trace it returns.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core.errors import NumericError
from core.scenario import Options, Scenario
from core.softmax import entropy_rows, softmax_rows

STAGES = ("score", "scale", "mask", "softmax", "output")
STAGE_TITLES = {
    "score": "Score",
    "scale": "Scale",
    "mask": "Mask",
    "softmax": "Softmax",
    "output": "Weighted sum",
}


@dataclass(eq=False)
class Trace:
    """One scenario's attention, stage by stage (T = tokens, d_k and d_v the widths).

    ``blocked`` is True where the causal mask hides a key from a query; ``exp`` holds
    ``exp(masked − row_max)``, the numerically stable form the weights are computed from.
    """

    tokens: tuple[str, ...]
    options: Options
    precision: int
    divisor: float
    Q: np.ndarray          # T × d_k
    K: np.ndarray          # T × d_k
    V: np.ndarray          # T × d_v
    scores: np.ndarray     # T × T, Q·Kᵀ
    scaled: np.ndarray     # T × T, scores / divisor
    blocked: np.ndarray    # T × T bool
    masked: np.ndarray     # T × T, scaled with blocked cells set to the mask value
    row_max: np.ndarray    # T
    exp: np.ndarray        # T × T
    row_sum: np.ndarray    # T
    weights: np.ndarray    # T × T, rows sum to 1
    output: np.ndarray     # T × d_v, weights·V
    max_weight: np.ndarray  # T
    entropy: np.ndarray    # T, in nats

    @property
    def T(self) -> int:
        return len(self.tokens)

    @property
    def d_k(self) -> int:
        return self.Q.shape[1]

    @property
    def d_v(self) -> int:
        return self.V.shape[1]

    def stage(self, name: str) -> np.ndarray:
        """The matrix a stage produces: scores, scaled, masked, weights or output."""
        return {"score": self.scores, "scale": self.scaled, "mask": self.masked,
                "softmax": self.weights, "output": self.output}[name]


def compute(scenario: Scenario, options: Options | None = None) -> Trace:
    """The trace of ``scenario`` (under other ``options``, for a variant).

    Raises ``NumericError`` when a stage leaves float64's range, e.g. a dot product of two
    rows of 1e200s; every stage of a returned trace is finite except masked cells.
    """
    options = options or scenario.options
    Q, K, V = scenario.Q, scenario.K, scenario.V
    T = len(scenario.tokens)
    divisor = options.divisor(Q.shape[1])
    with np.errstate(over="ignore", invalid="ignore"):
        scores = Q @ K.T
        scaled = scores / divisor
    _require_finite(scores, "score", scenario.tokens, "Q·Kᵀ")
    _require_finite(scaled, "scaled score", scenario.tokens, f"score / {divisor:g}")
    blocked = np.triu(np.ones((T, T), dtype=bool), k=1) if options.causal else np.zeros((T, T), bool)
    masked = np.where(blocked, options.mask_value, scaled)
    row_max, exp, row_sum, weights = softmax_rows(masked)
    output = weights @ V
    return Trace(
        tokens=scenario.tokens, options=options, precision=scenario.precision, divisor=divisor,
        Q=Q, K=K, V=V, scores=scores, scaled=scaled, blocked=blocked, masked=masked,
        row_max=row_max, exp=exp, row_sum=row_sum, weights=weights, output=output,
        max_weight=weights.max(axis=1), entropy=entropy_rows(weights),
    )


def compute_all(scenario: Scenario) -> dict[str, Trace]:
    """The scenario's own trace under ``""``, and one per variant under its name."""
    traces = {"": compute(scenario)}
    for variant in scenario.variants:
        traces[variant.name] = compute(scenario, variant.options(scenario.options))
    return traces


def _require_finite(values: np.ndarray, what: str, tokens: tuple[str, ...], formula: str) -> None:
    bad = np.argwhere(~np.isfinite(values))
    if len(bad):
        i, j = bad[0]
        raise NumericError(f"the {what} ({tokens[i]}, {tokens[j]}) overflows float64 "
                           f"({formula} = {values[i, j]}); use smaller numbers")
