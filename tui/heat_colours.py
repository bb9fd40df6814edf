"""The heat-map colours of a matrix, from the theme: a gradient between three component-class
colours in ``LEVELS`` steps, each with the text colour (dark or light) of higher WCAG contrast."""

from __future__ import annotations

import numpy as np
from rich.style import Style
from textual.color import Color, Gradient

LEVELS = 33


def heat_styles(widget, name: str) -> list[Style]:
    """The ``LEVELS`` cell styles of palette ``name`` ("weights": 0 … 1, or "diverging") from
    ``widget``'s component classes (``matrix--low`` … ``matrix--text-light``)."""
    stops = (
        ("matrix--low", "matrix--middle", "matrix--high")
        if name == "weights"
        else ("matrix--negative", "matrix--zero", "matrix--positive")
    )
    colours = [
        Color.from_rich_color(widget.get_component_rich_style(stop).bgcolor) for stop in stops
    ]
    gradient = Gradient((0.0, colours[0]), (0.5, colours[1]), (1.0, colours[2]), quality=LEVELS)
    dark = Color.from_rich_color(widget.get_component_rich_style("matrix--text-dark").color)
    light = Color.from_rich_color(widget.get_component_rich_style("matrix--text-light").color)
    styles = []
    for level in range(LEVELS):
        background = gradient.get_color(level / (LEVELS - 1))
        text = readable_on(background, dark, light)
        styles.append(Style(color=text.rich_color, bgcolor=background.rich_color))
    return styles


def levels(values: np.ndarray, palette: str, largest: float) -> np.ndarray:
    """The colour level of every value, in one NumPy pass: weights from 0 to 1, or values
    around 0 scaled by the largest seen (``largest``)."""
    values = np.nan_to_num(values, nan=0.0, posinf=0.0, neginf=0.0)
    if palette == "weights":
        position = np.clip(values, 0.0, 1.0)
    else:
        scale = largest if largest > 0 else 1.0
        position = (np.clip(values / scale, -1.0, 1.0) + 1.0) / 2.0
    return np.rint(position * (LEVELS - 1)).astype(np.intp)


def readable_on(background: Color, dark: Color, light: Color) -> Color:
    """Whichever of two text colours reads better on ``background`` (the higher WCAG contrast)."""
    return dark if contrast(dark, background) >= contrast(light, background) else light


def contrast(a: Color, b: Color) -> float:
    """The WCAG 2 contrast ratio of two colours, 1 to 21."""
    high, low = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def _luminance(color: Color) -> float:
    def channel(value: int) -> float:
        c = value / 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = color.rgb
    return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b)
