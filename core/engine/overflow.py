"""Float64's range: a scenario whose stages could overflow is refused when it is read
(:func:`check_range`), and an edit that would make one overflow is undone (:func:`require_finite`).

A score is q·k, at most ‖q‖·‖k‖; the output is a weighted average of V's rows, so V keeps a
margin below float64's largest; a stage's own setting (a bias) is bounded by its reader.
"""

from __future__ import annotations

import math

import numpy as np

from attn_tui.core.errors import NumericError
from attn_tui.core.model.heads import Changed, HeadInputs
from attn_tui.core.model.options import Options
from attn_tui.core.limits import V_LIMIT
from attn_tui.core.model.scenario import Scenario

ROWS_AT_A_TIME = 256


def check_range(scenario: Scenario, inputs: HeadInputs | None = None) -> None:
    """``NumericError`` if some stage would overflow float64 under any of the scenario's options.

    A cheap bound settles almost every scenario. A doubtful one has its largest score found
    exactly, a block of rows at a time (memory stays small at T = 16,384); scaling divides every
    score by the same number, so that one score decides each option set. The output is a
    weighted average of V's rows, so V itself must keep a margin below float64's largest.
    Every head is checked (RoPE turns pairs of dimensions and keeps their lengths, so the
    bound from the unrotated vectors holds for the rotated ones).
    """
    inputs = inputs or HeadInputs(scenario)
    many = scenario.heads > 1
    added = largest_added(scenario)
    options = option_sets(scenario)
    given = len(options)
    if added:  # a scaled score with its bias must stay finite under every scale the app can switch to
        options += [Options(scale=True), Options(scale=False)]
    for h in range(scenario.heads):
        which = f" of {scenario.head_names[h]}" if many else ""
        Q, K, V = inputs.Q_before_rotation(h), inputs.K_before_rotation(h), inputs.V(h)
        for name, values in (("Q", Q), ("K", K), ("V", V)):
            if not np.isfinite(values).all():
                raise NumericError(f"{name}{which} = X·W{name.lower()} overflows float64; use smaller numbers",
                                   (name, "W" + name.lower(), "X"))
        largest_v = float(np.abs(V).max())
        if largest_v >= V_LIMIT:
            raise NumericError(f"V{which} holds {largest_v:.3e}: the weighted sum of such values can round "
                               f"past float64's largest number; keep V below {V_LIMIT:.0e}", ("V", "Wv", "X"))
        # |q·k| ≤ ‖q‖·‖k‖ (Cauchy–Schwarz), exact when d_k = 1; norms scaled down first so that
        # squaring cannot overflow
        q_scale, k_scale = float(np.abs(Q).max()) or 1.0, float(np.abs(K).max()) or 1.0
        bound = (q_scale * float(np.sqrt(np.square(Q / q_scale).sum(axis=1).max()))
                 * k_scale * float(np.sqrt(np.square(K / k_scale).sum(axis=1).max())))
        if all(bound / o.divisor(scenario.d_k) < 1e300 for o in options):
            continue
        largest = bound if scenario.d_k == 1 and math.isfinite(bound) else 0.0  # (then it is exact)
        Q, K = inputs.Q(h), inputs.K(h)
        with np.errstate(over="ignore", invalid="ignore"):
            for start in range(0, len(Q) if not largest else 0, ROWS_AT_A_TIME):
                block = Q[start:start + ROWS_AT_A_TIME] @ K.T
                # (a NaN, from products that overflow and cancel, would be lost by max(): asked first)
                if not np.isfinite(block).all():
                    i, j = np.argwhere(~np.isfinite(block))[0]
                    raise NumericError(f"the score{which} ({scenario.row_tokens[start + i]}, "
                                       f"{scenario.tokens[j]}) overflows float64; use smaller numbers",
                                       ("Q", "Wq", "X"))
                largest = max(largest, float(np.abs(block).max()))
            for number, o in enumerate(options):
                if not np.isfinite(largest / o.divisor(scenario.d_k)):
                    raise NumericError(f"a scaled score{which} overflows float64 (scores up to {largest:.3e}, "
                                       f"divided by {o.divisor(scenario.d_k):g}); use a larger scale",
                                       ("scale", "Q", "Wq", "X"))
                if not np.isfinite(largest / o.divisor(scenario.d_k) + added):
                    raise NumericError(f"a scaled score{which} plus the bias overflows float64 (scores up to "
                                       f"{largest:.3e}, divided by {o.divisor(scenario.d_k):g}"
                                       f"{' as the app s key can set it' if number >= given else ''}, and a bias up to "
                                       f"{added:.3e}); use smaller numbers", ("Q", "Wq", "X"))
    if "Wo" in scenario.inputs:  # |concat·Wo + bo| ≤ (heads·d_v)·max|V|·max|Wo| + max|bo|
        largest_v = max(float(np.abs(inputs.V(h)).max()) for h in range(scenario.heads))
        bound = scenario.heads * scenario.d_v * largest_v * float(np.abs(scenario.inputs["Wo"]).max())
        bound += float(np.abs(scenario.inputs["bo"]).max()) if "bo" in scenario.inputs else 0.0
        if not bound < 1e300:
            raise NumericError("the output projection concat·Wo could overflow float64 "
                               f"(up to {bound:.3e}); use smaller numbers in Wo or V", ("Wo",))



