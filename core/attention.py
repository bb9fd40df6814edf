"""Every stage of scaled dot-product attention for a scenario, as float64 arrays.

``compute`` is the one place the arithmetic happens; the TUI, ``--json``, ``--print`` and the
explanations all read the Trace it returns.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attn_tui.core.errors import NumericError
from attn_tui.core.scenario import Options, Scenario
from attn_tui.core.softmax import entropy_rows, softmax_rows
from attn_tui.core.stages import STAGE_TITLES, STAGES  # noqa: F401 (re-exported)



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

    @property
    def T(self) -> int:
        return len(self.tokens)

    @property
    def max_weight(self) -> np.ndarray:
        """Each row's largest weight: near 1 means the row attends to one token."""
        return self.weights.max(axis=1)

    @property
    def entropy(self) -> np.ndarray:
        """Each row's entropy in nats: 0 for one-hot, ln T for uniform."""
        return entropy_rows(self.weights)

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


def compute(scenario: Scenario, options: Options | None = None, mask_offset: int = 1) -> Trace:
    """The trace of ``scenario`` (under other ``options``, for a variant).

    ``mask_offset`` is where the causal mask starts: 1, the future, for attention itself; the
    diagnosis of a student's off-by-one mask recomputes with 0 or 2 (a row that can see
    nothing then has NaN weights, as the student's code would give).

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
    blocked = np.triu(np.ones((T, T), dtype=bool), k=mask_offset) if options.causal \
        else np.zeros((T, T), bool)
    masked = np.where(blocked, options.mask_value, scaled)
    with np.errstate(invalid="ignore"):
        row_max, exp, row_sum, weights = softmax_rows(masked)
    output = weights @ V
    _require_bounded_output(output, scenario.tokens)
    return Trace(
        tokens=scenario.tokens, options=options, precision=scenario.precision, divisor=divisor,
        Q=Q, K=K, V=V, scores=scores, scaled=scaled, blocked=blocked, masked=masked,
        row_max=row_max, exp=exp, row_sum=row_sum, weights=weights, output=output,
    )


def update(trace: Trace, scenario: Scenario, q_rows: np.ndarray, k_rows: np.ndarray,
           v_changed: bool) -> dict[str, np.ndarray]:
    """Bring ``trace`` up to date, in place, after rows of Q and K (and maybe V) changed.

    Only what depends on the change is recomputed: a Q row changes that row of every stage; a
    K row changes that column of the scores and then every row that can see it; V changes only
    the output. Returns, per stage, which cells now differ from before (bit for bit).

    Equal to ``compute(scenario)`` to the last bit, except where a matrix product is redone
    for a block of rows or columns instead of the whole (the scores after a Q or K edit, and
    the output rows after a weight change): BLAS adds in another order there, so those agree
    to about 1e-15 relative (tested to 1e-12). Softmax, masking and an output recomputed in
    full after a V edit are the same operations on the same numbers, and so bit for bit.
    """
    options = trace.options
    Q, K, V = scenario.Q, scenario.K, scenario.V
    trace.Q, trace.K, trace.V = Q, K, V
    changed = {name: np.zeros(getattr(trace, name).shape, bool)
               for name in ("scores", "scaled", "masked", "weights", "output")}
    with np.errstate(over="ignore", invalid="ignore"):
        scores_rows = Q[q_rows] @ K.T
        scores_cols = Q @ K[k_rows].T
    for values, rows, cols in ((scores_rows, q_rows, None), (scores_cols, None, k_rows)):
        _require_finite(values, "score", scenario.tokens, "Q·Kᵀ", rows, cols)
        _require_finite(values / trace.divisor, "scaled score", scenario.tokens, "score / divisor",
                        rows, cols)
    for rows, cols, new in ((q_rows, slice(None), scores_rows), (slice(None), k_rows, scores_cols)):
        _assign(trace.scores, changed["scores"], rows, cols, new)
        scaled = new / trace.divisor
        _assign(trace.scaled, changed["scaled"], rows, cols, scaled)
        blocked = trace.blocked[rows][:, cols]
        _assign(trace.masked, changed["masked"], rows, cols, np.where(blocked, options.mask_value, scaled))
    softmax_rows_changed = np.union1d(q_rows, _rows_seeing(trace.blocked, k_rows))
    rows = _index(softmax_rows_changed, trace.T)
    if len(softmax_rows_changed):
        row_max, exp, row_sum, weights = softmax_rows(trace.masked[rows])
        trace.row_max[rows], trace.exp[rows], trace.row_sum[rows] = row_max, exp, row_sum
        _assign(trace.weights, changed["weights"], rows, slice(None), weights)
    if v_changed:
        output = trace.weights @ V
        _require_bounded_output(output, scenario.tokens)
        _assign(trace.output, changed["output"], slice(None), slice(None), output)
    elif len(softmax_rows_changed):
        output = trace.weights[rows] @ V
        _require_bounded_output(output, scenario.tokens, np.arange(trace.T)[rows])
        _assign(trace.output, changed["output"], rows, slice(None), output)
    return changed


def _rows_seeing(blocked: np.ndarray, keys: np.ndarray) -> np.ndarray:
    """The query rows for which at least one of ``keys`` is visible."""
    if not len(keys):
        return np.zeros(0, dtype=np.intp)
    return np.flatnonzero(~blocked[:, keys].all(axis=1))


def _assign(target: np.ndarray, changed: np.ndarray, rows, cols, new: np.ndarray) -> None:
    """``target[rows, cols] = new``, marking in ``changed`` the cells whose bits moved."""
    index = _index(rows, target.shape[0]), _index(cols, target.shape[1])
    if not isinstance(index[0], slice) or not isinstance(index[1], slice):
        index = np.ix_(*(np.arange(n)[i] if isinstance(i, slice) else i
                         for n, i in zip(target.shape, index)))
    new = np.ascontiguousarray(new)
    changed[index] |= target[index].view(np.int64) != new.view(np.int64)
    target[index] = new


def _index(selection, length: int):
    """A run of consecutive indices as a slice (a view, not a copy); anything else as it is."""
    if isinstance(selection, slice):
        return selection
    if len(selection) and selection[-1] - selection[0] == len(selection) - 1:
        return slice(int(selection[0]), int(selection[-1]) + 1)
    return selection


def compute_all(scenario: Scenario) -> dict[str, Trace]:
    """The scenario's own trace under ``""``, and one per variant under its name."""
    traces = {"": compute(scenario)}
    for variant in scenario.variants:
        traces[variant.name] = compute(scenario, variant.options(scenario.options))
    return traces


def _require_bounded_output(output: np.ndarray, tokens: tuple[str, ...],
                            rows: np.ndarray | None = None) -> None:
    """``NumericError`` if a weighted sum rounded past float64's largest number (a NaN row, from
    a row that can see nothing, is left be: only the diagnosis of a student's mask makes one)."""
    bad = np.argwhere(np.isinf(output))
    if len(bad):
        i, j = bad[0]
        i = rows[i] if rows is not None else i
        raise NumericError(f"the output of {tokens[i]!r} (d{j + 1}) overflows float64: V's values "
                           "are too close to its largest number")


def _require_finite(values: np.ndarray, what: str, tokens: tuple[str, ...], formula: str,
                    rows: np.ndarray | None = None, cols: np.ndarray | None = None) -> None:
    """``NumericError`` naming the first cell that is not finite; ``rows`` and ``cols`` map a
    block's indices back to the whole matrix's."""
    bad = np.argwhere(~np.isfinite(values))
    if len(bad):
        i, j = bad[0]
        value = values[i, j]
        i = rows[i] if rows is not None else i
        j = cols[j] if cols is not None else j
        raise NumericError(f"the {what} ({tokens[i]}, {tokens[j]}) overflows float64 "
                           f"({formula} = {value}); use smaller numbers")
