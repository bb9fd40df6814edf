"""DebuggerScreen: one scenario, stepped through and edited.

The screen composes the panes and routes: keys become changes of a few small reactive values
(step, row, column, head) or of the core Session, and each change tells the widgets that show
it what is new. The numbers, the arithmetic and the policy (what a prediction hides, what a
student's values look like) all come from core; saving and recovery dialogs live in
``tui.screens.saving``.
"""

from __future__ import annotations

import os
import time

from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.reactive import reactive
from textual.screen import Screen
from textual.widgets import Footer, Static
from textual.worker import get_current_worker

from attn_tui.core.errors import NotApplicable, NumericError
from attn_tui.core.explanation import FOLD, explain
from attn_tui.core.labels import ROLES, column_labels, dims, input_labels, token_labels
from attn_tui.core.compare import comparison_lines
from attn_tui.core.numbers import decimals_needed, yaml_number
from attn_tui.core.overview import weights_overview
from attn_tui.core.predictions import hidden_lines, prediction_lines
from attn_tui.core.save_root import SaveRoot
from attn_tui.core.scenario import Scenario
from attn_tui.core.session import Session
from attn_tui.core.stages import ALL, KEY, ROW, highlights, stages_for
from attn_tui.core.views import mask_rules, stage_window
from attn_tui.core.explanation import Line, Span
from attn_tui.tui.keys import screen_bindings
from attn_tui.tui.screens.goto import GoToScreen
from attn_tui.tui.screens.saving import Saving
from attn_tui.tui.text import plain, set_titles, tell
from attn_tui.tui.widgets.editable_matrix import EditableMatrix
from attn_tui.tui.widgets.explanation import ExplanationView
from attn_tui.tui.widgets.header import ScenarioHeader
from attn_tui.tui.widgets.input_matrix import InputMatrix
from attn_tui.tui.widgets.matrix import DenseGrid, MatrixView
from attn_tui.tui.widgets.overview import OverviewMap
from attn_tui.tui.widgets.stage_view import StageGrid, StageView
from attn_tui.tui.widgets.steps import StepStrip
from attn_tui.tui.widgets.variants import VariantsView

# x unfolds sums and lists of keys to this many terms: whole at any size a class uses, and at
# T = 1024, d = 64 still a key's worth of work (every term of every key would take 0.2 s to
# write and more to wrap); --print writes them all
UNFOLDED = 64
OVERVIEW_FROM = 16  # more tokens than this, and the weights get an overview map
OVERVIEW_DELAY = 0.2  # seconds of quiet before the overview is computed again


