"""How close two float64 evaluations of the same gradient must be, for the tests that hold the
engine's gradients and training to the PyTorch-autograd reference (tests/torch_attention.py)."""

from __future__ import annotations

import numpy as np

# Two correct float64 evaluations of the same gradient differ by rounding alone: about 1e-16
# times the size of the terms summed, and every term here is bounded by a modest factor times
# the array's largest entry (inputs are O(1), scores at most ~30). So a cell may differ by
# 1e-9 of itself (the relative bound asked for) plus 1e-10 of the array's largest |value|
# (cells far smaller than the rest — a saturated softmax's — carry the rounding of the big
# ones, and cannot be held to 1e-9 of themselves); 1e-13 absolute on top covers an array the
# reference finds exactly 0 where the engine may leave 1e-17 of rounding. A real bug (a missing
# term, a wrong divisor, a head's columns swapped) moves cells by a sizeable part of the
# array's scale, 10⁶ times past this.
RTOL, SCALED_ATOL, FLOOR = 1e-9, 1e-10, 1e-13


def assert_close(got, want, what: str, yaml: str = "", slack=0.0) -> None:
    got = np.asarray(got, dtype=np.float64)
    want = np.asarray(want, dtype=np.float64)
    assert got.shape == want.shape, f"{what}: shape {got.shape}, want {want.shape}\n{yaml}"
    assert np.isfinite(got).all(), f"{what}: not finite: {got}\n{yaml}"
    scale = float(np.abs(want).max(initial=0.0))
    error = np.abs(got - want)
    allowed = RTOL * np.abs(want) + SCALED_ATOL * scale + FLOOR + slack
    if not (error <= allowed).all():
        worst = np.unravel_index(int(np.argmax(error - allowed)), error.shape)
        raise AssertionError(
            f"{what}: cell {tuple(int(i) for i in worst)} is {got[worst]!r}, want {want[worst]!r} "
            f"(max error {error.max():.3g}, scale {scale:.3g})\ngot  {got}\nwant {want}\n{yaml}"
        )
