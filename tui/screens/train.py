"""TrainScreen (the Train view): attention learning its weights, a step at a time.

Every run side by side — the scenario's own, or each variant from the same start (scaled beside
unscaled, say) — with its loss curve on one shared axis, its weights and the matrices it learns
changing as it goes. Space takes one step, r runs or pauses, u undoes a step, ←/→ choose a run
and Enter keeps what it learned in the scenario (one edit: u in the debugger undoes it, Ctrl+S
saves it); Esc goes back without keeping. The arithmetic is core's (``core.engine.training``);
the next step is worked out on a thread while the user reads this one, so that Space only shows
it (a step at T = 1024 is ~60 ms of arithmetic: ``tui/screens/train_ahead.py``).
"""

from __future__ import annotations

import threading
from concurrent.futures import Future, ThreadPoolExecutor

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Footer, Static

from attn_tui.core.engine.attention import Attention
from attn_tui.core.engine.gradient_sizes import sizes_compared
from attn_tui.core.engine.stages import column_labels, stage_named
from attn_tui.core.engine.training import Run, State, compared_runs
from attn_tui.core.engine.views import Window
from attn_tui.core.model.edits import SetInputs
from attn_tui.core.model.labels import input_labels, token_labels
from attn_tui.core.numbers import decimals_needed, fixed
from attn_tui.core.text import visible
from attn_tui.tui.key_bindings import train_view_bindings
from attn_tui.tui.screens.train_ahead import StepsAhead
from attn_tui.tui.text import set_titles, tell
from attn_tui.tui.whole_frames import WholeFrames
from attn_tui.tui.widgets.grid import DenseGrid, Grid
from attn_tui.tui.widgets.loss_plot import LossPlot
from attn_tui.tui.widgets.matrix import MatrixView

FRAME = 1 / 30  # run: a tick this often
# Work that waits until the frame is on the terminal: after a refresh is too soon, as Textual's
# writer thread needs the GIL to send the frame (a pause with three runs at T = 512 showed after
# the words and the look ahead had run: floor + 45 ms; waiting 50 ms, floor + 17 ms).
AFTER_FRAME = 0.05


class WeightsGrid(Grid):
    """A run's attention weights (head ``head``) as they are now, computed for the window drawn."""

    def __init__(self, attention: Attention, head: int, version: int) -> None:
        scenario = attention.scenario
        stage = stage_named("softmax")
        super().__init__(
            rows=token_labels(scenario.row_tokens),
            columns=column_labels(scenario, stage),
            decimals=scenario.precision,
            palette="weights",
            tiny=stage.tiny,
            key=("train-weights", head),
            kin="train-weights",
            version=version,
        )
        self.attention, self.head = attention, head

    def window(self, rows: range, cols: range) -> Window:
        return Window(rows, cols, self.attention.values("softmax", self.head, rows, cols).copy())


def _same(drawn: tuple, now: tuple) -> bool:
    """Whether what was drawn, (a state, a number), is what is to be drawn now."""
    return bool(drawn) and drawn[0] is now[0] and drawn[1] == now[1]