def largest_added(scenario: Scenario) -> float:
    """The most a stage's own setting adds to a scaled score (a bias: its largest |value|, below
    ``core.reading.bias.LIMIT``), 0 when none does: a scaled score near float64's largest plus a
    bias of 1e299 would be infinite, and every weight of its row NaN."""
    found = max((float(setting.largest) for name, setting in scenario.stage_settings.items()
                 if name != "bias" or "bias" not in scenario.inputs), default=0.0)
    if "bias" in scenario.inputs:  # an explicit bias, as edited
        bias = scenario.inputs["bias"]
        found = max(found, float(bias.max(initial=0.0)), -float(bias.min(initial=0.0)))
    return found


def require_finite(scenario: Scenario, inputs: HeadInputs, changes: list[Changed], option_sets: list[Options]) -> None:
    """``NumericError`` if an edit made some score, scaled score or value leave float64's range.

    Only what the edit changed is checked (a row of scores for a query, a column for a key),
    so the check costs O(T·d) however large the scenario.
    """
    keys, queries = scenario.tokens, scenario.row_tokens
    d_k = scenario.d_k
    added = largest_added(scenario)
    if added:  # (as check_range: under every scale the app can switch to)
        option_sets = [*option_sets, Options(scale=True), Options(scale=False)]
    for h, change in enumerate(changes):
        Q, K, V = inputs.Q(h), inputs.K(h), inputs.V(h)
        for name, values, rows in (("Q", Q, change.q_rows), ("K", K, change.k_rows),
                                   ("V", V, change.v_rows)):
            if rows is not None and not len(rows):
                continue
            if not np.isfinite(values if rows is None else values[rows]).all():
                raise NumericError(f"{name} overflows float64 ({scenario.head_names[h]}); use smaller numbers")
        if change.v:  # the rows that changed (the others were checked when they did)
            moved = V if change.v_rows is None else V[change.v_rows]
            largest = max(float(moved.max()), -float(moved.min()))  # (no |V| the size of V)
            if largest >= V_LIMIT:
                raise NumericError(f"V holds {largest:.3e}: the weighted sum of such values can round "
                                   f"past float64's largest number; keep V below {V_LIMIT:.0e}")
        if not (change.q or change.k):
            continue
        # no score is larger than this: below float64's largest by far, nothing need be multiplied
        # (divided by each scale: a file's scale: 1e-300 makes a score of 1e10 infinite; a bias
        # adds at most 1e300 more)
        bound = inputs.largest("Q", h) * inputs.largest("K", h) * d_k
        if bound < 1e300 and all(bound / options.divisor(d_k) < 1e300 for options in option_sets):
            continue
        pieces = []
        if change.q_rows is None or change.k_rows is None:
            pieces = [(np.arange(i, min(i + 256, len(Q))), None) for i in range(0, len(Q), 256)]
        else:
            if len(change.q_rows):
                pieces.append((change.q_rows, None))
            if len(change.k_rows):
                pieces.append((None, change.k_rows))
        for rows, cols in pieces:
            with np.errstate(over="ignore", invalid="ignore"):
                block = (Q[rows] if rows is not None else Q) @ (K[cols] if cols is not None else K).T
                largest = float(np.abs(block).max(initial=0.0))
            # dividing and adding keep the order of sizes: the largest score tells for them all
            if math.isfinite(largest) and all(math.isfinite(largest / options.divisor(d_k) + added)
                                              for options in option_sets):
                continue
            with np.errstate(over="ignore", invalid="ignore"):
                scaled = [block / options.divisor(d_k) for options in option_sets]
                biased = [np.abs(s) + added for s in scaled] if added else []
            for values, what in ([(block, "score")] + [(s, "scaled score") for s in scaled]
                                 + [(b, "scaled score plus the bias") for b in biased]):
                if np.isfinite(values).all():
                    continue
                bad = np.argwhere(~np.isfinite(values))
                if len(bad):
                    i, j = bad[0]
                    i = rows[i] if rows is not None else i
                    j = cols[j] if cols is not None else j
                    raise NumericError(f"the {what} ({queries[i]}, {keys[j]}) overflows float64 "
                                       f"({values[bad[0][0], bad[0][1]]}); use smaller numbers")


