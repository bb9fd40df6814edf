"""A query whose every key is hidden (a fully masked row) has no attention to give: the softmax
of nothing is undefined, and correct code gives whatever its way of masking gives there.

attn-tui itself gives such a row weights 0 and output 0 ("nothing to attend to"), and its Judge
leaves the row out of the comparison. A student's code is judged there by the conventions that
correct code follows, and the one its row matches is said:

- ``NaN``: the hidden scores set to −∞, then a softmax: every exp is 0, and 0/0 (NumPy,
  ``torch.softmax``);
- ``zeros``: weights and output 0 (PyTorch's ``scaled_dot_product_attention`` since 2.5, and
  attn-tui);
- ``uniform``: a finite value (−1e9) put in place of the hidden scores: every key 1/T_k, the
  output V's mean;
- ``unmasked``: a finite value added to every score of the row (``scores + mask * −1e9``), which
  the softmax, unchanged by a constant added to a whole row, does not see: the row's weights as
  if unmasked. Only when the mask was given as 0/1 (a finite value is the student's to add);
  given 0/−∞ to add, the row is NaN.

Anything else there (a token let see its own hidden key, a row of 0.5s) is wrong.
"""

from __future__ import annotations

import numpy as np

CONVENTIONS = {
    "NaN": "NaN (−∞ then a softmax: 0/0)",
    "zeros": "0 (as PyTorch's scaled_dot_product_attention gives)",
    "uniform": "uniform weights (a finite value such as −1e9 in place of the scores)",
    "unmasked": "the row as if unmasked (a finite value added to every score of the row)",
}
BRIEFLY = {
    "NaN": "NaN (−∞)",
    "zeros": "0 (PyTorch's SDPA)",
    "uniform": "1/T_k each (−1e9 in place)",
    "unmasked": "the row unmasked (−1e9 added)",
}
# masks of 0/1 or bool: the student chooses what to add
ADDED_BY_THE_STUDENT = ("allowed", "blocked", "blocked_bool")


def expected(case, row: int, mask_given: str) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """What each convention gives at ``row``: (weights, output), worked out from Q, K, V here."""
    given = case.inputs()
    Q, K, V = given["Q"], given["K"], given["V"]
    T_k = K.shape[0]
    found = {
        "NaN": (np.full(T_k, np.nan), np.full(V.shape[1], np.nan)),
        "zeros": (np.zeros(T_k), np.zeros(V.shape[1])),
        "uniform": (np.full(T_k, 1.0 / T_k), V.mean(axis=0)),
    }
    if mask_given in ADDED_BY_THE_STUDENT:
        scores = K @ Q[row] / np.sqrt(Q.shape[1])
        e = np.exp(scores - scores.max())
        weights = e / e.sum()
        found["unmasked"] = (weights, weights @ V)
    return found


def _same(yours: np.ndarray, theirs: np.ndarray, tolerance: float) -> bool:
    nan = np.isnan(theirs)
    return bool(
        np.array_equal(np.isnan(yours), nan)
        and np.all(np.abs(yours[~nan] - theirs[~nan]) <= tolerance)
    )


def reading(
    case, mask_given: str, weights: np.ndarray | None, output: np.ndarray, tolerance: float
) -> tuple[str | None, str | None]:
    """The convention every fully masked row of the case was read as (one for all of them), or
    None and the line saying what is wrong at the first row none explains. No such row: both
    None."""
    empty = ~case.allowed().any(axis=1)
    read = None
    for row in np.flatnonzero(empty):
        conventions = expected(case, int(row), mask_given)
        matching = [
            name
            for name, (w, out) in conventions.items()
            if _same(output[row], out, tolerance)
            and (weights is None or _same(weights[row], w, tolerance))
        ]
        if not matching:
            return None, _wrong(case, int(row), weights, output, conventions)
        read = read or matching[0]
    return read, None


def _wrong(case, row: int, weights, output, conventions) -> str:
    from attn_tui.core.model.labels import token_labels
    from attn_tui.grading.report import number

    label = token_labels(case.scenario.row_tokens)[row]
    values = weights[row] if weights is not None else output[row]
    shown = ", ".join(number(value) for value in values[:6]) + (", …" if len(values) > 6 else "")
    what = "weights" if weights is not None else "output"
    return (
        f"{label} sees no key (the mask hides all {case.scenario.T_k}): "
        f"yours {shown} ({what}), none of "
        "what a convention gives there: " + ", ".join(BRIEFLY[name] for name in conventions)
    )
