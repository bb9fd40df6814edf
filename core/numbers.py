"""Numbers as a person reads and types them: fixed and compact formats, and parsing cell text.

The core keeps float64 everywhere; these functions only decide how a value looks and which
typed text is a number. They are shared by the explanations, ``--print`` and the TUI, so a
value reads the same everywhere.
"""

from __future__ import annotations

import math
import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

MINUS = "−"  # U+2212: how every negative number is shown (typed, "-" and "−" both work)
MINUS_INFINITY = MINUS + "∞"
MAX_TYPED_LENGTH = 64

# ASCII only: Python's float() also takes other scripts' digits ("٣") and "inf"/"nan",
# which a cell or a scenario should not silently accept.
_NUMBER_TEXT = re.compile(
    r"[+-]?(?:[0-9][0-9_]*(?:\.[0-9_]*)?|\.[0-9][0-9_]*)(?:[eE][+-]?[0-9][0-9_]*)?"
)
LARGE = 1e7  # from here on a number reads better as 1.235e7 than as eight digits and decimals


def fixed(value: float, decimals: int, tiny: bool = True) -> str:
    """``value`` with exactly ``decimals`` decimals; ``-0.000`` reads ``0.000``; ±∞ as symbols.

    A value of 1e7 or more is written with an exponent (``1.235e7``), so a cell never turns
    into a wall of digits; with ``tiny``, so is a non-zero value that would otherwise read as
    0 (an input of 1e-5 is not zero; a weight of 4.5e-5 may well read 0.000, as the chapter's).
    """
    if -LARGE < value < LARGE and not (tiny and value != 0 and abs(value) < 0.5 * 10.0**-decimals):
        text = f"{value:.{decimals}f}"  # (first: --print formats hundreds of thousands of terms)
        if text[0] == "-":
            text = text[1:] if not text.strip("-0.") else MINUS + text[1:]
        return text
    if math.isinf(value):
        return MINUS_INFINITY if value < 0 else "∞"
    if math.isnan(value):
        return "nan"
    return scientific(value, max(decimals, 1))


def fixed_row(values: np.ndarray, decimals: int, tiny: bool = True, width: int = 0) -> list[str]:
    """``[fixed(v, decimals, tiny).rjust(width) for v in values]``, formatted in one C-level
    pass: a 1024-wide row costs about what 150 calls of :func:`fixed` would. The few values that
    need more than ``%.Nf`` (huge, infinite, tiny, a negative that rounds to zero) go through
    :func:`fixed`, once per distinct value."""
    import numpy as np

    values = np.asarray(values, dtype=np.float64)
    if not len(values):
        return []
    text = (f"%{width}.{decimals}f\n" * len(values)) % tuple(values.tolist())
    infinite = np.isinf(values)
    if width == 0 or width >= 4:  # "-inf" and "inf" as ±∞, in their place (a masked row is half ∞)
        text = text.replace("-inf", MINUS_INFINITY.rjust(width and 4)).replace(
            "inf", "∞".rjust(width and 3)
        )
        infinite[:] = False
    texts = text[:-1].replace("-", MINUS).split("\n")
    with np.errstate(invalid="ignore"):
        magnitude = np.abs(values)
        special = (
            infinite
            | (np.isfinite(values) & (magnitude >= LARGE))
            | (np.signbit(values) & (magnitude <= 0.5 * 10.0**-decimals))
        )  # (−0.5 rounds to −0)
        if tiny:
            special |= (values != 0) & (magnitude < 0.5 * 10.0**-decimals)
    done: dict[float, str] = {}
    for index in np.flatnonzero(special):
        value = float(values[index])
        text = done.get(value)
        if text is None:
            text = done[value] = fixed(value, decimals, tiny).rjust(width)
        texts[index] = text
    return texts


