"""StepStrip: ``1 Score · 2 Scale · 3 Mask · 4 Softmax · 5 Weighted sum``, the current one lit."""

from __future__ import annotations

from textual.content import Content
from textual.widgets import Static

from attn_tui.core.stages import STAGE_TITLES, STAGES


class StepStrip(Static):
    """The stages in order; each label is clickable and jumps to its stage."""

    DEFAULT_CSS = """
    StepStrip {
        height: 1;
        padding: 0 1;
        background: $boost;
    }
    """

    def show(self, step: int) -> None:
        parts = []
        for index, stage in enumerate(STAGES):
            label = f" {index + 1} {STAGE_TITLES[stage]} "
            style = "reverse bold" if index == step else "dim"
            parts.append(Content.from_markup(f"[{style} @click=screen.goto({index + 1})]$label[/]",
                                             label=label))
        self.update(Content(" · ").join(parts))
