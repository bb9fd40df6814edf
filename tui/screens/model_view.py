"""ModelViewScreen: a model index as a grid of layers × heads, each head's weights a small heat
map with the focus row marked (as BertViz's model view). Arrows choose a head, Enter opens that
layer and head in the debugger (Esc there comes back), ``s`` colours every head by a pattern
score (core.teaching.patterns). The maps and the scores are computed off the key path, in a
worker, a layer at a time (``model_view_maps.py``, ``model_view_colours.py``); the screen holds
no arithmetic.

The grid is a window on the model: as many layers and heads as the terminal has room for, a
fixed set of map widgets that show whichever layers and heads are in the window (a widget per
head of an 80-layer, 64-head model took 28 s to mount and a second a key). Moving past its edge
moves the window; a map, once computed, is kept; only the window's layers and the next are
computed.
"""

from __future__ import annotations

from textual import on, work
from textual.app import ComposeResult
from textual.containers import Grid
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Static
from textual.worker import get_current_worker

from attn_tui.core.errors import ScenarioError
from attn_tui.core.files.yaml_numbers import count
from attn_tui.core.loading.model_index import ModelIndex
from attn_tui.core.text import visible
from attn_tui.tui.key_bindings import model_view_bindings
from attn_tui.tui.screens.layer_debugger import LayerDebugger
from attn_tui.tui.screens.model_view_colours import PatternColours
from attn_tui.tui.screens.model_view_maps import HeadMaps
from attn_tui.tui.text import tell
from attn_tui.tui.whole_frames import WholeFrames
from attn_tui.tui.widgets.head_map import HeadMap, short_head_name
from attn_tui.tui.widgets.key_footer import KeyFooter
from attn_tui.tui.widgets.overview import OverviewMap

ROW_HEIGHT = 7  # lines of the grid a layer takes at least (grid-rows below)
TALLEST_ROW = 24  # and at most: a model of few layers fills the screen with larger maps
LABEL_WIDTH = 9  # the column of layer names (wider for the layers' kinds, when the index has them)
MAP_WIDTH = 10  # the narrowest map the window makes room for
CHROME = 4  # lines of the screen that are not the grid: title, hint, footer


