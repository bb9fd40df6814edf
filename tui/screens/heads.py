"""HeadsScreen: every head's weights as a small heat map, side by side, the focus row marked;
←/→ (or a click) choose a head, Enter opens it, Esc goes back. The maps are computed off the key
path, a head at a time."""

from __future__ import annotations

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Grid, Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static
from textual.worker import get_current_worker

from attn_tui.core.engine.stages import stages_for
from attn_tui.core.model.labels import token_labels
from attn_tui.core.teaching.overview import weights_overview
from attn_tui.tui.text import plain
from attn_tui.tui.widgets.overview import OverviewMap


class HeadsScreen(ModalScreen[int | None]):
    DEFAULT_CSS = """
    HeadsScreen { align: center middle; }
    HeadsScreen > Vertical {
        width: 100%; height: 100%; padding: 0 1; background: $surface; border: thick $accent;
    }
    HeadsScreen Grid { grid-size: 4; grid-gutter: 0 1; height: 1fr; }
    HeadsScreen OverviewMap { width: 100%; height: 100%; min-height: 8; }
    HeadsScreen OverviewMap.-chosen { border: heavy $accent; }
    HeadsScreen #hint { height: auto; color: $text-muted; }
    """

    BINDINGS = [
        Binding("left", "move(-1)", "Head ←"),
        Binding("right", "move(1)", "Head →"),
        Binding("up", "move(-4)", show=False),
        Binding("down", "move(4)", show=False),
        Binding("enter", "pick", "Open"),
        Binding("escape,a", "cancel", "Back"),
        # a modal screen shuts out the app's own q: quit here as everywhere (asking first)
        Binding("q", "app.quit", "Quit"),
    ]

    def __init__(self, session, row: int, head: int) -> None:
        super().__init__()
        self.session = session
        self.row = row
        self.chosen = head

    def compose(self) -> ComposeResult:
        scenario = self.session.scenario
        label = token_labels(scenario.row_tokens)[self.row]
        with Vertical():
            yield Static(
                Content(
                    f'Every head\'s weights; ◀ marks "{label}". ←/→ choose, Enter opens, '
                    "Esc goes back, q quits."
                ),
                id="hint",
            )
            with Grid():
                for h, name in enumerate(scenario.head_names):
                    view = OverviewMap(id=f"head-{h}")
                    view.border_title = plain(name)
                    if self.withheld(h):
                        view.border_subtitle = "hidden: a prediction to reveal first"
                    yield view

    def on_mount(self) -> None:
        self._highlight()
        self.call_after_refresh(self._compute)

    def _compute(self) -> None:
        maps = list(self.query(OverviewMap))
        if maps:
            self._maps(*maps[0].wanted)

    @work(thread=True, exclusive=True)
    def _maps(self, rows: int, cols: int) -> None:
        worker = get_current_worker()
        attention = self.session.attention
        scenario = self.session.scenario
        for h in range(scenario.heads):
            if self.withheld(h):
                continue
            small = weights_overview(
                attention, h, rows, cols, cancelled=lambda: worker.is_cancelled
            )
            if small is None:
                return
            self.app.call_from_thread(self._ready, h, small)

    def _ready(self, h: int, small) -> None:
        scenario = self.session.scenario
        found = self.query(f"#head-{h}").results(OverviewMap)
        view = next(found, None)
        if view is None:  # the screen closed while the map was being computed
            return
        view.show(small, (scenario.T, scenario.T_k), stale=False)
        view.set_window((0, scenario.T), (0, scenario.T_k), self.row)

    def withheld(self, head: int) -> bool:
        """Whether a head's map would give away a prediction not yet revealed (as the stage's
        overview is withheld then)."""
        predictions = self.session.predictions
        if predictions is None:
            return False
        drawn = next(
            stage.name for stage in stages_for(self.session.scenario) if stage.display.overview
        )
        return predictions.hidden_rows(drawn, head).any()

    def _highlight(self) -> None:
        for h, view in enumerate(self.query(OverviewMap)):
            view.set_class(h == self.chosen, "-chosen")

    def action_move(self, delta: int) -> None:
        self.chosen = max(0, min(self.session.scenario.heads - 1, self.chosen + delta))
        self._highlight()

    def action_pick(self) -> None:
        self.dismiss(self.chosen)

    def action_cancel(self) -> None:
        self.dismiss(None)

    @on(OverviewMap.Picked)
    def picked(self, event: OverviewMap.Picked) -> None:
        self.dismiss(int(event.control.id.removeprefix("head-")))
