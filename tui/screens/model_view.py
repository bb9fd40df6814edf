"""ModelViewScreen: a model index as a grid of layers × heads, each head's weights a small heat
map with the focus row marked (as BertViz's model view). Arrows choose a head, Enter opens that
layer and head in the debugger (Esc there comes back), ``s`` colours every head by a pattern
score (core.patterns). The maps and the scores are computed off the key path, in a worker, a
layer at a time; the screen holds no arithmetic.
"""

from __future__ import annotations

from rich.segment import Segment
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Grid, VerticalScroll
from textual.content import Content
from textual.screen import Screen
from textual.strip import Strip
from textual.widgets import Footer, Static
from textual.worker import get_current_worker

from attn_tui.core.errors import ScenarioError
from attn_tui.core.model_index import ModelIndex
from attn_tui.core.patterns import PATTERNS
from attn_tui.core.text import visible
from attn_tui.tui.keys import model_view_bindings
from attn_tui.tui.screens.debugger import DebuggerScreen
from attn_tui.tui.text import tell
from attn_tui.tui.widgets.overview import OverviewMap

SCORES = (None, *PATTERNS)  # what ``s`` cycles through: no colouring, then each pattern
LEVELS = 5                  # border colours by a score's fifth: -score-0 … -score-4
ROW_HEIGHT = 7              # lines of the grid a layer takes (grid-rows below)
MAP_ROWS_AT_A_TIME = 128    # query rows a map is computed from at a time (fewer, bigger steps)


class HeadMap(OverviewMap):
    """One head's map in the grid: its first line shows the chosen score (or … while the map is
    computed) instead of the overview's status."""

    DEFAULT_CSS = """
    HeadMap { width: 100%; height: 100%; border: round $panel-lighten-2; }
    """

    def __init__(self, layer: int, head: int, **kwargs) -> None:
        super().__init__(**kwargs)
        self.grid_row, self.head = layer, head
        self.border_title = f"h{head}"
        self.border_subtitle = ""
        self.score_text = ""

    def render_line(self, y: int) -> Strip:
        if y != 0:
            return super().render_line(y)
        width = self.content_size.width
        text = self.score_text if self.small is not None or self.score_text == "unreadable" else "…"
        return Strip([Segment(text[:width].rjust(width),
                              self.get_component_rich_style("overview--status"))])


class GridScroll(VerticalScroll, can_focus=False):
    """The grid's scrolling: the screen's arrows choose a head (a focused scroll would take
    them for itself once the grid is taller than the screen); the mouse wheel still scrolls."""


class LayerDebugger(DebuggerScreen):
    """The debugger on one layer opened from the model view: Esc goes back to the grid."""

    BINDINGS = model_view_bindings("back_to_model")

    def __init__(self, scenario, head: int) -> None:
        super().__init__(scenario)
        self.set_reactive(DebuggerScreen.head, head)

    def action_back_to_model(self) -> None:
        self.app._unless_unsaved(self.app.pop_screen)