def fixed_rows(
    block: np.ndarray,
    decimals: int,
    width: int,
    blocked: np.ndarray | None = None,
    masked: str = "",
    tiny: bool = True,
) -> list[str]:
    """Each row of ``block`` as its cells joined by two spaces: ``fixed_row(row, decimals,
    width=width)``, with ``masked`` (right-aligned) where ``blocked``. The whole block is
    formatted in one pass (``--print`` writes millions of cells: a pass per row and a Python
    step per masked cell were most of its time); a row with a value :func:`fixed_row` treats
    apart (huge, a negative that rounds to zero, nan; with ``tiny``, a non-zero value that
    would read 0) is formatted as that function does."""
    import numpy as np

    block = np.asarray(block, dtype=np.float64)
    if block.ndim != 2 or not block.size or width < 4:
        return [
            "  ".join(
                _masked_row(
                    row, decimals, width, None if blocked is None else blocked[k], masked, tiny
                )
            )
            for k, row in enumerate(block)
        ]
    magnitude = np.abs(block)
    with np.errstate(invalid="ignore"):
        apart = (
            (np.isfinite(block) & (magnitude >= LARGE))
            | np.isnan(block)
            | (np.signbit(block) & (magnitude <= 0.5 * 10.0**-decimals))
        )
        if tiny:
            apart |= (block != 0) & (magnitude < 0.5 * 10.0**-decimals)
    shown = block
    if blocked is not None:
        shown = np.where(blocked, np.nan, block)  # formatted "nan", then the mask's text
        apart &= ~blocked
    text = _printf_block(shown, decimals, width)
    if text is None:
        line = "  ".join([f"%{width}.{decimals}f"] * block.shape[1])
        text = "\n".join([line] * block.shape[0]) % tuple(shown.ravel().tolist())
    text = (
        text.replace("-inf", MINUS_INFINITY.rjust(4))
        .replace("inf", "∞".rjust(3))
        .replace("-", MINUS)
    )
    if blocked is not None:
        text = text.replace("nan".rjust(width), masked.rjust(width))
    rows = text.split("\n")
    for k in np.flatnonzero(apart.any(axis=1)).tolist():
        rows[k] = "  ".join(
            _masked_row(
                block[k], decimals, width, None if blocked is None else blocked[k], masked, tiny
            )
        )
    return rows


def _printf_block(values: np.ndarray, decimals: int, width: int) -> str | None:
    """``"%{width}.{decimals}f"`` of every value, cells joined by two spaces and rows by line
    feeds, as ``%`` writes them, but made by NumPy a digit column at a time (``%`` takes ~75 ns
    a value); None where the result could differ from ``%``'s: a value within rounding error of
    half a last decimal (``%`` rounds the exact binary value), a text wider than ``width``, more
    decimals than float64 holds."""
    import numpy as np

    finite = np.isfinite(values)
    magnitude = np.abs(np.where(finite, values, 0.0))
    if decimals > 15 or magnitude.max() >= LARGE:
        return None
    scaled = magnitude * 10.0**decimals
    fraction = scaled - np.floor(scaled)
    if np.any(np.abs(fraction - 0.5) <= 2.0**-40 * np.maximum(scaled, 1.0)):
        return None
    whole, part = np.divmod(np.rint(scaled).astype(np.int64), 10**decimals)
    negative = np.signbit(values) & finite  # (% writes -0.000 too: fixed_rows shows those apart)
    digits = 1 + np.searchsorted(10 ** np.arange(1, 8), whole, side="right")
    if np.any(np.where(finite, digits + (decimals + 1 if decimals else 0) + negative, 4) > width):
        return None
    rows, cols = values.shape
    out = np.full((rows, cols, width + 2), ord(" "), np.uint8)
    for i in range(decimals):
        out[..., width + 1 - i] = part % 10 + 48
        part //= 10
    last = width + 1 - (decimals + 1 if decimals else 0)  # where the units digit goes
    if decimals:
        out[..., last + 1] = ord(".")
    for i in range(min(7, last + 1)):  # (a wider number was refused above)
        out[..., last - i] = np.where((whole > 0) | (i == 0), whole % 10 + 48, ord(" "))
        whole //= 10
    r, c = np.nonzero(negative)
    out[r, c, last - digits[r, c]] = ord("-")
    for word, where in (
        (b"nan", np.isnan(values)),
        (b"inf", np.isposinf(values)),
        (b"-inf", np.isneginf(values)),
    ):
        out[where] = np.frombuffer(b"  " + word.rjust(width), np.uint8)
    lines = np.concatenate(
        [out.reshape(rows, -1)[:, 2:], np.full((rows, 1), ord("\n"), np.uint8)], axis=1
    )
    return lines.tobytes()[:-1].decode("ascii")


