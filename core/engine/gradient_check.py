"""The finite-difference check of the backward pass: the gradient measured, not derived.

:func:`finite_difference` moves one input cell by ±ε and asks the loss again; the Why pane's
:func:`gradient_check` sets that beside the analytic dL/dx of
:class:`~attn_tui.core.engine.backward.Backward` and says how closely they agree.
"""

from __future__ import annotations

from attn_tui.core.engine.stages.backward_steps import loss as loss_setting


def loss_of(scenario, options=None) -> float:
    """L for ``scenario`` as it is (the finite-difference check moves one input and asks again)."""
    from attn_tui.core.engine.attention import Attention

    return Attention(scenario, options).backward.loss()


def finite_difference(
    scenario, name: str, index: tuple[int, ...], options=None, eps: float = 1e-6
) -> float:
    """(L(x + ε) − L(x − ε)) / 2ε for the input cell ``name[index]``: the gradient measured, not
    derived."""
    if loss_setting(scenario).target is None:
        raise ValueError(
            "a finite difference needs loss: {target: …}: with grad: given, L is not known"
        )
    value = float(scenario.inputs[name][index])
    step = nudge(value, eps)
    head = index[0] if len(index) == 3 else None
    row, col = index[-2], index[-1]
    up = loss_of(scenario.with_cell(name, row, col, value + step, head), options)
    down = loss_of(scenario.with_cell(name, row, col, value - step, head), options)
    return (up - down) / (2 * step)


def nudge(value: float, eps: float) -> float:
    """The ε a finite difference moves ``value`` by: relative for a large value, else ``eps``."""
    return eps * max(1.0, abs(value))


def gradient_check(
    attention, name: str, row: int, col: int, head: int | None = None, eps: float = 1e-6
) -> list:
    """The Why pane's lines for the finite-difference check of one input cell: the analytic
    dL/dx beside (L(x + ε) − L(x − ε)) / 2ε, and how closely they agree."""
    from attn_tui.core.engine.explanation import Line, Span
    from attn_tui.core.model.labels import input_labels
    from attn_tui.core.numbers import fixed

    scenario = attention.scenario
    index = (row, col) if head is None else (head, row, col)
    analytic = float(attention.backward.inputs()[name][index])
    measured = finite_difference(scenario, name, index, attention.options, eps)
    rows, columns = input_labels(scenario, name)
    step = nudge(float(scenario.inputs[name][index]), eps)
    which = f"{name}[{rows[row]}, {columns[col]}]" + (
        "" if head is None else f" of head {head + 1}"
    )
    gap = abs(analytic - measured)
    size = max(abs(analytic), abs(measured))
    p = max(scenario.precision, 6)
    verdict = (
        "they agree"
        if gap <= 1e-6 * max(1.0, size)
        else "they differ: the loss is not smooth here, or ε is too large for its curvature"
    )
    if size == 0:  # (a relative difference of two zeros is 0/0: said in words, not "0.0e+00 of it")
        said = (
            "  both are exactly 0, so they agree (there is no relative difference of two zeros): "
            "the loss does not move with this cell here"
        )
    else:
        said = f"  difference {gap:.1e} ({gap / size:.1e} of it): {verdict}"
    return [
        Line(
            (
                Span("Gradient check of ", "note"),
                Span(which, "token"),
                Span(f" (v), ε = {step:.0e}:", "note"),
            )
        ),
        Line(
            (
                Span("  dL/dx, from the backward pass       = ", ""),
                Span(fixed(analytic, p, True), "result"),
            )
        ),
        Line(
            (
                Span("  (L(x+ε) − L(x−ε)) / 2ε, measured    = ", ""),
                Span(fixed(measured, p, True), "result"),
            )
        ),
        Line((Span(said, "note"),)),
    ]
