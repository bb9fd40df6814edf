"""DebuggerScreen: one scenario, stepped through and edited.

The screen composes the panes and routes: keys become changes of a few small reactive values
(step, row, column, head) or of the core Session, and each change tells the widgets that show
it what is new (``tui.screens.debugger_panes``: what each pane shows). The numbers, the arithmetic and the policy (what a prediction hides, what a
student's values look like) all come from core; saving and recovery dialogs live in
``tui.screens.saving``.
"""

from __future__ import annotations

import math
import os
import time

from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.reactive import reactive
from textual.screen import Screen
from textual.widgets import Static
from textual.worker import get_current_worker

from attn_tui.core.engine.backward import gradient_check
from attn_tui.core.errors import NotApplicable, NumericError
from attn_tui.core.engine.explanation import FOLD
from attn_tui.core.model.labels import token_labels
from attn_tui.core.engine.stages import column_labels
from attn_tui.core.files.yaml_text import yaml_number
from attn_tui.core.editing.save_root import SaveRoot
from attn_tui.core.model.scenario import Scenario
from attn_tui.core.editing.session import Session
from attn_tui.core.engine.stages import KEYS, TILES, stages_for
from attn_tui.core.engine.stages.mask import leak_warnings
from attn_tui.core.engine.views import mask_rules, stage_window
from attn_tui.tui.keys import screen_bindings
from attn_tui.tui.screens.debugger_panes import UNFOLDED, DebuggerPanes
from attn_tui.tui.screens.goto import GoToScreen
from attn_tui.tui.screens.lessons import Lessons
from attn_tui.tui.screens.saving import Saving
from attn_tui.tui.text import plain, tell
from attn_tui.tui.widgets.editable_matrix import EditableMatrix
from attn_tui.tui.widgets.explanation import ExplanationView
from attn_tui.tui.widgets.header import ScenarioHeader
from attn_tui.tui.widgets.input_matrix import InputMatrix
from attn_tui.tui.widgets.key_footer import KeyFooter
from attn_tui.tui.widgets.matrix import MatrixView
from attn_tui.tui.widgets.narration import NarrationBar
from attn_tui.tui.widgets.overview import OverviewMap
from attn_tui.tui.widgets.stage_view import StageView
from attn_tui.tui.widgets.steps import StepStrip
from attn_tui.tui.widgets.variants import VariantsView

OVERVIEW_FROM = 16  # more tokens than this, and the weights get an overview map