class DebuggerScreen(Screen):
    """The step-debugger for one scenario."""

    HORIZONTAL_BREAKPOINTS = [(0, "-stacked"), (70, "-narrow"), (100, "-wide")]
    MIN_SIZE = (30, 10)  # below this, nothing useful fits: the screen says so instead
    AUTO_FOCUS = "#stage"  # the default focus: arrows step and choose the row
    BINDINGS = screen_bindings()

    # repaint=False: a change tells the widgets that show it; repainting the whole screen
    # (a reactive's default) would cost every key a full frame
    step: reactive[int] = reactive(0, init=False, repaint=False)
    row: reactive[int] = reactive(0, init=False, repaint=False)
    column: reactive[int] = reactive(0, init=False, repaint=False)
    head: reactive[int] = reactive(0, init=False, repaint=False)
    expanded: reactive[bool] = reactive(False, init=False, repaint=False)  # long sums in full
    theirs: reactive[bool] = reactive(False, init=False, repaint=False)  # the student's values (expect:)
    mask_rule: reactive[str | None] = reactive(None, init=False, repaint=False)  # one mask rule alone

    def __init__(self, scenario: Scenario, read_only: bool = False,
                 save_root: SaveRoot | None = None) -> None:
        super().__init__()
        self.session = Session(scenario, read_only, save_root=save_root)
        self.session.defer_recovery = True  # written after the frame, off the key's path
        self.save_root = save_root
        self.saving = Saving(self)
        self.stages = stages_for(scenario)
        self.set_reactive(DebuggerScreen.row, scenario.focus)
        self._keys_state: tuple = ()
        self._told_recovery_error: str | None = None
        self._overview_timer = None

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
                    self._description_shown = scenario.description.strip()
                    yield Static(plain(self._description_shown, multiline=True), id="description")
                for name in scenario.editable:
                    if scenario.inputs[name].ndim == 3:
                        yield InputMatrix(name, head=0, id=f"input-{name}", classes="input")
                    else:
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
        else:
            self.call_after_refresh(self.fit_panes)

    def fit_panes(self) -> None:
        """Share the width between the inputs and the stage by what each needs to show its
        matrices whole (the stage first), and the inputs' height among the input matrices, so
        that at any size every input is in view or one Tab away."""
        width, height = self.size
        if width < 70 or self.has_class("-too-small"):
            return
        inputs = self.query_one("#inputs")
        views = list(inputs.query(".input").results(MatrixView))
        if not views:
            return
        want_inputs = max(view.natural_size[0] for view in views) + 1
        stage_view = self.query_one("#stage", MatrixView)
        overview = sum(map_.outer_size.width for map_ in self.query(OverviewMap) if map_.display)
        want_stage = stage_view.natural_size[0] + overview
        # not enough room for both: the stage comes first (with the overview beside it, more so)
        stage_share = 0.7 if overview else 0.6
        if want_inputs + want_stage <= width:
            fitted = want_inputs
        else:
            fitted = min(want_inputs, width - min(want_stage, int(width * stage_share)),
                         int(width * (1 - stage_share)))
        fitted = max(30, fitted)
        if inputs.styles.width is None or inputs.styles.width.cells != fitted:
            inputs.styles.width = fitted
        body = self.query_one("#body").size.height or height - 3
        description = sum(d.outer_size.height for d in self.query("#description"))
        share = max(6, (body - description) // len(views))
        for view in views:
            limit = max(share, min(view.natural_size[1], 8))
            if view.styles.max_height is None or view.styles.max_height.cells != limit:
                view.styles.max_height = limit

    def on_mount(self) -> None:
        # the widgets every key talks to, found once (a query per key costs milliseconds)
        self.stage_view = self.query_one("#stage", StageView)
        self.why = self.query_one(ExplanationView)
        self.overviews = list(self.query(OverviewMap))
        self.variants = list(self.query(VariantsView))
        self.input_views = {view.id.removeprefix("input-"): view for view in self.query(".input").results(MatrixView)}
        self.header = self.query_one(ScenarioHeader)
        self.steps = self.query_one(StepStrip)
        self.set_class(self.session.scenario.T > OVERVIEW_FROM, "-big")
        self.show_header()
        self.show_inputs()
        self.show_stage()
        self.show_marks()
        self.show_overview()
        self.call_after_refresh(self.show_marks)  # once laid out, scroll the focus row into view
        self.call_after_refresh(self.fit_panes)
        self.call_after_refresh(self.saving.offer_recovery)

    # ---- what is where ----------------------------------------------------------------------

    @property
    def stage(self) -> str:
        return self.stages[self.step].name

    @property
    def described(self):
        return self.stages[self.step]

    @property
    def overview_stage(self) -> str:
        """The stage the overview map draws small."""
        return next(stage.name for stage in self.stages if stage.overview)

    @property
    def comparing(self) -> bool:
        """Whether the scenario holds the student's own values for the current stage."""
        comparison = self.session.comparison
        return comparison is not None and comparison.stage(self.described.key, self.compared_head) is not None

    @property
    def compared_head(self) -> int | None:
        """The head a student's values of the current stage belong to (None: the only one)."""
        return self.head if self.described.per_head and self.session.scenario.heads > 1 else None

    @property
    def predicting(self) -> bool:
        """Whether the current stage is one the scenario asks the student to predict."""
        predictions = self.session.predictions
        return predictions is not None and predictions.predicts(self.stage)

    @property
    def where(self) -> str:
        path = self.session.scenario.path
        if path is None:
            return "(no file)"
        if self.session.read_only:
            kind = "served" if self.save_root is not None else "built-in"
            return f"{os.path.splitext(os.path.basename(path))[0]} ({kind})"
        relative = os.path.relpath(path)
        return relative if not relative.startswith("..") else path

    @property
    def column_count(self) -> int:
        return self.described.column_count(self.session.scenario)

    # ---- telling the widgets ----------------------------------------------------------------

    def show_header(self) -> None:
        session = self.session
        scenario = session.scenario
        self.header.show(scenario, self.where, session.modified, scenario.head_names[self.head])
        self.steps.show([stage.title for stage in self.stages], self.step)

    def show_inputs(self, names: tuple[str, ...] | None = None) -> None:
        """The input matrices (all, or the ones an edit changed)."""
        session = self.session
        scenario = session.scenario
        p = scenario.precision
        for name, view in self.input_views.items():
            if names is not None and name not in names and not view.has_class("derived"):
                continue
            if view.has_class("derived"):
                values = {"Q": session.inputs.Q_before_rotation, "K": session.inputs.K_before_rotation,
                          "V": session.inputs.V}[name](self.head)
                rows = token_labels(scenario.row_tokens if name == "Q" else scenario.tokens)
                columns = dims(values.shape[1])
                set_titles(view, f"{name} = X·W{name.lower()} ({values.shape[0]}×{values.shape[1]})")
            else:
                rows, columns = input_labels(scenario, name)
                values = scenario.inputs[name]
                head = getattr(view, "head", None)
                if values.ndim == 3:
                    head = view.head = min(self.head * values.shape[0] // scenario.heads, values.shape[0] - 1)
                    values = values[head]
                which = f", {_head_label(scenario, name, head)}" if head is not None and scenario.inputs[name].ndim == 3 else ""
                set_titles(view, f"{name} ({values.shape[0]}×{values.shape[1]}{which})")
            if view.tooltip is None:
                view.tooltip = ROLES.get(name, name)
            per_head = view.has_class("derived") or scenario.inputs[name].ndim == 3
            shown = (self.head if per_head else None, session.version)
            if getattr(view, "_shown_values", None) == shown:  # another head, the same matrix
                continue
            view._shown_values = shown
            view.show(DenseGrid(rows, columns, decimals_needed(values, p), tiny=True,
                                key=(name, getattr(view, "head", None)), kin=name, version=session.version,
                                values=values))
        changed = [what for what, yes in (("numbers", session.numbers_edited),
                                          ("options", scenario.options != session.saved.options)) if yes]
        note = f"\n(as written in the file; the {' and '.join(changed)} have been changed since)" \
            if changed else ""
        text = scenario.description.strip() + note
        if getattr(self, "_description_shown", None) != text:  # an update lays the screen out again
            self._description_shown = text
            for description in self.query("#description").results(Static):
                description.update(plain(text, multiline=True))

    def show_stage(self) -> None:
        """The current stage's matrix, after the step, head or numbers changed."""
        session = self.session
        described = self.described
        stage_view = self.stage_view
        heading = described.heading(session.scenario, session.attention.options)
        which = f" · {session.scenario.head_names[self.head]}" if described.per_head and session.scenario.heads > 1 else ""
        set_titles(stage_view, f"Step {self.step + 1} · {described.title}{which} · {heading}")
        stage_view.predicting = self.predicting
        stage_view.show(StageGrid(session, described, self.head, self.theirs, self.mask_rule))
        if self.predicting:
            close, judged = session.predictions.score(session.attention)
            subtitle = "Enter guesses a cell, r reveals the row" + (f" · {close}/{judged} close" if judged else "")
        elif self.comparing:
            subtitle = ("showing YOUR values · ✗ differs from attention · y: attention's" if self.theirs
                        else "showing attention's values · ✗ yours differs · y: yours")
        elif self.described.masks and len(mask_rules(session)) > 1:
            subtitle = f"showing: {self.mask_rule or 'every rule'} · m: next"
        else:
            subtitle = ""
        if not stage_view.editing:
            set_titles(stage_view, subtitle=subtitle)

    def show_marks(self) -> None:
        """The cursor, the cells the current step reads from, and the explanation."""
        stage = self.stage
        row, column = self.row, self.column
        stage_view = self.stage_view
        keyed = self.described.columns == "keys"
        stage_view.set_cursor((row, min(column, self.column_count - 1) if keyed else
                               min(stage_view.cursor[1] if stage_view.cursor else 0, self.column_count - 1)))
        stage_view.set_marks(rows=frozenset({row}))
        reads = highlights(stage, self.stages)
        shown = {ROW: frozenset({row}), KEY: frozenset({column}),
                 ALL: frozenset(range(min(self.session.scenario.T_k, 4096)))}
        for name in ("Q", "K", "V"):
            if name in self.input_views:
                self.input_views[name].set_marks(rows=shown[reads[name]] if name in reads else frozenset())
        self.show_why()
        self.show_variants()
        self.show_window()

    def show_why(self) -> None:
        session = self.session
        stage, row, head = self.stage, self.row, self.head
        col = self.column if self.described.columns == "keys" else (self.stage_view.cursor or (0, 0))[1]
        predictions = session.predictions
        hidden = predictions is not None and predictions.hidden_rows(stage, head)[row]
        extra: list[Line] = []
        explanation = None
        if not hidden:
            explanation = explain(session.attention, stage, row, col,
                                  fold=UNFOLDED if self.expanded else FOLD, head=head)
        if self.predicting:
            extra = prediction_lines(predictions, stage, head, row, session.attention)
        elif hidden:
            extra = hidden_lines(predictions, stage, head, row, session.scenario)
        elif session.comparison is not None and self.described.predictable:
            extra = comparison_lines(session.comparison, session.scenario, self.described.key, row, col,
                                     self.compared_head)
        if self.described.masks and self.mask_rule is not None:
            from attn_tui.core.masks import WHY

            extra = [Line((Span(f"The matrix shows only the keys {WHY[self.mask_rule]} (m: next view); "
                                "the lines above are for every rule together.", "note"),)), *extra]
        self.why.show(explanation, extra, self.described.title)

    def show_variants(self) -> None:
        for view in self.variants:
            view.show(self.session, self.described, self.head, self.row)

    def show_window(self) -> None:
        """Mark on the overview what the stage view shows."""
        for overview in self.overviews:
            rows, columns = self.stage_view.visible_window()
            if self.described.columns != "keys":
                columns = (0, self.session.scenario.T_k)
            overview.set_window(rows, columns, self.row)

    def show_overview(self) -> None:
        """Mark the weights overview as updating, and compute it for the current numbers off
        the key path, once the keys pause (a run of edits starts one computation, not many)."""
        for overview in self.overviews:
            predictions = self.session.predictions
            withheld = predictions is not None and predictions.hidden_rows(self.overview_stage, self.head).any()
            overview.set_class(withheld, "-withheld")
            overview.show(None, overview.shape, stale=True)
            if self._overview_timer is not None:
                self._overview_timer.stop()
            self._overview_timer = self.set_timer(OVERVIEW_DELAY, lambda overview=overview: self._compute_overview(
                self.session.attention, self.head, self.session.version, *overview.wanted))

    @work(thread=True, exclusive=True, group="overview")
    def _compute_overview(self, attention, head: int, version: int, rows: int, cols: int) -> None:
        worker = get_current_worker()
        small = weights_overview(attention, head, rows, cols,
                                 cancelled=lambda: worker.is_cancelled or version != self.session.version)
        if small is not None and not worker.is_cancelled:
            self.app.call_from_thread(self._overview_ready, small, version, head)

    def _overview_ready(self, small, version: int, head: int) -> None:
        if version != self.session.version or head != self.head:
            return
        scenario = self.session.scenario
        for overview in self.overviews:
            overview.show(small, (scenario.T, scenario.T_k), stale=False)

    def after_change(self, edited: tuple[str, ...] | None = None) -> None:
        """After the numbers or options changed: what shows them, and the keys if they did."""
        if self.mask_rule not in mask_rules(self.session):  # c took away the rule shown alone
            self.mask_rule = None
        self.show_header()
        self.show_inputs(edited)
        self.show_stage()
        self.show_marks()
        self.show_overview()
        self.update_keys()
        self.call_after_refresh(self._keep_recovery)

    def on_unmount(self) -> None:
        self.session.flush_recovery()  # a change made just before leaving is kept too

    def _keep_recovery(self) -> None:
        self.session.flush_recovery()
        error = self.session.recovery_error
        if error and error != self._told_recovery_error:
            self._told_recovery_error = error  # once per problem, not at every edit
            tell(self, f"Unsaved edits are not protected: {error}", severity="warning", timeout=8)

    def update_keys(self) -> None:
        """Refresh the footer only when the set of keys that work changed."""
        session = self.session
        predictions = session.predictions
        # the keys the footer shows (the stage's own hidden keys are checked when pressed)
        state = (session.history.can_undo, session.history.can_redo, self.comparing,
                 self.predicting and not predictions.is_revealed(self.stage, self.head, self.row))
        if state != self._keys_state:
            self._keys_state = state
            self.refresh_bindings()

    # ---- reactive values --------------------------------------------------------------------

    def watch_step(self) -> None:
        self.mask_rule = None
        self.show_header()
        self.show_stage()
        self.show_marks()
        self.update_keys()

    def watch_row(self) -> None:
        self.show_marks()
        self.update_keys()

    def watch_column(self) -> None:
        self.show_marks()

    def watch_head(self) -> None:
        self.show_header()
        self.show_inputs()
        self.show_stage()
        self.show_marks()
        self.show_overview()

    def watch_expanded(self) -> None:
        self.show_why()

    def watch_theirs(self) -> None:
        self.show_stage()

    def watch_mask_rule(self) -> None:
        self.show_stage()
        self.show_why()

    @on(MatrixView.Scrolled, "#stage")
    def stage_scrolled(self) -> None:
        self.show_window()

    @on(OverviewMap.Resized)
    def overview_resized(self) -> None:
        self.show_overview()

    @on(OverviewMap.Picked)
    def overview_picked(self, event: OverviewMap.Picked) -> None:
        self.row = event.row
        if self.described.columns == "keys":
            self.column = event.col

    # ---- keys -------------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        session = self.session
        if action == "undo":
            return session.history.can_undo
        if action == "redo":
            return session.history.can_redo
        if action == "column":
            return self.described.columns == "keys"
        if action == "toggle_theirs":
            return self.comparing
        if action == "reveal":
            return self.predicting and not session.predictions.is_revealed(self.stage, self.head, self.row)
        if action in ("next_head", "all_heads"):
            return session.scenario.heads > 1
        if action == "cycle_mask":
            return self.described.masks and len(mask_rules(session)) > 1
        if action == "goto":
            return parameters[0] <= len(self.stages) if parameters else True
        return True

    def action_step(self, delta: int) -> None:
        self.step = max(0, min(len(self.stages) - 1, self.step + delta))

    def action_goto(self, number: int) -> None:
        self.step = max(0, min(len(self.stages) - 1, number - 1))

    def action_last_step(self) -> None:
        self.step = len(self.stages) - 1

    def action_row(self, delta: int) -> None:
        self.row = max(0, min(self.session.scenario.T - 1, self.row + delta))

    def action_column(self, delta: int) -> None:
        self.column = max(0, min(self.session.scenario.T_k - 1, self.column + delta))

    def action_page(self, direction: int) -> None:
        page = max(1, self.stage_view.scrollable_content_region.height - 2)
        self.action_row(direction * page)

    def action_expand(self) -> None:
        self.expanded = not self.expanded
        scenario = self.session.scenario
        longest = max(scenario.T_k, scenario.d_k, scenario.d_v, scenario.heads * scenario.d_v)
        if longest <= FOLD:
            tell(self, f"Nothing to unfold: every sum here has at most {FOLD} terms", timeout=3)
        elif self.expanded:
            tell(self, f"Sums shown in full (up to {UNFOLDED} terms and keys; --print shows every one)"
                 if longest > UNFOLDED else "Sums shown in full", timeout=3)
        else:
            tell(self, "Long sums folded", timeout=2)

    def action_next_head(self) -> None:
        self.head = (self.head + 1) % self.session.scenario.heads

    def action_all_heads(self) -> None:
        from attn_tui.tui.screens.heads import HeadsScreen

        def chosen(head: int | None) -> None:
            if head is not None:
                self.head = head

        self.app.push_screen(HeadsScreen(self.session, self.row, self.head), chosen)

    def action_cycle_mask(self) -> None:
        rules = mask_rules(self.session)
        self.mask_rule = rules[(rules.index(self.mask_rule) + 1) % len(rules)]

    def action_present(self) -> None:
        from attn_tui.tui.screens.present import PresentScreen

        self.app.push_screen(PresentScreen(self))

    def action_go_to(self) -> None:
        """Ask for a cell and go there: in the focused input matrix, or in the stage view."""
        focused = self.focused
        if isinstance(focused, InputMatrix):
            grid = focused.grid

            def chosen(target) -> None:
                if target is not None:
                    row, column = target
                    focused.set_cursor((row, focused.cursor[1] if column is None else column))

            self.app.push_screen(GoToScreen(list(grid.rows), list(grid.columns)), chosen)
            return
        scenario = self.session.scenario

        def chosen_stage(target) -> None:
            if target is not None and target[0] == "step":
                self.step = target[1]
            elif target is not None:
                self.row = target[0]
                if target[1] is not None and self.described.columns == "keys":
                    self.column = target[1]

        self.app.push_screen(GoToScreen(list(token_labels(scenario.row_tokens)),
                                        list(column_labels(scenario, self.described)),
                                        list(scenario.row_tokens),
                                        [(stage.name, stage.title) for stage in self.stages]), chosen_stage)

    def action_toggle_causal(self) -> None:
        self._change(self.session.toggle_causal)

    def action_cycle_scale(self) -> None:
        self._change(self.session.cycle_scale)

    def action_undo(self) -> None:
        if self._change(self.session.undo) is None:
            tell(self, "Nothing to undo", timeout=2)

    def action_redo(self) -> None:
        if self._change(self.session.redo) is None:
            tell(self, "Nothing to redo", timeout=2)

    def _change(self, change):
        try:
            edit = change()
        except NumericError as error:
            tell(self, str(error), severity="error", timeout=6)
            return None
        except NotApplicable as refusal:
            tell(self, str(refusal), severity="warning", timeout=8)
            return None
        if edit is not None:
            self.after_change(_edited(edit))
        return edit

    # ---- edits from the matrices ------------------------------------------------------------

    @on(EditableMatrix.CellEdited)
    def cell_edited(self, event: EditableMatrix.CellEdited) -> None:
        if isinstance(event.matrix, StageView):  # a prediction, not a change to the numbers
            self.session.predictions.guess(self.stage, self.head, event.row, event.col, event.value)
            self.show_stage()
            self.show_why()
        else:
            self.apply_cell(event.matrix, event.row, event.col, event.value, event.text)

    @on(StageView.Advance)
    def advance(self, event: StageView.Advance) -> None:
        """After a guess committed with Tab: on to the next cell of the row that takes a guess,
        its editor open, so that a row is typed in one go."""
        stage_view = self.query_one("#stage", StageView)
        row, col = stage_view.cursor
        cols = range(self.column_count)
        window = stage_window(self.session, self.stage, self.head, range(row, row + 1), cols)
        step = 1 if event.direction > 0 else -1
        following = [j for j in range(col + step, len(cols) if step > 0 else -1, step)
                     if window.hidden is not None and window.hidden[0, j]]
        if not following:
            return
        if self.described.columns == "keys":
            self.column = following[0]
        else:
            stage_view.set_cursor((row, following[0]))
        guesses = window.guesses
        guess = float("nan") if guesses is None else float(guesses[0, following[0]])
        stage_view.open_editor("" if guess != guess else yaml_number(guess))

    def action_toggle_theirs(self) -> None:
        self.theirs = not self.theirs

    def action_reveal(self) -> None:
        self.session.predictions.reveal(self.stage, self.head, self.row)
        self.show_stage()
        self.show_marks()
        self.show_overview()
        self.update_keys()

    def action_screenshot(self) -> None:
        """Save what the screen shows as SVG: beside the scenario, or (a built-in, or a folder
        that cannot be written) in the current folder; in a browser, hand it to the browser;
        in a served app, into its save folder."""
        path = self.session.scenario.path
        folder = os.getcwd() if self.session.read_only or not path else os.path.dirname(os.path.abspath(path))
        stem = os.path.splitext(os.path.basename(path or "scenario"))[0]
        name = f"{stem}-step{self.step + 1}-{time.strftime('%Y%m%d-%H%M%S')}.svg"
        if self.app.is_web:  # the student's own machine gets it; nothing is written here
            self.app.deliver_screenshot(filename=name)
            return
        if self.save_root is not None:
            folder = self.save_root.folder
        try:
            written = self.app.save_screenshot(filename=name, path=folder)
        except OSError as error:
            tell(self, f"Cannot write the screenshot in {folder}: {error.strerror or error}",
                 severity="error", timeout=8)
            return
        tell(self, f"Screenshot saved: {written}", timeout=6)

    def action_keep_predictions(self) -> None:
        if self._change(self.session.keep_predictions) is None:
            tell(self, "No predictions to keep yet", timeout=3)
            return
        tolerance = self.session.scenario.expect_tolerance
        tell(self, f"Predictions kept in expect: (checked within {tolerance:g}; values already "
                   "there stay where you made no guess) — ctrl+s writes them", timeout=6)

    def apply_cell(self, matrix: InputMatrix, row: int, col: int, value: float, text: str) -> None:
        try:
            edit = self.session.set_cell(matrix.matrix_name, row, col, value, matrix.head)
        except NumericError as error:
            matrix.set_cursor((row, col))
            matrix.refuse(text, str(error))
            return
        if edit is not None:
            self.after_change(_edited(edit))

    @on(InputMatrix.Nudged)
    def cell_nudged(self, event: InputMatrix.Nudged) -> None:
        matrix = event.matrix
        self._change(lambda: self.session.nudge(matrix.matrix_name, event.row, event.col,
                                                event.direction, matrix.head))

    @on(StageView.CellClicked, "#stage")
    def stage_clicked(self, event: MatrixView.CellClicked) -> None:
        self.row = event.row
        if self.described.columns == "keys":
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
        self.saving.save(then)

    def action_save_as(self, then=None) -> None:
        self.saving.save_as(then)


def _edited(edit) -> tuple[str, ...] | None:
    """The input matrices an edit changed (None: options or expect:, nothing to redraw there)."""
    matrix = getattr(edit, "matrix", None)
    return (matrix,) if matrix is not None else ()


def _head_label(scenario, name: str, head: int) -> str:
    """Whose matrix an input pane shows: a query head's name, or for K and V shared by several
    query heads (grouped-query attention), the key/value head and the heads that read it."""
    if name not in ("K", "V") or scenario.kv_heads == scenario.heads:
        return scenario.head_names[head]
    group = scenario.heads // scenario.kv_heads
    readers = scenario.head_names[head * group:(head + 1) * group]
    first = 0 if scenario.head_names[0] == "head 0" else 1  # count as the heads are counted
    if all(name.startswith("head ") for name in readers):
        readers = ["heads " + ", ".join(name.removeprefix("head ") for name in readers)]
    return f"kv head {head + first}, for {', '.join(readers)}"