class TrainScreen(StepsAhead, WholeFrames, Screen[None]):
    DEFAULT_CSS = """
    TrainScreen { layout: vertical; }
    TrainScreen #train-title { height: auto; padding: 0 1; text-style: bold; }
    TrainScreen #train-words { height: auto; padding: 0 1; color: $text-muted; }
    TrainScreen #runs { height: 1fr; }
    TrainScreen .run { width: 1fr; height: auto; border: round $panel-lighten-2; padding: 0 1; }
    TrainScreen .run.-chosen { border: round $accent; }
    TrainScreen .run-state { height: 1; }
    TrainScreen .run-status { height: auto; }
    TrainScreen MatrixView { height: auto; max-height: 14; }
    """

    BINDINGS = train_view_bindings()

    def __init__(self, debugger) -> None:
        super().__init__()
        self.debugger = debugger
        self.runs: list[Run] = compared_runs(debugger.session.scenario)
        self.chosen = 0
        self.running = False
        self._timer = None
        self.version = 0
        self._pool: ThreadPoolExecutor | None = None
        # run's number → (its state, its next step)
        self._ahead: dict[int, tuple[State, Future]] = {}
        # while running: the steps ahead
        self._running_ahead: tuple[threading.Event, Future] | None = None
        self._left = False
        # each run: (state, top) of its loss drawn, (state, head) of its matrices
        self._drawn: list[tuple] = [((), ())] * len(self.runs)

    @property
    def setting(self):
        return self.runs[0].setting

    def compose(self) -> ComposeResult:
        setting = self.setting
        optimizer = "Adam" if setting.optimizer == "adam" else "gradient descent"
        yield Static(
            Content(
                f"Training {', '.join(setting.learn)} · {optimizer}, lr {setting.lr:g} · "
                f"{setting.steps} steps · L = ½·Σ(output − target)²"
            ),
            id="train-title",
        )
        yield Static("", id="train-words")
        with VerticalScroll(id="runs-scroll"):
            with Horizontal(id="runs"):
                for number, run in enumerate(self.runs):
                    with Vertical(classes="run", id=f"run-{number}"):
                        yield Static(classes="run-state")
                        yield Static(classes="run-status")
                        yield LossPlot()
                        yield MatrixView(classes="run-weights")
                        for name in setting.learn:
                            yield MatrixView(classes="run-learned", id=f"run-{number}-{name}")
        yield Footer()

    def on_mount(self) -> None:
        self.show()

    # ---- actions ----------------------------------------------------------------------------

    def action_step_once(self) -> None:
        self._pause()
        self._step_all()
        self.show()

    def action_run(self) -> None:
        if self.running:
            self._pause()
            self.show(later=True)
            return
        elif self._unfinished():
            self.running = True
            self._timer = self.set_interval(FRAME, self._tick)
            self._run_ahead()
        else:
            tell(
                self,
                f"every run has taken its {self.setting.steps} steps: u undoes one, Esc goes back",
            )
        self.show()

    def action_undo_step(self) -> None:
        self._pause()
        undone = [run.undo() for run in self.runs]
        if not any(undone):
            self.app.bell()
            tell(self, "at step 0: nothing to undo")
        self.show()

    def action_choose(self, delta: int) -> None:
        self.chosen = (self.chosen + delta) % len(self.runs)
        self.show()

    def action_keep(self) -> None:
        """What the chosen run learned, into the scenario: one edit (undo, save as any other)."""
        run = self.runs[self.chosen]
        self._pause()
        if run.state.step == 0:
            tell(self, "no step taken yet: nothing learned to keep")
            return
        session = self.debugger.session
        learned = run.learned()
        old = {name: session.scenario.inputs[name] for name in learned}
        edit = session.apply(
            SetInputs(
                learned,
                old,
                f"learned in {run.state.step} steps" + (f" ({run.name})" if run.name else ""),
            )
        )
        self.debugger.after_change()
        self.app.pop_screen()
        tell(self.debugger, f"kept: {edit.describe(session.scenario)}; u undoes it")

    def action_leave(self) -> None:
        self._pause()
        self.app.pop_screen()

    def on_unmount(self) -> None:
        self._left = True  # (a look ahead queued for after the last frame starts nothing)
        self._pause()
        if self._pool is not None:  # (a step being worked out is let finish, and dropped)
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool, self._ahead = None, {}

    # ---- showing ----------------------------------------------------------------------------

    def show(self, later: bool = False) -> None:
        """Every run's step and state, and what it shows where its numbers changed since they were
        drawn. Running, every frame redraws each run's loss and the matrices of one run in turn
        (three runs' matrices at T = 512 are ~18 ms of a frame's drawing, and a key pressed
        mid-frame waits for it); the others catch up in later frames, and all of them once it
        pauses (``later``: once the frame that says so is out)."""
        setting = self.setting
        top = max(max(run.losses) for run in self.runs)
        head = min(self.debugger.head, self.runs[0].scenario.heads - 1)
        p = self.runs[0].scenario.precision
        turn = self.version % len(self.runs)
        stale = False
        for number, run in enumerate(self.runs):
            box = self.query_one(f"#run-{number}", Vertical)
            box.set_class(number == self.chosen and len(self.runs) > 1, "-chosen")
            set_titles(box, visible(run.name) if run.name else "this scenario")
            # (the step and the state in a line of their own, not in the title: a title repaints
            # the whole box, and a pause of three runs at T = 512 showed ~25 ms later for it)
            state = "done" if run.done else "running" if self.running else "paused"
            box.query_one(".run-state", Static).update(
                Content(f"step {run.state.step}/{setting.steps} · {state}"), layout=False
            )
            # (the state itself is held, not its id: an undone state's id may come back)
            loss_drawn, matrices_drawn = self._drawn[number]
            if not _same(loss_drawn, (run.state, top)):
                self._show_loss(box, run, top, p)
                loss_drawn = (run.state, top)
            if not _same(matrices_drawn, (run.state, head)):
                if later or (self.running and number != turn):
                    stale = True
                else:
                    self._show_matrices(box, number, run, head, p)
                    matrices_drawn = (run.state, head)
            self._drawn[number] = (loss_drawn, matrices_drawn)
        if self.running or len(self.runs) < 2:
            self._show_words()
        else:  # comparing the runs' gradients takes ~30 ms at T = 512: once the frame is out
            self.set_timer(AFTER_FRAME, self._show_words)
        if not self.running:
            self.set_timer(AFTER_FRAME, self._look_ahead)
            if stale:  # (paused between turns: the matrices left behind, once the frame is out)
                self.set_timer(AFTER_FRAME, self._catch_up)

    def _show_loss(self, box: Vertical, run: Run, top: float, p: int) -> None:
        losses = run.losses
        ratio = losses[-1] / losses[0] if losses[0] else 1.0
        if ratio <= 1:
            change = f"{100 * (1 - ratio):.0f}% of it removed"
        elif ratio < 10:
            change = f"{100 * (ratio - 1):.0f}% higher"
        else:
            change = f"{fixed(ratio, 3, True)} times higher"
        # (one line, as before: no layout of the screen to redo, ~40 ms of every step)
        box.query_one(".run-status", Static).update(
            Content(f"loss {fixed(losses[0], p, True)} → {fixed(losses[-1], p, True)} ({change})"),
            layout=False,
        )
        box.query_one(LossPlot).show(losses, top, self.setting.steps)

    def _show_matrices(self, box: Vertical, number: int, run: Run, head: int, p: int) -> None:
        weights = box.query_one(".run-weights", MatrixView)
        set_titles(weights, "weights (softmax)")
        weights.show(WeightsGrid(run.attention, head, self.version))
        for name in self.setting.learn:
            view = box.query_one(f"#run-{number}-{name}", MatrixView)
            values = run.scenario.inputs[name]
            if values.ndim == 3:
                values = values[min(head, len(values) - 1)]
            rows, columns = input_labels(run.scenario, name)
            set_titles(view, f"{name} ({values.shape[0]}×{values.shape[1]}), learning")
            view.show(
                DenseGrid(
                    rows,
                    columns,
                    decimals_needed(values, p),
                    tiny=True,
                    key=("train", number, name),
                    kin=("train", name),
                    version=self.version,
                    values=values,
                )
            )

    def _catch_up(self) -> None:
        if not self._left:
            self.show()

    def _show_words(self) -> None:
        if self._left:
            return
        words = self._words()
        if words != getattr(self, "_words_shown", None):  # (a new text may take more lines)
            self._words_shown = words
            self.query_one("#train-words", Static).update(Content(words))

    def _words(self) -> str:
        """What the runs show, in words: which learns, which stalls, and the gradient's size."""
        if len(self.runs) < 2:
            return (
                "Space: one step · r: run/pause · u: undo a step · Enter: keep what was learned · "
                "Esc: back"
            )
        if self.running:
            return "running: the words come when it pauses"
        attentions = {run.name: run.attention for run in self.runs}
        return sizes_compared(attentions, list(attentions), 0, self.runs[0].scenario.precision)