def check_backward_range(scenario: Scenario, inputs: HeadInputs, option_sets: list[Options] | None = None) -> None:
    """``NumericError`` if the backward pass (a scenario with ``loss:``) could leave float64's
    range, from bounds on every gradient (O(T·d); loose, far from the inputs a course uses):
    |output| ≤ max|V| (× heads·d_v·max|Wo| + max|bo| after Wo), |dO| ≤ it + max|target|, the loss
    ≤ ½·T·d_out·dO², |dP| ≤ d_v·|dO|·max|V|, |dS| ≤ 2|dP| (each P is at most 1), |dScores| ≤
    |dS| ÷ the smallest divisor, then dQ, dK, dV and the projections by the sums they are."""
    from attn_tui.core.engine.stages.back_output import loss

    setting = loss(scenario)
    if setting is None:
        return
    option_sets = option_sets or [scenario.options, *(v.options(scenario.options) for v in scenario.variants)]
    given = scenario.inputs

    def largest(array) -> float:
        return float(np.abs(array).max(initial=0.0))

    V = max(inputs.largest("V", h) for h in range(scenario.heads))
    Q = max(inputs.largest("Q", h) for h in range(scenario.heads))
    K = max(inputs.largest("K", h) for h in range(scenario.heads))
    output = V
    if "Wo" in given:
        output = scenario.heads * scenario.d_v * V * largest(given["Wo"]) + largest(given.get("bo", np.zeros(1)))
    d_output = largest(setting.grad) if setting.target is None else output + largest(setting.target)
    d_concat = scenario.d_out * d_output * largest(given["Wo"]) if "Wo" in given else d_output
    divisor = min(options.divisor(scenario.d_k) for options in option_sets)
    d_raw = 2 * scenario.d_v * d_concat * V / divisor
    bounds = {"the loss": 0.5 * scenario.T * scenario.d_out * d_output * d_output,
              "dQ": scenario.T_k * d_raw * K, "dK": scenario.T * d_raw * Q, "dV": scenario.T * d_concat}
    if "Wo" in given:
        bounds["dWo"] = scenario.T * V * d_output
    if scenario.kind == "projection":
        X = max(largest(given["X"]), largest(given.get("X_q", np.zeros(1))))
        gradient = max(bounds["dQ"], bounds["dK"], bounds["dV"])
        W = max(largest(given[name]) for name in ("Wq", "Wk", "Wv"))
        bounds["the weights' gradients"] = scenario.T * X * gradient
        bounds["dX"] = 3 * scenario.heads * max(scenario.d_k, scenario.d_v) * gradient * W
    for what, bound in bounds.items():
        if not bound < 1e300:
            raise NumericError(f"the backward pass could overflow float64 ({what} up to {bound:.3e}); use smaller "
                               "numbers in the inputs or the loss", ("V", "Q", "K", "X", "loss"))


def require_finite_bias(scenario: Scenario, inputs: HeadInputs, row: int, col: int, head: int | None,
                        option_sets: list[Options]) -> None:
    """``NumericError`` if an edited cell of an explicit bias leaves its range or makes its
    scaled score plus the bias overflow, under any scale the app can switch to."""
    from attn_tui.core.reading.bias import LIMIT

    value = float(scenario.inputs["bias"][(row, col) if head is None else (head, row, col)])
    if not abs(value) < LIMIT:
        raise NumericError(f"a bias of {value:.3e}: keep every bias below {LIMIT:.0e} (to hide a key, use mask: "
                           "or padding:)")
    options = [*option_sets, Options(scale=True), Options(scale=False)]
    for h in (range(scenario.heads) if head is None else [head]):
        with np.errstate(over="ignore", invalid="ignore"):
            score = float(inputs.Q(h)[row] @ inputs.K(h)[col])
        for o in options:
            if not math.isfinite(score / o.divisor(scenario.d_k) + value):
                raise NumericError(f"the scaled score ({scenario.row_tokens[row]}, {scenario.tokens[col]}) plus "
                                   f"its bias {value:.3e} overflows float64; use a smaller bias")


def option_sets(scenario: Scenario) -> list[Options]:
    """The options a scenario is computed under: its own, then each variant's."""
    return [scenario.options, *(variant.options(scenario.options) for variant in scenario.variants)]


def require_finite_cell(scenario: Scenario, inputs: HeadInputs, changes: list[Changed], matrix: str, row: int,
                        col: int, head: int | None, options: list[Options]) -> None:
    """``NumericError`` if one edited input cell (already written into ``scenario`` and
    ``inputs``, whose ``changes`` it made) takes a stage, the backward pass or a bias out of
    float64's range under any of ``options``."""
    require_finite(scenario, inputs, changes, options)
    check_backward_range(scenario, inputs, options)
    if matrix == "bias":
        require_finite_bias(scenario, inputs, row, col, head, options)


def divides_less(scenario: Scenario, before: Scenario) -> bool:
    """Whether a new scale divides by less than 1 and by less than the one the numbers were
    last checked under: only then can a finite score scale past float64's largest (a recovery
    copy's scale of 1e-300; the file's own 0.5 after edits made under ÷√d_k). The s key's ÷√d_k
    and ÷1 never can."""
    d_k = scenario.d_k
    divisor = scenario.options.divisor(d_k)
    return divisor < 1 and divisor < before.options.divisor(d_k)