class ModelViewScreen(HeadMaps, PatternColours, WholeFrames, Screen):
    DEFAULT_CSS = """
    ModelViewScreen #model-title { height: auto; padding: 0 1; text-style: bold; }
    ModelViewScreen #model-hint { height: auto; padding: 0 1; color: $text-muted; }
    ModelViewScreen #model-grid { height: 1fr; grid-gutter: 0 0; grid-rows: 7; }
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

    BINDINGS = model_view_bindings(
        "move(0,-1)", "move(0,1)", "move(-1,0)", "move(1,0)", "open", "next_score"
    )

    def __init__(self, index: ModelIndex) -> None:
        super().__init__()
        self.index = index
        # (layer, heads, problem): as the index says; a layer it gives no heads for shows one map
        # until its file is read, off the key path (_list: a 3 MB YAML file takes ~1.5 s to parse,
        # and 1,024 layers naming it left the screen blank, q unheard, for minutes)
        self.listed = [(entry.layer, entry.heads or 1, None) for entry in index.layers]
        # each layer's kind, under its name ("sliding 512", "RoPE 10000"), as the index says it
        self.kinds = [() if entry.kind is None else entry.kind.lines() for entry in index.layers]
        self.label_width = max([LABEL_WIDTH, *(len(line) + 2 for k in self.kinds for line in k)])
        self.listing = any(entry.heads is None for entry in index.layers)
        self._lister = None
        self.heads = max([1, *(heads for _, heads, _ in self.listed)])
        self.chosen = (0, 0)  # (row of the index, head)
        self.top = self.left = 0  # the window's first row and first head
        self.rows_fit, self.cols_fit = self._fits()
        self.score: str | None = None
        self.scores: dict[tuple[int, int], dict] | None = None  # (row, head) → that head's scores
        self.maps_done = 0  # how many maps have been computed (tests and benchmarks wait on it)
        self.in_view_maps = 0  # how many the first window shows (they are computed first)
        # (row, head) → (map, T, T_k, focus, its name)
        self._cache: dict[tuple[int, int], tuple] = {}
        self._wanted: tuple[int, int] | None = None  # the size of map computed
        self._resize_timer = None
        self._queued: set[int] = set()  # rows computed, being computed or asked for
        self._pending: list[int] = []  # rows asked for, in order
        self._worker = None
        # the layer opened last (see action_open)
        self._kept: tuple[int, LayerDebugger] | None = None

    def _fits(self) -> tuple[int, int]:
        width, height = self.app.size
        rows = max(1, min(len(self.listed), (height - CHROME) // ROW_HEIGHT))
        return rows, max(1, min(self.heads, (width - self.label_width - 2) // MAP_WIDTH))

    def _row_height(self) -> int:
        """The lines a layer's row takes: the screen's height shared among the rows shown."""
        return max(ROW_HEIGHT, min(TALLEST_ROW, (self.app.size.height - CHROME) // self.rows_fit))

    def compose(self) -> ComposeResult:
        yield Static(Content(visible(self.index.title)), id="model-title")
        yield Static(Content(self._hint()), id="model-hint")
        with Grid(id="model-grid"):
            for i in range(self.rows_fit):
                yield Static("", id=f"label-{i}", classes="layer-label")
                for j in range(self.cols_fit):
                    yield HeadMap(i, j, id=f"cell-{i}-{j}")
        yield KeyFooter()

    def _hint(self) -> str:
        score, shown = "off" if self.score is None else self.score, ""
        if self.rows_fit < len(self.listed) or self.cols_fit < self.heads:
            last_row = min(len(self.listed), self.top + self.rows_fit) - 1
            last_head = min(self.heads, self.left + self.cols_fit) - 1
            shown = (
                f" (here layers {self.listed[self.top][0]}–{self.listed[last_row][0]}, "
                f"heads {self.left}–{last_head})"
            )
        if self.listing:
            return (
                f"{count(len(self.listed), 'layer')}: reading their files to count their heads… "
                "Arrows choose, Enter opens, q quits."
            )
        return (
            f"{count(len(self.listed), 'layer')} × {count(self.heads, 'head')}{shown}, "
            "each a map of its weights, "
            f"◀ the focus row. Arrows choose, Enter opens. s colour: {score}"
        )

    def on_mount(self) -> None:
        grid = self.query_one("#model-grid", Grid)
        self._rows_tall = self._row_height()
        grid.styles.grid_rows = str(self._rows_tall)
        grid.styles.grid_size_columns = self.cols_fit + 1
        grid.styles.grid_columns = f"{self.label_width} {' '.join(['1fr'] * self.cols_fit)}"
        self._assign()
        if self.listing:  # the maps wait for the layers' files to be read
            if self._lister is None:
                self._lister = self._list()
            return
        for layer, _, problem in self.listed:
            if problem is not None:
                tell(self.app, problem, severity="error")
        self.call_after_refresh(self._compute)

    @work(thread=True, group="listing")
    def _list(self) -> None:
        from attn_tui.core.loading.model_index import listed_layers

        worker = get_current_worker()
        listed = listed_layers(self.index, cancelled=lambda: worker.is_cancelled)
        if listed is not None:
            self.app.call_from_thread(self._listed, listed)

    async def _listed(self, listed: list) -> None:
        """Every layer's heads known: the grid laid out for them, then the maps computed."""
        self.listed, self.listing = listed, False
        self.heads = max([1, *(heads for _, heads, _ in listed)])
        row, head = self.chosen
        self.chosen = (row, min(head, max(0, listed[row][1] - 1)))
        if self._fits() != (self.rows_fit, self.cols_fit):
            self.rows_fit, self.cols_fit = self._fits()
            self._follow()
            await self.recompose()
        self.on_mount()

    async def on_resize(self) -> None:
        if not self.is_mounted:
            return
        if self._fits() == (self.rows_fit, self.cols_fit) and self._row_height() != self._rows_tall:
            # the same maps, taller or shorter: drawn anew at their size
            self._rows_tall = self._row_height()
            self.query_one("#model-grid", Grid).styles.grid_rows = str(self._rows_tall)
            return
        if self._fits() != (self.rows_fit, self.cols_fit):
            self.rows_fit, self.cols_fit = self._fits()
            self._follow()
            await self.recompose()
            self.on_mount()

    @on(OverviewMap.Resized)
    def _resized(self) -> None:
        if self._resize_timer is not None:
            self._resize_timer.stop()
        self._resize_timer = self.set_timer(0.2, self._compute)

    # ---- the window -----------------------------------------------------------------------------

    def _cells(self):
        for view in self.query(HeadMap):
            yield view

    def _assign(self) -> None:
        """Show in each map widget the layer and head of its place in the window."""
        with self.app.batch_update():
            for i in range(self.rows_fit):
                row = self.top + i
                label = self.query_one(f"#label-{i}", Static)
                label.update(
                    Content(
                        "\n".join((f"layer {self.listed[row][0]}", *self.kinds[row]))
                        if row < len(self.listed)
                        else ""
                    )
                )
            for view in self._cells():
                i, j = view.id.removeprefix("cell-").split("-")
                row, head = self.top + int(i), self.left + int(j)
                view.grid_row, view.head = row, head
                problem = self.listed[row][2] if row < len(self.listed) else None
                real = row < len(self.listed) and (
                    head < self.listed[row][1] or (head == 0 and problem is not None)
                )
                view.styles.visibility = "visible" if real else "hidden"
                if problem is not None:
                    view.score_text = "unreadable"
                cached = self._cache.get((row, head))
                view.border_title = f"h{head}" if cached is None else short_head_name(cached[4])
                if cached is None:
                    view.small = None
                    view.refresh()
                else:
                    small, T, T_k, focus, _ = cached
                    view.show(small, (T, T_k), stale=False)
                    view.set_window((0, T), (0, T_k), focus)
                    view.refresh()
                view.set_class((row, head) == self.chosen, "-chosen")
                self._colour_one(view)
        self.query_one("#model-hint", Static).update(Content(self._hint()))

    def _follow(self) -> bool:
        """Move the window so that the chosen head is in it; whether it moved."""
        row, head = self.chosen
        top = min(max(self.top, row - self.rows_fit + 1), row)
        left = min(max(self.left, head - self.cols_fit + 1), head)
        moved = (top, left) != (self.top, self.left)
        self.top, self.left = top, left
        return moved

    def _map(self, row: int, head: int) -> HeadMap | None:
        """The widget showing (row, head), if it is in the window."""
        i, j = row - self.top, head - self.left
        if 0 <= i < self.rows_fit and 0 <= j < self.cols_fit:
            return next(self.query(f"#cell-{i}-{j}").results(HeadMap), None)
        return None

    # ---- keys -----------------------------------------------------------------------------------

    def action_move(self, rows: int, heads: int) -> None:
        row = max(0, min(len(self.listed) - 1, self.chosen[0] + rows))
        head = max(0, min(max(0, self.listed[row][1] - 1), self.chosen[1] + heads))
        before, self.chosen = self.chosen, (row, head)
        if self._follow():
            self._assign()
            self._request()
            return
        old, new = self._map(*before), self._map(*self.chosen)
        if old is not None:  # two maps restyled, not the whole window
            old.remove_class("-chosen")
        if new is not None:
            new.add_class("-chosen")

    def action_open(self) -> None:
        from attn_tui.core.loading.model_index import load_layer

        row, head = self.chosen
        layer, heads, problem = self.listed[row]
        if problem is not None:
            tell(self.app, problem, severity="error")
            return
        if self._kept is not None and self._kept[0] == row:  # kept, unless its edits were dropped:
            debugger = self._kept[1]  # Enter on it again switches screens, back where it was
            debugger.move(
                head=head
            )  # (a head it does not have: its last, as the position keeps to them)
        else:
            try:
                scenario = load_layer(self.index.layers[row])
            except ScenarioError as error:
                tell(self.app, str(error), severity="error")
                return
            debugger = LayerDebugger(scenario, min(head, scenario.heads - 1))
            self._forget_kept()
            self.app.install_screen(
                debugger, f"layer-{id(debugger)}"
            )  # (installed: popping keeps it)
            self._kept = (row, debugger)
        self.app.push_screen(debugger)

    def on_screen_resume(self) -> None:
        if self._kept is not None and self._kept[1].session.modified:  # its edits were discarded:
            self._kept[1].session.journal.keep = False  # no recovery copy of them as it goes
            self._forget_kept()

    def _forget_kept(self) -> None:
        if self._kept is not None:
            debugger, self._kept = self._kept[1], None
            self.app.uninstall_screen(debugger)
            debugger.remove()

    @on(OverviewMap.Picked)
    def picked(self, event: OverviewMap.Picked) -> None:
        view = event.control
        if isinstance(view, HeadMap) and view.styles.visibility != "hidden":
            self.chosen = (view.grid_row, view.head)
            self.action_open()
