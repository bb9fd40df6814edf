"""DebuggerScreen: one scenario, stepped through and edited.

The screen owns a core Session and three small reactive values (step, row, column) plus a
version counter bumped on every change; watchers push the core's arrays and explanations down
into the widgets. No arithmetic happens here.
"""

from __future__ import annotations

import os
import time

import numpy as np
from rich.markup import escape
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.reactive import reactive
from textual.screen import Screen
from textual.widgets import Footer, Static

from attn_tui.core.attention import STAGE_TITLES, STAGES
from attn_tui.core.stages import stage_heading
from attn_tui.core.errors import NumericError, ScenarioError
from attn_tui.core.compare import STAGE_OF, comparison_lines, trace_stage
from attn_tui.core.explanation import FOLD, Line, Span, explain
from attn_tui.core.predictions import prediction_lines
from attn_tui.core.numbers import decimals_needed
from attn_tui.core.save import SaveError
from attn_tui.core.scenario import Scenario
from attn_tui.core.session import DiskChanged, NeedsRewrite, Session
from attn_tui.core.text import visible
from attn_tui.tui.screens.choice import ChoiceScreen
from attn_tui.tui.screens.goto import GoToScreen
from attn_tui.tui.screens.save_as import SaveAsScreen
from attn_tui.tui.widgets.explanation import ExplanationView
from attn_tui.tui.widgets.header import ScenarioHeader
from attn_tui.tui.widgets.editable_matrix import EditableMatrix
from attn_tui.tui.widgets.input_matrix import InputMatrix
from attn_tui.tui.widgets.stage_view import StageView
from attn_tui.tui.widgets.matrix import Grid, MatrixView
from attn_tui.tui.widgets.overview import OverviewMap
from attn_tui.tui.widgets.steps import StepStrip
from attn_tui.tui.widgets.variants import VariantsView

EXPECTED = {"score": "scores", "scale": "scaled", "softmax": "weights", "output": "output"}
# Which predicted stages a stage would give away, in its cells and in its arithmetic: the scaled
# scores are the scores ÷ √d_k, the softmax's exps show the scaled scores, the weighted sum
# shows the weights. While a row of a predicted stage is hidden, so is whatever gives it away.
GIVES_AWAY_IN_CELLS = {"score": {"scores"}, "scale": {"scores", "scaled"},
                       "mask": {"scores", "scaled"}, "softmax": {"weights"}, "output": {"output"}}
GIVES_AWAY_IN_ARITHMETIC = {"score": {"scores"}, "scale": {"scores", "scaled"},
                            "mask": {"scores", "scaled"}, "softmax": {"scores", "scaled", "weights"},
                            "output": {"weights", "output"}}
OVERVIEW_FROM = 16  # more tokens than this, and the weights get an overview map

ROLES = {"Q": "queries", "K": "keys", "V": "values", "X": "embeddings", "Wq": "query weights",
         "Wk": "key weights", "Wv": "value weights"}

STEP = Binding.Group("Step", compact=True)
ROW = Binding.Group("Row", compact=True)
HISTORY = Binding.Group("Undo/redo", compact=True)


