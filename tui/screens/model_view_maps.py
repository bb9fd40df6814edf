"""The model view's maps, off the key path: each head's weights as a small heat map, computed
in a worker a layer at a time for the rows of the window (and the next), handed to the map
widgets that show them and kept. A part of ModelViewScreen (tui/screens/model_view.py), kept
apart as the one concern it is."""

from __future__ import annotations

from textual import work
from textual.worker import get_current_worker

from attn_tui.core.errors import ScenarioError
from attn_tui.tui.text import tell
from attn_tui.tui.widgets.head_map import short_head_name

MAP_ROWS_AT_A_TIME = 128  # query rows a map is computed from at a time (fewer, bigger steps)


class HeadMaps:
    """Mixed into ModelViewScreen, which holds ``index``, ``listed``, ``listing``, the window
    (``top``, ``rows_fit``) and the map widgets (``_cells``, ``_map``, ``_assign``), and what is
    computed (``_cache``, ``_wanted``, ``_queued``, ``_pending``, ``_worker``, ``maps_done``,
    ``in_view_maps``)."""

    def _compute(self) -> None:
        if self.listing:  # (laid out again, and computed, once the layers' files are read)
            return
        found = list(self._cells())
        if found and found[0].wanted != self._wanted:  # (every map asks when first laid out)
            self._wanted = found[0].wanted
            self.maps_done = 0
            self._cache.clear()
            self._queued.clear()
            self._pending.clear()
            if self._worker is not None:
                self._worker.cancel()
                self._worker = None
            self.in_view_maps = sum(
                self.listed[row][1]
                for row in range(self.top, self.top + self.rows_fit)
                if row < len(self.listed) and self.listed[row][2] is None
            )
            self._assign()
            self._request()

    def _request(self) -> None:
        """Ask for the rows of the window (and the one below) that have no maps yet."""
        if self._wanted is None:
            return
        for row in range(self.top, min(len(self.listed), self.top + self.rows_fit + 1)):
            if row not in self._queued:
                self._queued.add(row)
                self._pending.append(row)
        if self._pending and (self._worker is None or self._worker.is_finished):
            self._worker = self._maps(*self._wanted)

    def _next_row(self, worker) -> int | None:
        # (a worker cancelled by a new layout gets none: a row it took would be computed for the
        # old layout's maps, and dropped, while the new worker never got it)
        if worker is not self._worker:
            return None
        if self._pending:
            return self._pending.pop(0)
        self._worker = None
        return None

    @work(thread=True, group="maps")
    def _maps(self, rows: int, cols: int) -> None:
        from attn_tui.core.engine.attention import Attention
        from attn_tui.core.loading.model_index import load_layer
        from attn_tui.core.teaching.overview import weights_overview

        worker = get_current_worker()
        while not worker.is_cancelled:
            row = self.app.call_from_thread(self._next_row, worker)
            if row is None:
                return
            if self.listed[row][2] is not None:
                continue
            try:
                scenario = load_layer(self.index.layers[row])
            except ScenarioError as error:
                self.app.call_from_thread(self._layer_failed, row, str(error))
                continue
            attention = Attention(scenario, block=MAP_ROWS_AT_A_TIME)
            maps = []
            for h in range(scenario.heads):
                small = weights_overview(
                    attention,
                    h,
                    rows,
                    cols,
                    band=MAP_ROWS_AT_A_TIME,
                    cancelled=lambda: worker.is_cancelled,
                )
                if small is None:
                    return
                maps.append(small)
            # one call a layer: the worker waits for the app each time it hands maps over
            self.app.call_from_thread(
                self._layer_ready,
                row,
                maps,
                scenario.T,
                scenario.T_k,
                scenario.focus,
                scenario.head_names,
            )

    def _layer_failed(self, row: int, problem: str) -> None:
        layer, heads, _ = self.listed[row]
        self.listed[row] = (layer, heads, problem)
        tell(self.app, problem, severity="error")
        for view in self._cells():
            if view.grid_row == row:
                view.score_text = "unreadable"
                view.small = None
                view.refresh()

    def _layer_ready(
        self, row: int, maps: list, T: int, T_k: int, focus: int, names: tuple
    ) -> None:
        with self.app.batch_update():
            for h, small in enumerate(maps):
                self._cache[(row, h)] = (small, T, T_k, focus, names[h])
                self.maps_done += 1
                view = self._map(row, h)
                if view is not None:
                    view.border_title = short_head_name(names[h])
                    view.show(small, (T, T_k), stale=False)
                    view.set_window((0, T), (0, T_k), focus)
