"""Float64's range: a scenario whose stages could overflow is refused when it is read
(:func:`check_range`), and an edit that would make one overflow is undone (:func:`require_finite`).

A score is q·k, at most ‖q‖·‖k‖; each stage from the scores to the mask moves that bound as its
declared range rule says (``Stage.score_range``: it adds at most so much, multiplies by so much,
caps; :func:`score_bound`), and this module asks the rules, never a stage by name. The output is
a weighted average of V's rows, so V keeps a margin below float64's largest.
"""

from __future__ import annotations

import math

import numpy as np

from attn_tui.core.engine.stages import Stage, stages_for
from attn_tui.core.engine.stages.contract import Adds, Multiplies, between_scores_and_mask
from attn_tui.core.errors import NumericError
from attn_tui.core.limits import V_LIMIT
from attn_tui.core.model.heads import Changed, HeadInputs
from attn_tui.core.model.options import Options
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
    chain = on_the_scores(scenario)
    options = option_sets(scenario)
    given = len(options)
    options += reachable(
        scenario, chain
    )  # a score a stage makes larger: under what the app's keys can set too
    for h in range(scenario.heads):
        which = f" of {scenario.head_names[h]}" if many else ""
        Q, K, V = inputs.Q_projected(h), inputs.K_projected(h), inputs.V(h)
        for name, values in (("Q", Q), ("K", K), ("V", V)):
            if not np.isfinite(values).all():
                raise NumericError(
                    f"{name}{which} = X·W{name.lower()} overflows float64; use smaller numbers",
                    (name, "W" + name.lower(), "X"),
                )
        largest_v = float(np.abs(V).max())
        if largest_v >= V_LIMIT:
            raise NumericError(
                f"V{which} holds {largest_v:.3e}: the weighted sum of such values can round "
                f"past float64's largest number; keep V below {V_LIMIT:.0e}",
                ("V", "Wv", "X"),
            )
        # |q·k| ≤ ‖q‖·‖k‖ (Cauchy–Schwarz), exact when d_k = 1; norms taken of Q and K divided by
        # their largest |value| first, so that squaring cannot overflow; of Q and K as normed,
        # when QK-norm norms them (the rotation keeps their lengths)
        Q, K = inputs.Q_before_rotation(h), inputs.K_before_rotation(h)
        q_unit, k_unit = float(np.abs(Q).max()) or 1.0, float(np.abs(K).max()) or 1.0
        bound = (
            q_unit
            * float(np.sqrt(np.square(Q / q_unit).sum(axis=1).max()))
            * k_unit
            * float(np.sqrt(np.square(K / k_unit).sum(axis=1).max()))
        )
        if all(walk(chain, bound, scenario, o) < 1e300 for o in options):
            continue
        largest = bound if scenario.d_k == 1 and math.isfinite(bound) else 0.0  # (then it is exact)
        Q, K = inputs.Q(h), inputs.K(h)
        with np.errstate(over="ignore", invalid="ignore"):
            for start in range(0, len(Q) if not largest else 0, ROWS_AT_A_TIME):
                block = Q[start : start + ROWS_AT_A_TIME] @ K.T
                # (a NaN, from products that overflow and cancel, would be lost by max(): asked
                # first)
                if not np.isfinite(block).all():
                    i, j = np.argwhere(~np.isfinite(block))[0]
                    raise NumericError(
                        f"the score{which} ({scenario.row_tokens[start + i]}, "
                        f"{scenario.tokens[j]}) overflows float64; use smaller numbers",
                        ("Q", "Wq", "X"),
                    )
                largest = max(largest, float(np.abs(block).max()))
            for number, o in enumerate(options):
                value = largest
                for place, stage in enumerate(chain):
                    value = stage.score_range.bound(value, scenario, o)
                    if not math.isfinite(value):
                        # only a rule that grows a score makes it infinite
                        grows = stage.score_range.grows
                        details = ", ".join(
                            step.score_range.grows.detail(scenario, o)
                            for step in chain[: place + 1]
                            if isinstance(step.score_range, (Adds, Multiplies))
                        )
                        reached = ", as the app's s key can set it" if number >= given else ""
                        raise NumericError(
                            f"a {grows.what}{which} overflows float64 (scores up to {largest:.3e}, "
                            f"{details}"
                            f"{reached}); "
                            f"{grows.advice}",
                            (*grows.keys, "Q", "Wq", "X"),
                        )
    if "Wo" in scenario.inputs:  # |concat·Wo + bo| ≤ (heads·d_v)·max|V|·max|Wo| + max|bo|
        largest_v = max(float(np.abs(inputs.V(h)).max()) for h in range(scenario.heads))
        bound = (
            scenario.heads * scenario.d_v * largest_v * float(np.abs(scenario.inputs["Wo"]).max())
        )
        bound += float(np.abs(scenario.inputs["bo"]).max()) if "bo" in scenario.inputs else 0.0
        if not bound < 1e300:
            raise NumericError(
                "the output projection concat·Wo could overflow float64 "
                f"(up to {bound:.3e}); use smaller numbers in Wo or V",
                ("Wo",),
            )


