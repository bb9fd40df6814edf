"""StepStrip: ``1 Score · 2 Scale · 3 Mask · 4 Softmax · 5 Weighted sum``, the current one lit.

The steps come from the stage registry (``core.stages``): a scenario with RoPE has a Rotate
step, a multi-head one Concat and Project."""

from __future__ import annotations

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
        if (titles, step) == getattr(self, "_shown", None):  # one line: redraw it when it changes
            return
        parts = []
        for index, title in enumerate(titles):
            label = f" {index + 1} {title} "
            style = "reverse bold" if index == step else "dim"
            parts.append(Content.from_markup(f"[{style} @click=screen.goto({index + 1})]$label[/]",
                                             label=label))
        self._shown = (titles, step)
        self.update(Content(" · ").join(parts), layout=False)