class DebuggerScreen(DebuggerPanes, Screen, inherit_bindings=False):  # its own, in the footer's order (tui/keys.py)
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
                 save_root: SaveRoot | None = None, classroom=None) -> None:
        """``classroom`` (``tui.follow.Classroom``): whether to play the scenario's lesson, and
        the class this app follows or leads."""
        super().__init__()
        self.session = Session(scenario, read_only, save_root=save_root)
        self.session.defer_recovery = True  # written after the frame, off the key's path
        self.save_root = save_root
        self.saving = Saving(self)
        self.lessons = Lessons(self, classroom)
        self.stages = stages_for(scenario)
        self.set_reactive(DebuggerScreen.row, scenario.focus)
        self._keys_state: tuple = ()
        self._told_recovery_error: str | None = None
        self._overview_timer = None
        self._last_input: InputMatrix | None = None  # the input matrix focused last (v checks its cell)
        self.gradient_check: tuple[int, list] | None = None  # (version, lines) of the last v

    # ---- layout -----------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        scenario = self.session.scenario
        yield ScenarioHeader(id="header")
        yield StepStrip(id="steps")
        yield NarrationBar(id="narration")
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
        yield KeyFooter()

    def on_mount(self) -> None:
        # the widgets every key talks to, found once (a query per key costs milliseconds)
        self.stage_view = self.query_one("#stage", StageView)
        self.why = self.query_one(ExplanationView)
        self.overviews = list(self.query(OverviewMap))
        self.variants = list(self.query(VariantsView))
        self.input_views = {view.id.removeprefix("input-"): view for view in self.query(".input").results(MatrixView)}
        self.inputs_pane = self.query_one("#inputs")
        self.watch(self.inputs_pane, "scroll_y", self.on_inputs_scrolled, init=False)
        self.header = self.query_one(ScenarioHeader)
        self.steps = self.query_one(StepStrip)
        self.narration = self.query_one(NarrationBar)
        self.lessons.start()  # a lesson opens at its first beat
        self.set_class(self.session.scenario.T > OVERVIEW_FROM, "-big")
        self.show_header()
        self.show_inputs()
        self.show_stage()
        self.show_marks()
        self.show_overview()
        self.call_after_refresh(self.show_marks)  # once laid out, scroll the focus row into view
        self.call_after_refresh(self.fit_panes)
        self.call_after_refresh(self.saving.offer_recovery)
        self.call_after_refresh(self.warn_of_leaks)

    def warn_of_leaks(self) -> None:
        """Say once if a finite mask value lets hidden keys take weight (the lesson of a leaky
        mask: correct arithmetic, a mask that did not hide): found off the key path."""
        if any(math.isfinite(attention.options.mask_value) for attention in self.session.attentions.values()):
            self._find_leaks(dict(self.session.attentions), self.session.version)

    @work(thread=True, exclusive=True, group="leaks")
    def _find_leaks(self, attentions, version: int) -> None:
        worker = get_current_worker()  # a press of c starts another: this one stops (a scan is O(T²))
        warnings = leak_warnings(attentions, cancelled=lambda: worker.is_cancelled)
        if warnings and not worker.is_cancelled:
            self.app.call_from_thread(self._tell_leaks, warnings, version)

    def _tell_leaks(self, warnings: list[str], version: int) -> None:
        if version == self.session.version and warnings != getattr(self, "_leaks_told", None):
            self._leaks_told = warnings
            tell(self, "\n".join(warning.removeprefix("warning: ") for warning in warnings),
                 severity="warning", timeout=12)

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
        return (predictions is not None and predictions.predicts(self.stage)
                and not self.lessons.answer_first())

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
    def keyed(self) -> bool:
        """Whether the current stage's columns are keys (or tiles of keys): [ and ] move along them."""
        return self.described.columns in (KEYS, TILES)

    @property
    def span(self) -> int:
        """How many keys one of the current stage's columns holds (a tile's; else 1)."""
        return self.described.span(self.session.scenario) if self.described.span is not None else 1

    @property
    def stage_column(self) -> int:
        """The current stage's column the chosen key is in."""
        return min(self.column // self.span, self.column_count - 1)

    @property
    def column_count(self) -> int:
        return self.described.column_count(self.session.scenario)

    def after_change(self, edited: tuple[str, ...] | None = None) -> None:
        """After the numbers or options changed: what shows them, and the keys if they did."""
        if self.mask_rule not in mask_rules(self.session):  # c took away the rule shown alone
            self.mask_rule = None
        steps = stages_for(self.session.scenario)
        if steps != self.stages:  # a step came (tiles, decoding) or went: stay on the same stage
            current, self.stages = self.stage, steps
            names = [stage.name for stage in steps]
            self.set_reactive(DebuggerScreen.step, names.index(current) if current in names
                              else min(self.step, len(steps) - 1))
        self.show_header()
        self.show_inputs(edited)
        self.show_stage()
        self.show_marks()
        self.show_overview()
        self.update_keys()
        self.lessons.changed()
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
                 self.predicting and not predictions.is_revealed(self.stage, self.head, self.row),
                 self.lessons.reveal_pending())
        if state != self._keys_state:
            self._keys_state = state
            self.refresh_bindings()

    # ---- reactive values --------------------------------------------------------------------

    def watch_step(self) -> None:
        self.mask_rule = None
        rows = self.described.row_count(self.session.scenario)
        if self.row >= rows:  # from a step whose rows are keys, past the last query
            self.set_reactive(DebuggerScreen.row, rows - 1)
        if self.stage_view.editing:  # a guess half typed belongs to the step it was typed at
            self.stage_view.close_editor()
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
        if self.keyed:
            self.column = event.col * self.span

    # ---- keys -------------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        session = self.session
        if action == "undo":  # (with nothing to undo, on_key says so: the footer still tells the truth)
            return session.history.can_undo
        if action == "redo":
            return session.history.can_redo
        if action == "column":
            return self.keyed
        if action == "toggle_theirs":
            return self.comparing
        if action == "reveal":
            return (self.predicting and not session.predictions.is_revealed(self.stage, self.head, self.row)
                    or self.lessons.reveal_pending())
        if action in ("next_beat", "previous_beat"):
            return self.lessons.player is not None
        if action == "follow":
            return self.lessons.follower is not None
        if action in ("next_head", "all_heads"):
            return session.scenario.heads > 1
        if action == "cycle_mask":
            return self.described.masks and len(mask_rules(session)) > 1
        if action == "goto":
            return parameters[0] <= len(self.stages) if parameters else True
        if action == "toggle":  # a stage's key, dimmed where the stage cannot be on (the key says why not)
            from attn_tui.core.engine.stages import stage_named

            stage = stage_named(parameters[0])
            on = stage.name in session.scenario.stage_settings
            return True if on or not stage.toggle.unavailable(session.scenario) else None
        if action in ("train", "check_gradient"):
            from attn_tui.core.engine.stages.back_output import loss

            setting = loss(session.scenario)
            return setting is not None and (setting.train is not None if action == "train"
                                            else setting.target is not None)
        return True

    def action_step(self, delta: int) -> None:
        step = max(0, min(len(self.stages) - 1, self.step + delta))
        if step == self.step:  # past the first or the last step: a bell, as an editor at its end
            self.app.bell()
        self.step = step

    def action_goto(self, number: int) -> None:
        self.step = max(0, min(len(self.stages) - 1, number - 1))

    def action_last_step(self) -> None:
        self.step = len(self.stages) - 1

    def action_row(self, delta: int) -> None:
        """The row above or below: a query, or at a step whose rows are keys (dK, dV), a key."""
        row = max(0, min(self.described.row_count(self.session.scenario) - 1, self.row + delta))
        if row == self.row:
            self.app.bell()
        self.row = row

    def action_column(self, delta: int) -> None:
        """The key to the left or right; at a stage whose columns are tiles of keys, the tile."""
        span = self.span
        self.column = max(0, min(self.session.scenario.T_k - 1, self.column - self.column % span + delta * span))

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

    def on_key(self, event) -> None:
        """u or U with nothing to undo or redo: the binding is off (the footer says so), and the
        key says so too, as editors do."""
        history = self.session.history
        for keys, able, action in (("u,ctrl+z", history.can_undo, self.action_undo),
                                   ("U,ctrl+y", history.can_redo, self.action_redo)):
            if event.key in keys.split(",") and not able and not self.stage_view.editing:
                event.stop()
                action()

    def on_descendant_focus(self, event) -> None:
        if isinstance(event.widget, InputMatrix):
            self._last_input = event.widget

    def action_train(self) -> None:
        from attn_tui.tui.screens.train import TrainScreen

        self.app.push_screen(TrainScreen(self))

    def action_check_gradient(self) -> None:
        """The finite-difference check of the input cell under the cursor (of the input matrix
        focused, or focused last), shown in the Why pane until the next change."""
        view = self.focused if isinstance(self.focused, InputMatrix) else self._last_input
        if view is None:
            view = next(iter(v for v in self.input_views.values() if isinstance(v, InputMatrix)))
        row, col = view.cursor
        lines = gradient_check(self.session.attention, view.matrix_name, row, col, view.head)
        self.gradient_check = (self.session.version, lines)
        self.show_why()
        tell(self, "\n".join(line.plain().strip() for line in lines[1:]), title=lines[0].plain(), timeout=8)

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
                if target[1] is not None and self.keyed:
                    self.column = target[1] * self.span

        self.app.push_screen(GoToScreen(list(token_labels(scenario.row_tokens)),
                                        list(column_labels(scenario, self.described)),
                                        list(scenario.row_tokens),
                                        [(stage.name, stage.title) for stage in self.stages]), chosen_stage)

    def action_toggle(self, name: str) -> None:
        """A stage's key (see Stage.toggle): the stage on, or off."""
        from attn_tui.core.engine.stages import stage_named

        stage = stage_named(name)
        self._switched(name, lambda: stage.flip(self.session.scenario))

    def switch_stage(self, name: str, setting) -> None:
        """A stage on with ``setting``, or off (None): the command palette's entries."""
        from attn_tui.core.engine.stages import stage_named

        stage = stage_named(name)
        self._switched(name, lambda: stage.toggle.switch(self.session.scenario, setting))

    def _switched(self, name: str, switch) -> None:
        edit = self._change(lambda: self.session.apply(switch()))
        if edit is not None and edit.value is not None:  # on: step to it
            self.step = [stage.name for stage in self.stages].index(name)

    def action_toggle_causal(self) -> None:
        self._change(self.session.toggle_causal)

    def action_cycle_scale(self) -> None:
        self._change(self.session.cycle_scale)

    def action_undo(self) -> None:
        if self._change(self.session.undo) is None:
            self.app.bell()
            tell(self, "Nothing to undo", timeout=2)

    def action_redo(self) -> None:
        if self._change(self.session.redo) is None:
            self.app.bell()
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
            if getattr(edit, "name", None) is not None:  # an option changed: a mask may leak now
                self.warn_of_leaks()
        return edit

    # ---- edits from the matrices ------------------------------------------------------------

    @on(EditableMatrix.CellEdited)
    def cell_edited(self, event: EditableMatrix.CellEdited) -> None:
        if isinstance(event.matrix, StageView):  # a prediction, not a change to the numbers
            if not self.predicting:  # (the step moved on while the guess was being typed)
                return
            self.session.predictions.guess(self.stage, self.head, event.row, event.col, event.value,
                                           self.session.attention)
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
        predictions = self.session.predictions
        if not (self.predicting and not predictions.is_revealed(self.stage, self.head, self.row)):
            self.lessons.reveal_answer()  # (r reveals a beat's answer where there is no row to)
            self.update_keys()
            return
        predictions.reveal(self.stage, self.head, self.row, self.session.attention)
        self.show_stage()
        self.show_marks()
        self.show_overview()
        self.update_keys()
        self.lessons.show()

    def action_next_beat(self) -> None:
        self.lessons.next()

    def action_previous_beat(self) -> None:
        self.lessons.previous()

    def action_record(self) -> None:
        self.lessons.record()

    def action_follow(self) -> None:
        self.lessons.follow()

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
        if self.keyed:
            self.column = event.col * self.span
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