def on_the_scores(scenario: Scenario) -> list[Stage]:
    """The scenario's stages from the scores to the mask (both excluded), each with its range
    rule."""
    return between_scores_and_mask(stages_for(scenario))


def walk(chain: list[Stage], largest, scenario: Scenario, options: Options):
    """A bound on |score| after every stage of ``chain``, from ``largest`` (|q·k|, a number or
    an array) before them, as each stage's range rule says."""
    for stage in chain:
        largest = stage.score_range.bound(largest, scenario, options)
    return largest


def score_bound(scenario: Scenario, largest: float, options: Options) -> float:
    """The most |a score| can be on reaching the mask when no |q·k| exceeds ``largest``."""
    return float(walk(on_the_scores(scenario), largest, scenario, options))


def reachable(scenario: Scenario, chain: list[Stage]) -> list[Options]:
    """The options the app's keys can switch to (a rule's ``reachable``) that the checks must
    also bound the scores under: when some other stage can make a score larger (adds to it, or
    multiplies it), a finite score under the file's options may not stay finite under those."""
    switched = [
        o
        for stage in chain
        if isinstance(stage.score_range, Multiplies)
        for o in stage.score_range.reachable
    ]
    grows = any(
        (isinstance(rule, Adds) and rule.largest(scenario) > 0)
        or (isinstance(rule, Multiplies) and not rule.reachable)
        for rule in (stage.score_range for stage in chain)
    )
    return switched if grows else []


def require_finite(
    scenario: Scenario, inputs: HeadInputs, changes: list[Changed], option_sets: list[Options]
) -> None:
    """``NumericError`` if an edit made some score, a stage's value from it or a value leave
    float64's range.

    Only what the edit changed is checked (a row of scores for a query, a column for a key),
    so the check costs O(T·d) however large the scenario.
    """
    keys, queries = scenario.tokens, scenario.row_tokens
    d_k = scenario.d_k
    chain = on_the_scores(scenario)
    option_sets = [*option_sets, *reachable(scenario, chain)]  # (as check_range)
    for h, change in enumerate(changes):
        Q, K, V = inputs.Q(h), inputs.K(h), inputs.V(h)
        for name, values, rows in (
            ("Q", Q, change.q_rows),
            ("K", K, change.k_rows),
            ("V", V, change.v_rows),
        ):
            if rows is not None and not len(rows):
                continue
            if not np.isfinite(values if rows is None else values[rows]).all():
                raise NumericError(
                    f"{name} overflows float64 ({scenario.head_names[h]}); use smaller numbers"
                )
        if change.v:  # the rows that changed (the others were checked when they did)
            moved = V if change.v_rows is None else V[change.v_rows]
            largest = max(float(moved.max()), -float(moved.min()))  # (no |V| the size of V)
            if largest >= V_LIMIT:
                raise NumericError(
                    f"V holds {largest:.3e}: the weighted sum of such values can round "
                    f"past float64's largest number; keep V below {V_LIMIT:.0e}"
                )
        if not (change.q or change.k):
            continue
        # no score is larger than this: below float64's largest by far, nothing need be multiplied
        # (and taken through the stages' range rules: a divisor of 1e-300 makes a score of 1e10
        # infinite)
        bound = inputs.largest("Q", h) * inputs.largest("K", h) * d_k
        if bound < 1e300 and all(
            walk(chain, bound, scenario, options) < 1e300 for options in option_sets
        ):
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
                block = (Q[rows] if rows is not None else Q) @ (
                    K[cols] if cols is not None else K
                ).T
                largest = float(np.abs(block).max(initial=0.0))
            # each rule keeps the order of sizes: the largest score tells for them all
            if math.isfinite(largest) and all(
                math.isfinite(walk(chain, largest, scenario, options)) for options in option_sets
            ):
                continue
            found = [
                (block, "score")
            ]  # then each stage's bound, cell by cell, under every option set
            with np.errstate(over="ignore", invalid="ignore"):
                sizes = [np.abs(block)] * len(option_sets)
                for stage in chain:
                    sizes = [
                        stage.score_range.bound(size, scenario, options)
                        for size, options in zip(sizes, option_sets)
                    ]
                    if isinstance(stage.score_range, (Adds, Multiplies)):
                        found += [(size, stage.score_range.grows.what) for size in sizes]
            for values, what in found:
                if np.isfinite(values).all():
                    continue
                bad = np.argwhere(~np.isfinite(values))
                if len(bad):
                    i, j = bad[0]
                    i = rows[i] if rows is not None else i
                    j = cols[j] if cols is not None else j
                    raise NumericError(
                        f"the {what} ({queries[i]}, {keys[j]}) overflows float64 "
                        f"({values[bad[0][0], bad[0][1]]}); use smaller numbers"
                    )


