"""The weights overview of the debugger: the map of the whole weights drawn small, computed off
the key path once the keys pause, and the window on it that the stage view shows; the part of
:class:`~attn_tui.tui.controllers.panes.Panes` that tells the overviews
(:class:`~attn_tui.tui.widgets.overview.OverviewMap`) what to draw."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

from textual.worker import get_current_worker

from attn_tui.core.teaching.overview import weights_overview

if TYPE_CHECKING:
    from textual.timer import Timer

    from attn_tui.tui.screens.debugger import DebuggerScreen

OVERVIEW_DELAY = 0.2  # seconds of quiet before the overview is computed again


class OverviewPane:
    """The overview's part of the debugger's panes (a mixin of ``Panes``, which holds the
    screen)."""

    screen: DebuggerScreen
    _overview_timer: Timer | None = None  # the pause being waited for, before the computation

    @property
    def overview_stage(self) -> str:
        """The stage the overview map draws small."""
        return next(stage.name for stage in self.screen.stages if stage.display.overview)

    def show_window(self) -> None:
        """Mark on the overview what the stage view shows."""
        screen = self.screen
        for overview in screen.overviews:
            rows, columns = screen.stage_view.visible_window()
            if screen.described.arithmetic.columns != "keys":
                columns = (0, screen.session.scenario.T_k)
            overview.set_window(rows, columns, screen.row)

    def show_overview(self) -> None:
        """Mark the weights overview as updating, and compute it for the current numbers off
        the key path, once the keys pause (a run of edits starts one computation, not many)."""
        screen = self.screen
        for overview in screen.overviews:
            predictions = screen.session.predictions
            withheld = (
                predictions is not None
                and predictions.hidden_rows(self.overview_stage, screen.head).any()
            )
            overview.set_class(withheld, "-withheld")
            overview.show(None, overview.shape, stale=True)
            if self._overview_timer is not None:
                self._overview_timer.stop()
            self._overview_timer = screen.set_timer(
                OVERVIEW_DELAY,
                lambda overview=overview: screen.run_worker(
                    partial(
                        self._compute_overview,
                        screen.session.attention,
                        screen.head,
                        screen.session.version,
                        *overview.wanted,
                    ),
                    thread=True,
                    exclusive=True,
                    group="overview",
                ),
            )

    def _compute_overview(self, attention, head: int, version: int, rows: int, cols: int) -> None:
        screen = self.screen
        worker = get_current_worker()
        stale = screen.app.after_keys(
            lambda: worker.is_cancelled or version != screen.session.version
        )
        small = weights_overview(attention, head, rows, cols, cancelled=stale)
        if small is not None and not worker.is_cancelled:
            screen.app.call_from_thread(self._overview_ready, small, version, head)

    def _overview_ready(self, small, version: int, head: int) -> None:
        screen = self.screen
        if version != screen.session.version or head != screen.head:
            return
        scenario = screen.session.scenario
        for overview in screen.overviews:
            overview.show(small, (scenario.T, scenario.T_k), stale=False)
