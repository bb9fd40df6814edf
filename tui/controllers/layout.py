"""How the debugger's panes share the terminal: the inputs' width against the stage's, the input
matrices' heights, and where the scenario's description goes (above the inputs where all fit,
else after them)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from attn_tui.tui.widgets.matrix import MatrixView
from attn_tui.tui.widgets.overview import OverviewMap

if TYPE_CHECKING:
    from attn_tui.tui.screens.debugger import DebuggerScreen

WHY_WIDTH = 48  # the columns the stage's side keeps at least, for the Why pane's lines


def fit(screen: DebuggerScreen) -> None:
    """Share the width between the inputs and the stage by what each needs to show its
    matrices whole (the stage first), and the inputs' height among the input matrices, so
    that at any size every input is in view or one Tab away."""
    width, height = screen.size or screen.app.size  # (before the first layout: the terminal's)
    if width < 70 or screen.has_class("-too-small"):
        return
    inputs = screen.inputs_pane
    views = list(inputs.query(".input").results(MatrixView))
    if not views:
        return
    want_inputs = max(view.natural_size[0] for view in views) + 1
    stage_view = screen.query_one("#stage", MatrixView)
    overview = sum(
        map_.outer_size.width or map_.styles.width.cells or 0
        for map_ in screen.query(OverviewMap)
        if map_.display
    )
    want_stage = stage_view.natural_size[0] + overview
    # the stage's column first: all it needs (a stage of 13 keys showed 5 of them at 120
    # columns while the inputs kept 40%), and at least WHY_WIDTH for the Why pane beside a
    # narrow stage; the inputs take what is left, down to 30 columns (Tab scrolls them).
    # (A fixed 60% for the Why pane would show an 8-column Wq 5 columns at 120.)
    fitted = max(30, min(want_inputs, width - max(want_stage, WHY_WIDTH)))
    if inputs.styles.width is None or inputs.styles.width.cells != fitted:
        inputs.styles.width = fitted
    body = screen.query_one("#body").size.height or height - 3
    description = place_description(screen, views, body)
    for view, limit in zip(views, heights(views, body - description)):
        if view.styles.max_height is None or view.styles.max_height.cells != limit:
            view.styles.max_height = limit


def heights(views: list[MatrixView], room: int) -> list[int]:
    """Each input matrix's most lines in ``room`` lines: whole where it fits in its share, else
    its share (at least 6, or 8 where it has them: a header and a few rows)."""
    share = max(6, room // len(views))
    found = []
    for view in views:
        natural = view.natural_size[1]  # whole where it fits (then the share does not matter)
        found.append(natural if natural <= share else max(share, min(natural, 8)))
    return found


def place_description(screen: DebuggerScreen, views: list[MatrixView], body: int) -> int:
    """The scenario's description above the input matrices, or after them where that alone
    brings them all into view (above them at 80×24 it pushes V out of view); the lines it takes
    above them."""
    found = list(screen.query("#description"))
    if not found:
        return 0
    description = found[0]
    above = description.outer_size.height
    # after them only where that brings every matrix into view: where they scroll anyway, the
    # description stays first, where a reader starts (big matrices counted at their share)
    fits = above + sum(heights(views, body - above)) <= body or sum(heights(views, body)) > body
    inputs = screen.inputs_pane
    first = inputs.children[0] is description
    if fits and not first:
        inputs.move_child(description, before=0)
    elif not fits and first:
        inputs.move_child(description, after=views[-1])
    return description.outer_size.height if fits else 0