def check_backward_range(
    scenario: Scenario, inputs: HeadInputs, option_sets: list[Options] | None = None
) -> None:
    """``NumericError`` if the backward pass (a scenario with ``loss:``) could leave float64's
    range, from bounds on every gradient (O(T·d); loose, far from the inputs a course uses):
    |output| ≤ max|V| (× heads·d_v·max|Wo| + max|bo| after Wo), |dO| ≤ it + max|target|, the loss
    ≤ ½·T·d_out·dO², |dP| ≤ d_v·|dO|·max|V|, |dS| ≤ 2|dP| (each P is at most 1), |dScores| ≤
    |dS| × the steepest the stages to the mask can be (each range rule's ``steepest``: ÷ the
    divisor, × 1 for what adds), then dQ, dK, dV and the projections by the sums they are."""
    from attn_tui.core.engine.stages.backward_steps import loss

    setting = loss(scenario)
    if setting is None:
        return
    option_sets = option_sets or [
        scenario.options,
        *(v.options(scenario.options) for v in scenario.variants),
    ]
    given = scenario.inputs

    def largest(array) -> float:
        return float(np.abs(array).max(initial=0.0))

    V = max(inputs.largest("V", h) for h in range(scenario.heads))
    Q = max(inputs.largest("Q", h) for h in range(scenario.heads))
    K = max(inputs.largest("K", h) for h in range(scenario.heads))
    output = V
    if "Wo" in given:
        output = scenario.heads * scenario.d_v * V * largest(given["Wo"]) + largest(
            given.get("bo", np.zeros(1))
        )
    d_output = largest(setting.grad) if setting.target is None else output + largest(setting.target)
    d_concat = scenario.d_out * d_output * largest(given["Wo"]) if "Wo" in given else d_output
    chain = on_the_scores(scenario)
    steepest = max(
        math.prod(stage.score_range.steepest(scenario, options) for stage in chain)
        for options in option_sets
    )
    d_raw = 2 * scenario.d_v * d_concat * V * steepest
    # back through QK-norm: |dx| ≤ 2·max|gain|·|dy| / rms(x), and rms(x) ≥ √ε
    norm = scenario.stage_settings.get("qk_norm")
    through_norm = 1.0
    if norm is not None:
        whole = scenario.d_k * scenario.heads
        gains = (
            norm.gain("q", whole if norm.whole else scenario.d_k),
            norm.gain("k", whole if norm.whole else scenario.d_k),
        )
        through_norm = 2 * max(largest(gain) for gain in gains) / math.sqrt(norm.eps) * whole
    bounds = {
        "the loss": 0.5 * scenario.T * scenario.d_out * d_output * d_output,
        "dQ": scenario.T_k * d_raw * K * through_norm,
        "dK": scenario.T * d_raw * Q * through_norm,
        "dV": scenario.T * d_concat,
    }
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
            raise NumericError(
                f"the backward pass could overflow float64 ({what} up to {bound:.3e}); use smaller "
                "numbers in the inputs or the loss",
                ("V", "Q", "K", "X", "loss"),
            )


def option_sets(scenario: Scenario) -> list[Options]:
    """The options a scenario is computed under: its own, then each variant's."""
    return [scenario.options, *(variant.options(scenario.options) for variant in scenario.variants)]


def require_finite_cell(
    scenario: Scenario,
    inputs: HeadInputs,
    changes: list[Changed],
    matrix: str,
    row: int,
    col: int,
    head: int | None,
    options: list[Options],
) -> None:
    """``NumericError`` if one edited input cell (already written into ``scenario`` and
    ``inputs``, whose ``changes`` it made) takes a stage, the backward pass or an input a stage
    adds out of float64's range under any of ``options``."""
    require_finite(scenario, inputs, changes, options)
    check_backward_range(scenario, inputs, options)
    for stage in on_the_scores(scenario):  # an input a stage adds: its rule checks an edit of it
        rule = stage.score_range
        if isinstance(rule, Adds) and rule.input == matrix and rule.edited is not None:
            rule.edited(scenario, inputs, row, col, head, options)


def divides_less(scenario: Scenario, before: Scenario) -> bool:
    """Whether new options divide the scores by less than 1 and by less than the ones the numbers
    were last checked under: only then can a finite score grow past float64's largest (a
    recovery copy's divisor of 1e-300; the file's own 0.5 after edits made under ÷√d_k). The s
    key's ÷√d_k and ÷1 never can."""
    d_k = scenario.d_k
    divisor = scenario.options.divisor(d_k)
    return divisor < 1 and divisor < before.options.divisor(d_k)