class ModelViewScreen(Screen):
    DEFAULT_CSS = """
    ModelViewScreen #model-title { height: auto; padding: 0 1; text-style: bold; }
    ModelViewScreen #model-hint { height: auto; padding: 0 1; color: $text-muted; }
    ModelViewScreen #model-grid { height: auto; grid-gutter: 0 0; grid-rows: 7; }
    ModelViewScreen .layer-label { height: 100%; content-align: right middle; padding-right: 1;
                                   color: $text-muted; }
    ModelViewScreen HeadMap.-chosen { border: heavy $accent; }
    ModelViewScreen HeadMap.-score-1 { border: round $primary-darken-2; }
    ModelViewScreen HeadMap.-score-2 { border: round $primary; }
    ModelViewScreen HeadMap.-score-3 { border: round $warning; }
    ModelViewScreen HeadMap.-score-4 { border: round $error; }
    ModelViewScreen HeadMap.-chosen.-score-1, ModelViewScreen HeadMap.-chosen.-score-2,
    ModelViewScreen HeadMap.-chosen.-score-3, ModelViewScreen HeadMap.-chosen.-score-4 {
        border: heavy $accent;
    }
    """

    BINDINGS = model_view_bindings("move(0,-1)", "move(0,1)", "move(-1,0)", "move(1,0)", "open",
                                   "next_score")

    def __init__(self, index: ModelIndex) -> None:
        super().__init__()
        from attn_tui.core.scenario_file import check

        self.index = index
        self.listed: list[tuple[int, int, str | None]] = []  # (layer, heads, problem)
        for entry in index.layers:
            if entry.heads is not None:  # (reading every file first took ~0.1 s a layer)
                self.listed.append((entry.layer, entry.heads, None))
                continue
            try:
                self.listed.append((entry.layer, check(entry.path).heads, None))
            except ScenarioError as error:
                self.listed.append((entry.layer, 0, str(error)))
        self.heads = max([1, *(heads for _, heads, _ in self.listed)])
        self.chosen = (0, 0)  # (row of the grid, head)
        self.score: str | None = None
        self.scores: dict[tuple[int, int], dict] | None = None  # (row, head) → that head's scores
        self.maps_done = 0  # how many maps have arrived (tests and benchmarks wait on it)
        self.in_view_maps = 0  # how many of them the screen shows (they are computed first)
        self._wanted: tuple[int, int] | None = None  # the size of map being computed
        self._resize_timer = None
        self._cells: dict[tuple[int, int], HeadMap] = {}
        self._done_rows: set[int] = set()   # rows whose maps are computed or being computed
        self._pending: list[int] = []       # rows asked for, in order
        self._worker = None

    def compose(self) -> ComposeResult:
        yield Static(Content(visible(self.index.title)), id="model-title")
        yield Static(Content(self._hint()), id="model-hint")
        with GridScroll(id="model-scroll"):
            with Grid(id="model-grid"):
                for row, (layer, heads, problem) in enumerate(self.listed):
                    yield Static(Content(f"layer {layer}"), classes="layer-label")
                    for h in range(self.heads):
                        if h < heads:
                            yield HeadMap(row, h, id=f"map-{row}-{h}")
                        elif h == 0 and problem:
                            yield Static(Content(visible(problem)), classes="layer-problem")
                        else:
                            yield Static("")
        yield Footer()

    def _hint(self) -> str:
        score = "off" if self.score is None else self.score
        return (f"{len(self.listed)} layers × {self.heads} heads, each a map of its weights, ◀ the "
                f"focus row. Arrows choose, Enter opens. s colour: {score}")

    def on_mount(self) -> None:
        grid = self.query_one("#model-grid", Grid)
        grid.styles.grid_size_columns = self.heads + 1
        grid.styles.grid_columns = f"9 {' '.join(['1fr'] * self.heads)}"
        self._highlight()
        self.watch(self.query_one("#model-scroll", VerticalScroll), "scroll_y",
                   lambda _: self._request(), init=False)
        self.call_after_refresh(self._compute)

    # ---- maps and scores, off the key path ---------------------------------------------------
    # Only the layers in view (and the one below) are computed, those first in view first: a
    # map costs ~12 ms a head at T = 512, and computing all 144 behind the screen took the
    # interpreter from the keys for seconds. Scrolling asks for the layers it brings into view.

    def _compute(self) -> None:
        found = list(self.query(HeadMap))
        if found and found[0].wanted != self._wanted:  # (every map asks when first laid out)
            self._wanted = found[0].wanted
            self.maps_done = 0
            self._done_rows.clear()
            self._pending.clear()
            if self._worker is not None:
                self._worker.cancel()
                self._worker = None
            self._request()

    @on(OverviewMap.Resized)
    def _resized(self) -> None:
        if self._resize_timer is not None:
            self._resize_timer.stop()
        self._resize_timer = self.set_timer(0.2, self._compute)

    def _rows_in_view(self, ahead: int = 1) -> list[int]:
        """The grid's rows on screen, and ``ahead`` more below."""
        scroll = self.query_one("#model-scroll", VerticalScroll)
        top, height = scroll.scroll_y, scroll.size.height
        return [row for row in range(len(self.listed))
                if row * ROW_HEIGHT < top + height + ahead * ROW_HEIGHT and (row + 1) * ROW_HEIGHT > top]

    def _request(self) -> None:
        """Queue the rows in view that have no maps yet; start the worker if it is idle."""
        if self._wanted is None:
            return
        in_view = self._rows_in_view()
        if not self.in_view_maps:
            self.in_view_maps = sum(self.listed[row][1] for row in self._rows_in_view(ahead=0))
        for row in in_view:
            if row not in self._done_rows and row not in self._pending:
                self._pending.append(row)
        if self._pending and (self._worker is None or self._worker.is_finished):
            self._worker = self._maps(*self._wanted)

    def _next_row(self) -> int | None:
        while self._pending:
            row = self._pending.pop(0)
            if row not in self._done_rows:
                self._done_rows.add(row)
                return row
        self._worker = None
        return None

    @work(thread=True, group="maps")
    def _maps(self, rows: int, cols: int) -> None:
        from attn_tui.core import load
        from attn_tui.core.attention import Attention
        from attn_tui.core.overview import weights_overview

        worker = get_current_worker()
        while not worker.is_cancelled:
            row = self.app.call_from_thread(self._next_row)
            if row is None:
                return
            entry = self.index.layers[row]
            if self.listed[row][2] is not None:
                continue
            try:
                scenario = load(entry.path)
            except ScenarioError as error:
                self.app.call_from_thread(self._layer_failed, row, str(error))
                continue
            attention = Attention(scenario)
            maps = []
            for h in range(scenario.heads):
                small = weights_overview(attention, h, rows, cols, band=MAP_ROWS_AT_A_TIME,
                                         cancelled=lambda: worker.is_cancelled)
                if small is None:
                    return
                maps.append(small)
            # one call a layer: the worker waits for the app each time it hands maps over
            self.app.call_from_thread(self._layer_ready, row, maps, scenario.T, scenario.T_k,
                                      scenario.focus)

    def _layer_failed(self, row: int, problem: str) -> None:
        layer, heads, _ = self.listed[row]
        self.listed[row] = (layer, heads, problem)
        tell(self.app, problem, severity="error")
        for view in self.query(HeadMap):
            if view.grid_row == row:
                view.score_text = "unreadable"
                view.small = None
                view.refresh()

    def _layer_ready(self, row: int, maps: list, T: int, T_k: int, focus: int) -> None:
        with self.app.batch_update():
            for h, small in enumerate(maps):
                view = self._map(row, h)
                if view is None:  # the index said fewer heads than the file has
                    continue
                view.show(small, (T, T_k), stale=False)
                view.set_window((0, T), (0, T_k), focus)
                self.maps_done += 1

    @work(thread=True, exclusive=True, group="scores")
    def _scores(self) -> None:
        from attn_tui.core import load
        from attn_tui.core.patterns import scenario_scores

        worker = get_current_worker()
        found = {}
        for row, entry in enumerate(self.index.layers):
            if self.listed[row][2] is not None:
                continue
            try:
                heads = scenario_scores(load(entry.path), entry.layer)
            except ScenarioError:
                continue
            if worker.is_cancelled:
                return
            found.update({(row, head.head): head.scores for head in heads})
        self.app.call_from_thread(self._scores_ready, found)

    def _scores_ready(self, found: dict) -> None:
        self.scores = found
        self._colour()

    def _colour(self) -> None:
        for view in self.query(HeadMap):
            value = None if self.score is None or self.scores is None else \
                self.scores.get((view.grid_row, view.head), {}).get(self.score)
            for level in range(1, LEVELS):
                view.set_class(value is not None and min(LEVELS - 1, int(value * LEVELS)) == level,
                               f"-score-{level}")
            if self.score is None:
                view.score_text = ""
            elif self.scores is None:
                view.score_text = "scoring…"
            else:
                view.score_text = f"{self.score[:4]} {'—' if value is None else f'{value:.2f}'}"
            view.refresh()
        self.query_one("#model-hint", Static).update(Content(self._hint()))

    # ---- keys ---------------------------------------------------------------------------------

    def _map(self, row: int, head: int) -> HeadMap | None:
        if not self._cells:  # (a dictionary: a DOM query per key walked ~300 widgets)
            self._cells = {(view.grid_row, view.head): view for view in self.query(HeadMap)}
        return self._cells.get((row, head))

    def _highlight(self, before: tuple[int, int] | None = None) -> None:
        """Mark the chosen map (and unmark the one before: two maps restyled, not 144)."""
        if before is not None and before != self.chosen:
            old = self._map(*before)
            if old is not None:
                old.remove_class("-chosen")
        chosen = self._map(*self.chosen)
        if chosen is not None:
            chosen.add_class("-chosen")
            self.query_one("#model-scroll", VerticalScroll).scroll_to_widget(chosen, animate=False)

    def action_move(self, rows: int, heads: int) -> None:
        row = max(0, min(len(self.listed) - 1, self.chosen[0] + rows))
        head = max(0, min(max(0, self.listed[row][1] - 1), self.chosen[1] + heads))
        before, self.chosen = self.chosen, (row, head)
        self._highlight(before)

    def action_next_score(self) -> None:
        self.score = SCORES[(SCORES.index(self.score) + 1) % len(SCORES)]
        if self.score is not None and self.scores is None:
            self._scores()
        self._colour()

    def action_open(self) -> None:
        from attn_tui.core import load

        row, head = self.chosen
        layer, heads, problem = self.listed[row]
        if problem is not None:
            tell(self.app, problem, severity="error")
            return
        try:
            scenario = load(self.index.layers[row].path)
        except ScenarioError as error:
            tell(self.app, str(error), severity="error")
            return
        self.app.push_screen(LayerDebugger(scenario, min(head, scenario.heads - 1)))

    @on(OverviewMap.Picked)
    def picked(self, event: OverviewMap.Picked) -> None:
        view = event.control
        if isinstance(view, HeadMap):
            before, self.chosen = self.chosen, (view.grid_row, view.head)
            self._highlight(before)
            self.action_open()
