"""A small SVG writer: elements appended as text, every attribute value and every piece of text
escaped, control characters made visible first (core.text), and nothing a viewer would run or
fetch: no scripts, no external references, generic font families that every viewer has."""

from __future__ import annotations

import re
from xml.sax.saxutils import escape, quoteattr

from attn_tui.core.text import visible

FONT = "DejaVu Sans, Helvetica, Arial, sans-serif"
MONO = "DejaVu Sans Mono, Menlo, Consolas, monospace"
LONGEST = 40  # characters of a label shown; the rest is cut with "…"
# What XML 1.0 cannot hold at all, even escaped (after visible() has replaced C0 and C1 controls):
# lone surrogates and the two non-characters U+FFFE, U+FFFF.
_NOT_XML = re.compile("[\ud800-\udfff\ufffe\uffff]")


def text_of(value: str, longest: int = LONGEST) -> str:
    """``value`` as a figure shows it: made visible, cut to ``longest`` characters, XML-safe
    (but not yet escaped: :meth:`Svg.text` escapes)."""
    shown = _NOT_XML.sub("\ufffd", visible(str(value)))
    return shown if len(shown) <= longest else shown[: longest - 1] + "…"


class Svg:
    """One drawing, ``width`` × ``height`` user units; :meth:`document` is the whole file."""

    def __init__(self, width: float, height: float, title: str) -> None:
        self.width, self.height, self.title = width, height, text_of(title, 200)
        self.parts: list[str] = []

    def rect(self, x: float, y: float, w: float, h: float, fill: str, **more: str) -> None:
        self.parts.append(
            f'<rect x="{x:g}" y="{y:g}" width="{w:g}" height="{h:g}" fill={quoteattr(fill)}'
            + _attributes(more)
            + "/>"
        )

    def line(
        self, x1: float, y1: float, x2: float, y2: float, stroke: str, width: float = 1
    ) -> None:
        self.parts.append(
            f'<line x1="{x1:g}" y1="{y1:g}" x2="{x2:g}" y2="{y2:g}" '
            f'stroke={quoteattr(stroke)} stroke-width="{width:g}"/>'
        )

    def text(
        self,
        x: float,
        y: float,
        value: str,
        size: float = 12,
        anchor: str = "start",
        fill: str = "#000000",
        mono: bool = False,
        rotate: float = 0,
        longest: int = LONGEST,
        **more: str,
    ) -> None:
        turn = f' transform="rotate({rotate:g} {x:g} {y:g})"' if rotate else ""
        family = MONO if mono else FONT
        self.parts.append(
            f'<text x="{x:g}" y="{y:g}" font-size="{size:g}" text-anchor="{anchor}" '
            f"font-family={quoteattr(family)} fill={quoteattr(fill)}{turn}"
            + _attributes(more)
            + f">{escape(text_of(value, longest))}</text>"
        )

    def raw(self, element: str) -> None:
        """An element the caller wrote itself, from numbers and constants only (a pattern, a
        gradient)."""
        self.parts.append(element)

    def document(self) -> str:
        head = (
            f'<?xml version="1.0" encoding="UTF-8"?>\n'
            '<svg xmlns="http://www.w3.org/2000/svg" '
            f'width="{self.width:g}" height="{self.height:g}" '
            f'viewBox="0 0 {self.width:g} {self.height:g}">\n<title>{escape(self.title)}</title>\n'
            f'<rect x="0" y="0" width="{self.width:g}" height="{self.height:g}" fill="#ffffff"/>\n'
        )
        return head + "\n".join(self.parts) + "\n</svg>\n"


def _attributes(more: dict[str, str]) -> str:
    return "".join(
        f" {name.rstrip('_').replace('_', '-')}={quoteattr(str(value))}"
        for name, value in more.items()
    )