def _masked_row(
    values: np.ndarray, decimals: int, width: int, blocked, masked: str, tiny: bool = True
) -> list[str]:
    import numpy as np

    texts = fixed_row(values, decimals, tiny, width=width)
    if blocked is not None:
        for j in np.flatnonzero(blocked).tolist():
            texts[j] = masked.rjust(width)
    return texts


def scientific(value: float, decimals: int = 3) -> str:
    """``1.235e7``, ``−2.5e-5``: an exponent without ``+`` or leading zeros."""
    mantissa, exponent = f"{value:.{decimals}e}".split("e")
    return f"{mantissa}e{int(exponent)}".replace("-", MINUS)


def signed_shift(value: float, decimals: int) -> str:
    """A term added to an expression: ``+ 1.000e9`` or ``− 1.414`` (never ``− -1.414``)."""
    return ("− " if value < 0 else "+ ") + fixed(abs(value), decimals)


def decimals_needed(values: np.ndarray, precision: int) -> int:
    """The fewest decimals (at most ``precision``) that show every finite value as precisely as
    ``precision`` decimals would: [1, 0, 2] needs 0, [1.0, 0.5] needs 1.

    A matrix formatted with one such count keeps its columns aligned and shows integers as
    integers, the way the chapter writes ``q3 = [1, 1]`` and ``v3 = [0.5, 0.5]``. A sample is
    tried first: measured data usually needs every decimal, which a few values already show,
    so a 1024×1024 matrix costs no more than a 3×3 one.
    """
    flat = values.ravel()  # (NumPy is not imported here: checking a file needs none of it)
    if flat.size > 1024:
        sampled = _decimals(flat[:: flat.size // 512], precision)
        if sampled == precision:
            return precision
    return _decimals(flat, precision)


def _decimals(values: np.ndarray, precision: int) -> int:
    import numpy as np

    finite = values[np.isfinite(values)]
    if finite.size == 0 or precision <= 0:
        return 0
    if np.abs(finite).max() > 2**52 / 10.0**precision:
        return precision
    units = np.round(finite * 10.0**precision)
    for decimals in range(precision):
        if not np.any(np.fmod(units, 10.0 ** (precision - decimals))):
            return decimals
    return precision


def mask_text(value: float) -> str:
    """How a mask value reads: ``−∞``, or ``−1e9`` rather than ``-1000000000.0``."""
    if math.isinf(value):
        return MINUS_INFINITY
    text = f"{value:.6g}"
    if "e" in text:
        mantissa, exponent = text.split("e")
        text = f"{mantissa}e{int(exponent)}"
    return text.replace("-", MINUS)


def parse_number(text: str) -> float:
    """A typed cell value as float64, exactly as Python parses it, or ``ValueError`` saying why.

    Accepts what a person writes as a number (``-0``, ``1_000``, ``2.5e-3``, surrounding
    spaces); refuses empty text, words, non-ASCII digits and anything not finite.
    """
    stripped = text.strip().replace(MINUS, "-")  # the minus the app itself prints
    if not stripped:
        raise ValueError("empty: type a number")
    if len(stripped) > MAX_TYPED_LENGTH:
        raise ValueError(f"too long for a number ({len(stripped)} characters)")
    lowered = stripped.lower().lstrip("+-").lstrip(".")
    if lowered in ("nan", "inf", "infinity") or lowered.startswith(("nan", "inf")):
        raise ValueError(f"{stripped!r} is not a finite number")
    if not _NUMBER_TEXT.fullmatch(stripped):
        raise ValueError(f"{_shorten(stripped)!r} is not a number")
    try:
        value = float(stripped)
    except ValueError:
        raise ValueError(f"{_shorten(stripped)!r} is not a number") from None
    if not math.isfinite(value):
        raise ValueError(f"{_shorten(stripped)} is too large for float64")
    return value


def is_number_text(text: str) -> bool:
    """Whether ``text`` is a finite number by the rules of :func:`parse_number`."""
    try:
        parse_number(text)
    except ValueError:
        return False
    return True


def _shorten(text: str, limit: int = 24) -> str:
    from attn_tui.core.text import visible

    printable = visible(text)
    return printable if len(printable) <= limit else printable[: limit - 1] + "…"
