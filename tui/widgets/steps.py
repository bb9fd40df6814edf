"""StepStrip: ``1 Score · 2 Scale · 3 Mask · 4 Softmax · 5 Weighted sum``, the current one lit
(where not all fit: ``1·2·3 Mask·4 Softmax·5 Weighted sum·6·7``, the current one and its
neighbours named).

The steps come from the stage registry (``core.engine.stages``): a scenario with RoPE has a Rotate
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
        if (titles, step, width) == getattr(
            self, "_shown", None
        ):  # one line: redraw it when it changes
            return
        named = named_steps(titles, step, width)
        whole = len(named) == len(titles)
        parts = [
            _label(index, title, index == step, index in named)
            for index, title in enumerate(titles)
        ]
        self._shown = (titles, step, width)
        self.update(Content(" · " if whole else "·").join(parts), layout=False)

    def on_resize(self) -> None:
        shown = getattr(self, "_shown", None)
        if shown is not None:
            self.show(shown[0], shown[1])


def named_steps(titles: list[str], step: int, width: int) -> set[int]:
    """The steps named in ``width`` cells: every one where all fit (joined by " · "); where not,
    every step by its number (joined by "·", so that none drops off a narrow terminal) and as
    many named as fit, the current step first, then the others nearest first, after before
    before (so that 13 steps at 120 columns name more than the current one)."""
    if sum(len(title) + 4 for title in titles) + 3 * (len(titles) - 1) <= width:
        return set(range(len(titles)))
    used = sum(len(str(index + 1)) + 2 for index in range(len(titles))) + len(titles) - 1
    named: set[int] = set()
    order = sorted(range(len(titles)), key=lambda index: (abs(index - step), index < step))
    for index in order:
        if used + len(titles[index]) + 1 > width and index != step:
            continue  # (a shorter one further off may fit yet: "dO" where "Mask" did not)
        used += len(titles[index]) + 1  # " n " becomes " n Title "
        named.add(index)
    return named


@lru_cache(maxsize=256)
def _label(index: int, title: str, current: bool, named: bool) -> Content:
    """One step's label, a link to its stage (kept: parsing the markup is a step key's cost)."""
    label = f" {index + 1} {title} " if named else f" {index + 1} "
    style = "reverse bold" if current else "dim"
    return Content.from_markup(f"[{style} @click=screen.goto({index + 1})]$label[/]", label=label)
