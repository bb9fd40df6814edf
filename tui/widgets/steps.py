"""StepStrip: ``1 Score · 2 Scale · 3 Mask · 4 Softmax · 5 Weighted sum``, the current one lit.

The steps come from the stage registry (``core.stages``): a scenario with RoPE has a Rotate
step, a multi-head one Concat and Project."""

from __future__ import annotations

from functools import lru_cache

from textual.content import Content
from textual.widgets import Static


class StepStrip(Static):
    """The stages in order; each label is clickable and jumps to its stage."""

    DEFAULT_CSS = """
    StepStrip {
        height: 1;
        padding: 0 1;
        background: $boost;
    }
    """

    def show(self, titles: list[str], step: int) -> None:
        width = self.size.width - 2 if self.size.width else 10_000
        if (titles, step, width) == getattr(self, "_shown", None):  # one line: redraw it when it changes
            return
        # every step named where there is room; where not, the current one named and the others
        # by number, so that no step drops off a narrow terminal
        whole = sum(len(title) + 4 for title in titles) + 3 * (len(titles) - 1)
        parts = [_label(index, title, index == step, whole <= width or index == step)
                 for index, title in enumerate(titles)]
        self._shown = (titles, step, width)
        self.update(Content(" · " if whole <= width else "·").join(parts), layout=False)

    def on_resize(self) -> None:
        shown = getattr(self, "_shown", None)
        if shown is not None:
            self.show(shown[0], shown[1])


@lru_cache(maxsize=256)
def _label(index: int, title: str, current: bool, named: bool) -> Content:
    """One step's label, a link to its stage (kept: parsing the markup is a step key's cost)."""
    label = f" {index + 1} {title} " if named else f" {index + 1} "
    style = "reverse bold" if current else "dim"
    return Content.from_markup(f"[{style} @click=screen.goto({index + 1})]$label[/]", label=label)
