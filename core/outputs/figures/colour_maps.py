"""The heat-map colours of a figure: the app's colour-blind-safe palette (tui/app.tcss,
``App.-colour-blind``), as numbers, so that a figure on paper reads as the app does.

Weights (0 … 1): viridis' three stops, whose lightness rises from dark purple to yellow, so a
greyscale print still orders them. Signed values: Okabe–Ito blue below 0 and orange above, a
dark grey at 0; the lightness rises with the size of the value on either side (blue and orange
differ in hue for colour vision and in lightness in grey). A test checks these against the
stylesheet, and the lightness orders.
"""

from __future__ import annotations

import numpy as np

WEIGHTS = ("#440154", "#21918c", "#fde725")  # matrix--low, --middle, --high
DIVERGING = ("#0072b2", "#3b3b3b", "#e69f00")  # matrix--negative, --zero, --positive
MASKED = "#ffffff"  # a masked cell: white, hatched in grey (never the colour of 0)
HATCH = "#8c8c8c"
LEVELS = 33  # as the app's gradient (tui.heat_colours.LEVELS)


def _rgb(hex_colour: str) -> np.ndarray:
    return np.array([int(hex_colour[k : k + 2], 16) for k in (1, 3, 5)], dtype=np.float64)


def positions(values: np.ndarray, palette: str, largest: float) -> np.ndarray:
    """Where each value lies on its palette, 0 … 1 (as tui.heat_colours.levels): weights as
    they are, signed values around 0 scaled by ``largest``; ±∞ at the ends, NaN at the middle."""
    values = np.nan_to_num(np.asarray(values, dtype=np.float64), nan=0.0)
    if palette == "weights":
        return np.clip(values, 0.0, 1.0)
    scale = largest if largest > 0 else 1.0
    with np.errstate(invalid="ignore", over="ignore"):
        return (np.clip(values / scale, -1.0, 1.0) + 1.0) / 2.0


def colours(position: np.ndarray, palette: str) -> np.ndarray:
    """``#rrggbb`` of every position (0 … 1), in ``LEVELS`` steps between the palette's three
    stops (linear in sRGB, as Textual's gradient)."""
    stops = np.stack([_rgb(c) for c in (WEIGHTS if palette == "weights" else DIVERGING)])
    step = np.rint(np.asarray(position, dtype=np.float64) * (LEVELS - 1)) / (LEVELS - 1)
    low = step < 0.5
    t = np.where(low, step * 2.0, (step - 0.5) * 2.0)[..., None]
    rgb = np.where(
        low[..., None], stops[0] + (stops[1] - stops[0]) * t, stops[1] + (stops[2] - stops[1]) * t
    )
    table = np.array(
        [f"#{r:02x}{g:02x}{b:02x}" for r, g, b in np.rint(rgb.reshape(-1, 3)).astype(int)]
    )
    return table.reshape(np.shape(position))


def lightness(hex_colour: str) -> float:
    """CIE L* (0 black … 100 white) of an sRGB colour: what a greyscale print keeps."""
    c = _rgb(hex_colour) / 255.0
    linear = np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    y = float(linear @ np.array([0.2126, 0.7152, 0.0722]))
    return 116.0 * y ** (1.0 / 3.0) - 16.0 if y > 216 / 24389 else y * 24389 / 27


def text_colour(fill: str) -> str:
    """Black or white, whichever reads better on ``fill``."""
    return "#000000" if lightness(fill) > 55 else "#ffffff"