class DebuggerScreen(Screen):
    """The step-debugger for one scenario."""

    HORIZONTAL_BREAKPOINTS = [(0, "-stacked"), (70, "-narrow"), (100, "-wide")]
    MIN_SIZE = (30, 10)  # below this, nothing useful fits: the screen says so instead
    AUTO_FOCUS = "#stage"  # the default focus: arrows step and choose the row

    BINDINGS = [
        Binding("left", "step(-1)", "Step back", group=STEP),
        Binding("right", "step(1)", "Step on", group=STEP),
        Binding("home", "goto(1)", "First step", show=False),
        Binding("end", "goto(5)", "Last step", show=False),
        *[Binding(str(n), f"goto({n})", f"Step {n}", show=False) for n in range(1, 6)],
        Binding("up", "row(-1)", "Row up", group=ROW),
        Binding("down", "row(1)", "Row down", group=ROW),
        Binding("pageup", "page(-1)", "Page up", show=False),
        Binding("pagedown", "page(1)", "Page down", show=False),
        Binding("left_square_bracket", "column(-1)", "Key ←", show=False),
        Binding("right_square_bracket", "column(1)", "Key →", show=False),
        Binding("g", "go_to", "Go to", show=False),
        Binding("x", "expand", "Expand sums", show=False),
        Binding("r", "reveal", "Reveal row"),
        Binding("y", "toggle_theirs", "Yours/correct"),
        Binding("ctrl+t", "screenshot", "Screenshot", show=False),
        Binding("c", "toggle_causal", "Causal"),
        Binding("s", "cycle_scale", "Scale"),
        Binding("u,ctrl+z", "undo", "Undo", group=HISTORY),
        Binding("U,ctrl+y", "redo", "Redo", group=HISTORY),
        Binding("ctrl+s", "save", "Save"),
    ]

    step: reactive[int] = reactive(0, init=False)
    row: reactive[int] = reactive(0, init=False)
    column: reactive[int] = reactive(0, init=False)
    version: reactive[int] = reactive(0, init=False)
    expanded: reactive[bool] = reactive(False, init=False)  # long sums in full, not folded
    theirs: reactive[bool] = reactive(False, init=False)  # show the student's values (expect:)

    def __init__(self, scenario: Scenario, read_only: bool = False) -> None:
        super().__init__()
        self.session = Session(scenario, read_only)
        self.set_reactive(DebuggerScreen.row, scenario.focus)
        self.set_reactive(DebuggerScreen.column, 0)

    # ---- layout -----------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        scenario = self.session.scenario
        yield ScenarioHeader(id="header")
        yield StepStrip(id="steps")
        with Horizontal(id="body"):
            # the main pane comes first, so that stacked (a narrow terminal) it is on top;
            # side by side, the inputs are docked on the left (app.tcss)
            with Vertical(id="main"):
                with Horizontal(id="stage-row"):
                    yield StageView(id="stage")
                    if scenario.T > OVERVIEW_FROM:
                        yield OverviewMap(id="overview")
                if scenario.variants:
                    yield VariantsView(id="variants")
                yield ExplanationView(id="explanation")
            with VerticalScroll(id="inputs") as inputs:
                inputs.can_focus = False  # Tab goes from matrix to matrix, not to the pane
                if scenario.description:
                    yield Static(escape(scenario.description.strip()), id="description")
                for name in scenario.editable:
                    yield InputMatrix(name, id=f"input-{name}", classes="input")
                if scenario.kind == "projection":
                    for name in ("Q", "K", "V"):
                        yield MatrixView(id=f"input-{name}", classes="input derived")
        yield Static("", id="too-small")
        yield Footer()

    def on_resize(self, event) -> None:
        width, height = event.size
        small = width < self.MIN_SIZE[0] or height < self.MIN_SIZE[1]
        if small and not self.has_class("-too-small"):
            self._focus_before_small = self.focused  # hiding the panes takes the focus away…
        elif not small and self.has_class("-too-small"):
            self.call_after_refresh(self.set_focus, getattr(self, "_focus_before_small", None)
                                    or self.query_one("#stage"))  # …so give it back
        self.set_class(small, "-too-small")
        if not small:  # the focused matrix may have moved out of view in the new layout
            self.call_after_refresh(lambda: self.focused is not None and self.focused.scroll_visible())
        if small:
            self.query_one("#too-small", Static).update(
                f"This window is {width}×{height}: too small to draw attention in. Enlarge it to at "
                f"least {self.MIN_SIZE[0]}×{self.MIN_SIZE[1]}; nothing is lost meanwhile.")

    def on_mount(self) -> None:
        self.set_class(self.session.scenario.T > OVERVIEW_FROM, "-big")
        self.push_inputs()
        self.push_stage()
        self.push_marks()
        self.call_after_refresh(self.push_marks)  # once laid out, scroll the focus row into view
        self.call_after_refresh(self.offer_recovery)

    def offer_recovery(self) -> None:
        """If an earlier session left unsaved edits for this scenario, offer them back."""
        found = self.session.pending_recovery()
        if found is None or not found.edits:
            return
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(found.saved_at))
        changed = ("\nThe file has changed since; the edits set their values again on top of it."
                   if found.file_changed else "")
        count = found.count

        def decided(choice: str | None) -> None:
            if choice == "discard":
                self.session.discard_recovery()
                self.notify("Unsaved edits from the earlier session discarded", timeout=3)
                return
            skipped = self.session.restore(found)  # Esc restores too: it loses nothing, and u undoes
            self.version += 1
            if not skipped:
                self.notify(f"Restored {count} unsaved edit{'s' if count > 1 else ''} (u undoes them)",
                            timeout=4)
                return
            # the reasons quote the copy, which may hold anything: plain text, made visible
            self.notify(visible(f"Restored {count - len(skipped)} of {count} unsaved edits; skipped, "
                                "as they do not fit the file now: " + "; ".join(skipped)),
                        severity="warning", timeout=15, markup=False)

        self.app.push_screen(ChoiceScreen(
            f"{self.where} has {count} unsaved edit{'s' if count > 1 else ''} from {when}, kept when "
            f"attn-tui last stopped without saving.{changed}\nRestore them?",
            [("restore", "Restore"), ("discard", "Discard")]), decided)

    @property
    def stage(self) -> str:
        return STAGES[self.step]

    @property
    def comparing(self) -> bool:
        """Whether the scenario holds the student's own values for the current stage."""
        comparison = self.session.comparison
        return comparison is not None and comparison.stage(EXPECTED.get(self.stage, "")) is not None

    @property
    def predicting(self) -> bool:
        """Whether the current stage is one the scenario asks the student to predict."""
        predictions = self.session.predictions
        return predictions is not None and EXPECTED.get(self.stage) in predictions.stages

    @property
    def where(self) -> str:
        path = self.session.scenario.path
        if path is None:
            return "(no file)"
        if self.session.read_only:
            return f"{os.path.splitext(os.path.basename(path))[0]} (built-in)"
        relative = os.path.relpath(path)
        return relative if not relative.startswith("..") else path

    # ---- pushing the core's values down -----------------------------------------------------

    def push_inputs(self) -> None:
        """The input matrices, the header and the overview, after the numbers changed."""
        session = self.session
        scenario, trace = session.scenario, session.trace
        self.query_one(ScenarioHeader).show(scenario, self.where, session.modified)
        tokens = list(scenario.tokens)
        p = scenario.precision
        for view in self.query(".input").results(MatrixView):
            name = view.id.removeprefix("input-")
            values = scenario.matrix(name)
            # X's columns and the W's rows are the same axis: the model's d_model features
            rows = tokens if name in ("Q", "K", "V", "X") else _dims(values.shape[0], "m")
            columns = _dims(values.shape[1], "m" if name == "X" else "d")
            shape = f"{values.shape[0]}×{values.shape[1]}"
            formula = " = X·W" + name.lower() if view.has_class("derived") else ""
            view.border_title = f"{name}{formula} ({shape})"
            view.tooltip = ROLES[name]
            view.show(Grid(values, rows, columns, decimals_needed(values, p),
                           changed=session.changed.get(name), tiny=True))
        for description in self.query("#description").results(Static):
            note = "\n[i](as written in the file; the numbers have been edited since)[/i]" \
                if session.numbers_edited else ""
            description.update(escape(scenario.description.strip()) + note)
        for overview in self.query(OverviewMap):
            overview.show(trace.weights)

    def push_stage(self) -> None:
        """The current stage's matrix, after the step or the numbers changed."""
        session = self.session
        scenario, trace = session.scenario, session.trace
        tokens = list(scenario.tokens)
        p = scenario.precision
        self.query_one(StepStrip).show(self.step)
        stage = self.stage
        values = trace.stage(stage)
        stage_view = self.query_one("#stage", StageView)
        heading = stage_heading(stage, scenario.options, scenario.d_k)
        stage_view.border_title = f"Step {self.step + 1} · {STAGE_TITLES[stage]} · {heading}"
        hidden = predicted = verdict = None
        predicting = self.predicting
        unrevealed = self.unrevealed_rows(GIVES_AWAY_IN_CELLS[stage])
        if unrevealed.any():
            hidden = np.repeat(unrevealed[:, None], values.shape[1], axis=1)
        if predicting:
            predictions = session.predictions
            predicted = predictions.guesses[EXPECTED[stage]]
            verdict = predictions.verdict(EXPECTED[stage], values)
        elif self.comparing:
            compared = session.comparison.stage(EXPECTED[stage])
            expected = session.scenario.expect[EXPECTED[stage]]
            verdict = np.where(compared.differs, 2, np.where(expected.given, 1, 0)).astype(np.int8)
            if self.theirs:  # the student's numbers where they gave one, ours elsewhere
                values = np.where(expected.given, expected.values, values)
        stage_view.predicting = predicting
        stage_view.show(Grid(
            values, tokens, tokens if stage != "output" else _dims(trace.d_v),
            decimals_needed(values, p) if stage == "score" else p,
            palette="weights" if stage == "softmax" else "diverging",
            blocked=trace.blocked if stage == "mask" else None,
            mask_value=trace.options.mask_value,
            changed=session.changed.get({"score": "scores", "scale": "scaled", "mask": "masked",
                                         "softmax": "weights", "output": "output"}[stage]),
            tiny=stage == "score",
            hidden=hidden, predicted=predicted, verdict=verdict,
        ))
        if predicting:
            close, judged = session.predictions.score(session.stage_values())
            stage_view.border_subtitle = (f"predict, then r reveals the row · {close}/{judged} close"
                                          if judged else "predict, then r reveals the row")
        elif self.comparing:
            stage_view.border_subtitle = ("showing YOUR values · ✗ differs from attention · y: attention's"
                                          if self.theirs else
                                          "showing attention's values · ✗ yours differs · y: yours")
        elif not stage_view.editing:
            stage_view.border_subtitle = ""

    def push_marks(self) -> None:
        """The cursor, the cells the current step reads from, and the explanation."""
        session = self.session
        trace = session.trace
        stage = self.stage
        row, column = self.row, self.column
        stage_view = self.query_one("#stage", StageView)
        stage_column = min(column, trace.d_v - 1) if stage == "output" else column
        stage_view.set_cursor((row, stage_column))
        stage_view.set_marks(rows=frozenset({row}))
        marks = {
            "Q": frozenset({row}) if stage in ("score", "scale") else frozenset(),
            "K": frozenset({column}) if stage in ("score", "scale") else frozenset(),
            "V": frozenset(range(trace.T)) if stage == "output" else frozenset(),
        }
        for name, rows in marks.items():
            for view in self.query(f"#input-{name}").results(MatrixView):
                view.set_marks(rows=rows)
        col = column if stage != "output" else None
        explanation = explain(trace, stage, row, col, fold=None if self.expanded else FOLD)
        extra = []
        gives_away = self.unrevealed_rows(GIVES_AWAY_IN_ARITHMETIC[stage])[row]
        if gives_away:
            explanation = None  # the arithmetic would give a hidden prediction away
        if self.predicting:
            name = EXPECTED[stage]
            extra = prediction_lines(session.predictions, name, row, trace_stage(trace, name),
                                     trace.tokens, trace.precision, session.stage_values())
        elif gives_away:
            waiting = [name for name in session.predictions.stages
                       if name in GIVES_AWAY_IN_ARITHMETIC[stage] and not session.predictions.revealed[name][row]]
            steps = ", ".join(f"{name} (step {STAGES.index(STAGE_OF[name]) + 1})" for name in waiting)
            extra = [Line((Span(f"Hidden until you predict and reveal {trace.tokens[row]!r}'s {steps}: "
                                "its arithmetic would give the answer away.", "note"),))]
        elif session.comparison is not None and stage in EXPECTED:
            extra = comparison_lines(session.comparison, EXPECTED[stage], row, stage_column,
                                     trace.tokens, trace.precision)
        self.query_one(ExplanationView).show(explanation, extra, STAGE_TITLES[stage])
        everything_revealed = not self.unrevealed_rows(set(EXPECTED.values())).any()
        for view in self.query(VariantsView):
            if everything_revealed:
                view.show(session.scenario, session.traces, self.step, row)
            else:
                view.update("The variants are shown once every predicted row is revealed.")
        for overview in self.query(OverviewMap):
            overview.set_class(not everything_revealed, "-withheld")
        self.show_window()

    def unrevealed_rows(self, stages: set[str]) -> np.ndarray:
        """Per row: whether one of these stages is being predicted and the row not revealed."""
        predictions = self.session.predictions
        hidden = np.zeros(self.session.scenario.T, bool)
        if predictions is not None:
            for name in stages & set(predictions.stages):
                hidden |= ~predictions.revealed[name]
        return hidden

    def show_window(self) -> None:
        """Mark on the overview what the stage view shows."""
        for overview in self.query(OverviewMap):
            rows, columns = self.query_one("#stage", MatrixView).visible_window()
            if self.stage == "output":
                columns = (0, self.session.scenario.T)
            overview.set_window(rows, columns, self.row)

    @on(MatrixView.Scrolled, "#stage")
    def stage_scrolled(self) -> None:
        self.show_window()

    @on(OverviewMap.Picked)
    def overview_picked(self, event: OverviewMap.Picked) -> None:
        self.row = event.row
        if self.stage != "output":
            self.column = event.col

    def watch_step(self) -> None:
        self.push_stage()
        self.push_marks()

    def watch_row(self) -> None:
        self.push_marks()

    def watch_column(self) -> None:
        self.push_marks()

    def watch_expanded(self) -> None:
        self.push_marks()

    def watch_theirs(self) -> None:
        self.push_stage()

    def watch_version(self) -> None:
        self.push_inputs()
        self.push_stage()
        self.push_marks()
        self.refresh_bindings()
        error = self.session.recovery_error
        if error and error != getattr(self, "_told_recovery_error", None):
            self._told_recovery_error = error  # once per problem, not at every edit
            self.notify(f"Unsaved edits are not protected: {error}", severity="warning", timeout=8)

    # ---- keys -------------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "undo":
            return self.session.history.can_undo
        if action == "redo":
            return self.session.history.can_redo
        if action == "column":
            return self.stage != "output"
        if action == "toggle_theirs":
            return self.comparing
        if action == "reveal":
            return self.predicting and not self.session.predictions.revealed[EXPECTED[self.stage]][self.row]
        return True

    def action_step(self, delta: int) -> None:
        self.step = max(0, min(len(STAGES) - 1, self.step + delta))

    def action_goto(self, number: int) -> None:
        self.step = max(0, min(len(STAGES) - 1, number - 1))

    def action_row(self, delta: int) -> None:
        self.row = max(0, min(self.session.scenario.T - 1, self.row + delta))

    def action_column(self, delta: int) -> None:
        self.column = max(0, min(self.session.scenario.T - 1, self.column + delta))

    def action_page(self, direction: int) -> None:
        page = max(1, self.query_one("#stage", MatrixView).scrollable_content_region.height - 2)
        self.action_row(direction * page)

    def action_expand(self) -> None:
        self.expanded = not self.expanded
        self.notify("Sums shown in full" if self.expanded else "Long sums folded", timeout=2)

    def action_go_to(self) -> None:
        """Ask for a cell and go there: in the focused input matrix, or in the stage view."""
        focused = self.focused
        tokens = list(self.session.scenario.tokens)
        if isinstance(focused, InputMatrix):
            grid = focused.grid

            def chosen(target) -> None:
                if target is not None:
                    row, column = target
                    focused.set_cursor((row, focused.cursor[1] if column is None else column))

            self.app.push_screen(GoToScreen(list(grid.rows), list(grid.columns)), chosen)
            return
        columns = tokens if self.stage != "output" else _dims(self.session.trace.d_v)

        def chosen_stage(target) -> None:
            if target is not None:
                self.row = target[0]
                if target[1] is not None and self.stage != "output":
                    self.column = target[1]

        self.app.push_screen(GoToScreen(tokens, columns), chosen_stage)

    def action_toggle_causal(self) -> None:
        self._change(self.session.toggle_causal)

    def action_cycle_scale(self) -> None:
        self._change(self.session.cycle_scale)

    def action_undo(self) -> None:
        edit = self._change(self.session.undo)
        if edit is None:
            self.notify("Nothing to undo", timeout=2)

    def action_redo(self) -> None:
        edit = self._change(self.session.redo)
        if edit is None:
            self.notify("Nothing to redo", timeout=2)

    def _change(self, change):
        try:
            edit = change()
        except NumericError as error:
            self.notify(str(error), severity="error", timeout=6)
            return None
        if edit is not None:
            self.version += 1
        return edit

    # ---- edits from the matrices ------------------------------------------------------------

    @on(EditableMatrix.CellEdited)
    def cell_edited(self, event: EditableMatrix.CellEdited) -> None:
        if isinstance(event.matrix, StageView):  # a prediction, not a change to the numbers
            self.session.predictions.guess(EXPECTED[self.stage], event.row, event.col, event.value)
            self.push_stage()
            self.push_marks()
        else:
            self.apply_cell(event.matrix, event.row, event.col, event.value, event.text)

    @on(StageView.Advance)
    def advance(self, event: StageView.Advance) -> None:
        if self.stage != "output":
            self.action_column(event.direction)
        else:  # the output's columns are d1…d_v, which the key column does not walk
            stage_view = self.query_one("#stage", StageView)
            row, col = stage_view.cursor
            stage_view.set_cursor((row, max(0, min(self.session.trace.d_v - 1, col + event.direction))))

    def action_toggle_theirs(self) -> None:
        self.theirs = not self.theirs

    def action_reveal(self) -> None:
        self.session.predictions.reveal(EXPECTED[self.stage], self.row)
        self.push_stage()
        self.push_marks()
        self.refresh_bindings()

    def action_screenshot(self) -> None:
        """Save what the screen shows as SVG, beside the scenario (a built-in: here)."""
        path = self.session.scenario.path
        folder = os.getcwd() if self.session.read_only or not path else os.path.dirname(os.path.abspath(path))
        stem = os.path.splitext(os.path.basename(path or "scenario"))[0]
        name = f"{stem}-step{self.step + 1}-{time.strftime('%Y%m%d-%H%M%S')}.svg"
        try:
            written = self.app.save_screenshot(filename=name, path=folder)
        except OSError as error:
            self.notify(f"Cannot write the screenshot in {folder}: {error.strerror or error}",
                        severity="error", timeout=8)
            return
        self.notify(f"Screenshot saved: {written}", timeout=6)

    def action_keep_predictions(self) -> None:
        if self._change(self.session.keep_predictions) is None:
            self.notify("No predictions to keep yet", timeout=3)
            return
        tolerance = self.session.scenario.expect_tolerance
        self.notify(f"Predictions kept in expect: (checked within {tolerance:g}; values already "
                    "there stay where you made no guess) — ctrl+s writes them", timeout=6)

    def apply_cell(self, matrix: InputMatrix, row: int, col: int, value: float, text: str) -> None:
        try:
            edit = self.session.set_cell(matrix.matrix_name, row, col, value)
        except NumericError as error:
            matrix.set_cursor((row, col))
            matrix.refuse(text, str(error))
            return
        if edit is not None:
            self.version += 1

    @on(InputMatrix.Nudged)
    def cell_nudged(self, event: InputMatrix.Nudged) -> None:
        self._change(lambda: self.session.nudge(event.matrix.matrix_name, event.row, event.col,
                                                event.direction))

    @on(StageView.CellClicked, "#stage")
    def stage_clicked(self, event: MatrixView.CellClicked) -> None:
        self.row = event.row
        if self.stage != "output":
            self.column = event.col
        event.view.focus()

    def flush_editor(self) -> bool:
        """Commit a cell still being typed in (before saving or quitting); False if its text is
        not a number, in which case it stays open with the reason and nothing else happens."""
        for matrix in self.query(InputMatrix):
            if matrix.editing:
                taken = matrix.take_edit()
                if taken is None:
                    matrix.focus()
                    return False
                self.apply_cell(matrix, *matrix.cursor, *taken)
        return True

    # ---- saving -----------------------------------------------------------------------------

    def action_save(self, then=None) -> None:
        if not self.flush_editor():
            return
        if self.session.read_only:
            self.action_save_as(then)
            return
        self._save(None, False, then)

    def action_save_as(self, then=None) -> None:
        path = self.session.scenario.path
        suggestion = os.path.basename(path) if path and self.session.read_only else (path or "scenario.yaml")

        def chosen(target: str | None) -> None:
            if target:
                self._save(target, False, then)

        self.app.push_screen(SaveAsScreen(suggestion), chosen)

    def _save(self, path: str | None, force: bool, then=None, rewrite: bool = False) -> None:
        try:
            written = self.session.save(path, force=force, rewrite=rewrite)
        except NeedsRewrite as layout:
            def rewritten(choice: str | None) -> None:
                if choice == "rewrite":
                    self._save(path, force, then, rewrite=True)
                elif choice == "save_as":
                    self.action_save_as(then)

            self.app.push_screen(ChoiceScreen(
                f"{layout}.\nWrite the file whole (every number kept)?",
                [("rewrite", "Rewrite"), ("save_as", "Save as…"), ("cancel", "Cancel")],
                default="cancel"), rewritten)
            return
        except DiskChanged as conflict:
            def decided(choice: str | None) -> None:
                if choice == "overwrite":
                    self._save(path, True, then, rewrite)
                elif choice == "save_as":
                    self.action_save_as(then)

            self.app.push_screen(ChoiceScreen(
                f"{conflict}.\nOverwrite it with your version?",
                [("overwrite", "Overwrite"), ("save_as", "Save as…"), ("cancel", "Cancel")],
                default="cancel"), decided)
            return
        except (SaveError, ScenarioError) as error:
            self.notify(str(error), title="Not saved", severity="error", timeout=10)
            return
        self.notify(f"Saved {written}", timeout=3)
        self.version += 1
        if then is not None:
            then()


def _dims(count: int, letter: str = "d") -> list[str]:
    return [f"{letter}{j + 1}" for j in range(count)]
