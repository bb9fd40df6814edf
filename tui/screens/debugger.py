"""DebuggerScreen: one scenario, stepped through and edited.

The screen composes the panes, keeps the one position (step, row, column, head: ``position``,
made valid where it is set: ``tui.screens.position``) and routes keys to its controllers
(``tui.controllers``), which tell it what they did and never call each other: ``panes`` tells
the widgets what is new, ``moves`` steps, rows and heads, ``changes`` edits the numbers through
the core Session, ``guesses`` predicts and reveals, ``lessons`` plays, records and follows,
``saving`` writes files. The numbers, the arithmetic and the policy (what a prediction hides,
what a student's values look like) all come from core.
"""

from __future__ import annotations

from dataclasses import replace

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.reactive import reactive
from textual.screen import Screen
from textual.widgets import Static

from attn_tui.core.editing.save_root import SaveRoot
from attn_tui.core.editing.session import Session
from attn_tui.core.engine.stages import stages_for
from attn_tui.core.engine.views import mask_rules
from attn_tui.core.model.scenario import Scenario
from attn_tui.tui.class_keys import ClassKeys
from attn_tui.tui.controllers import delegate
from attn_tui.tui.controllers.changes import Changes
from attn_tui.tui.controllers.guesses import Guesses
from attn_tui.tui.controllers.lessons import Lessons
from attn_tui.tui.controllers.moves import Moves
from attn_tui.tui.controllers.panes import Panes
from attn_tui.tui.controllers.saving import Saving, file_name
from attn_tui.tui.key_availability import available
from attn_tui.tui.key_bindings import screen_bindings
from attn_tui.tui.screens.position import DebuggerPosition, Positioned
from attn_tui.tui.text import plain
from attn_tui.tui.whole_frames import WholeFrames
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


# inherit_bindings=False: its own, in the footer's order (tui/keys.py)
class DebuggerScreen(Positioned, ClassKeys, WholeFrames, Screen, inherit_bindings=False):
    """The step-debugger for one scenario."""

    HORIZONTAL_BREAKPOINTS = [(0, "-stacked"), (70, "-narrow"), (100, "-wide")]
    MIN_SIZE = (30, 10)  # below this, nothing useful fits: the screen says so instead
    AUTO_FOCUS = "#stage"  # the default focus: arrows step and choose the row
    BINDINGS = screen_bindings()

    # repaint=False: a change tells the widgets that show it; repainting the whole screen
    # (a reactive's default) would cost every key a full frame. The position: Positioned's.
    expanded: reactive[bool] = reactive(False, init=False, repaint=False)  # long sums in full
    # the student's values (expect:)
    theirs: reactive[bool] = reactive(False, init=False, repaint=False)
    # one mask rule alone
    mask_rule: reactive[str | None] = reactive(None, init=False, repaint=False)

    def __init__(
        self,
        scenario: Scenario,
        read_only: bool = False,
        save_root: SaveRoot | None = None,
        classroom=None,
    ) -> None:
        """``classroom`` (``tui.classroom.Classroom``): whether to play the scenario's lesson, and
        the class this app follows or leads."""
        super().__init__()
        # the classes known now, not at mount or at the first Resize: each change restyles it all
        self.add_class(
            *self._get_breakpoint_classes(self.app.size.width, self.HORIZONTAL_BREAKPOINTS)
        )
        self.set_class(scenario.T > OVERVIEW_FROM, "-big")
        self.session = Session(scenario, read_only, save_root=save_root)
        self.session.journal.deferred = True  # written after the frame, off the key's path
        self.panes = Panes(self)
        self.moves = Moves(self)
        self.changes = Changes(self)
        self.guesses = Guesses(self)
        self.lessons = Lessons(self, classroom)
        self.saving = Saving(self)
        self.stages = stages_for(scenario)
        self.put(DebuggerPosition(row=scenario.focus))
        self._keys_state: tuple = ()
        # the input matrix focused last (v checks its cell)
        self.last_input: InputMatrix | None = None
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
                    self.panes.description_shown = scenario.description.strip()
                    yield Static(
                        plain(self.panes.description_shown, multiline=True), id="description"
                    )
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
        self.input_views = {
            view.id.removeprefix("input-"): view
            for view in self.query(".input").results(MatrixView)
        }
        # a digit there while a guess waits is its
        self.guesses.take_keys_of(self.query(InputMatrix))
        self.inputs_pane = self.query_one("#inputs")
        self.watch(self.inputs_pane, "scroll_y", self.panes.inputs_scrolled, init=False)
        self.header, self.steps = self.query_one(ScenarioHeader), self.query_one(StepStrip)
        self.narration = self.query_one(NarrationBar)
        self.lessons.start()  # a lesson opens at its first beat
        self.panes.show_all()
        self.panes.fit()  # the first frame laid out as it stays; once laid out: the focus row in
        # view, the width shared again (with real sizes), what was unsaved offered
        for then in (
            self.panes.show_marks,
            self.panes.fit,
            self.saving.offer_recovery,
            self.changes.warn_of_leaks,
        ):
            self.call_after_refresh(then)

    on_resize = delegate("panes", "resize")

    def _on_screen_resume(self, event) -> None:
        # first push: styled at mount, __init__'s classes (13 ms)
        event.refresh_styles &= self.stack_updates > 0
        super()._on_screen_resume(event)

    def after_change(self, edited: tuple[str, ...] | None = None) -> None:
        """After the numbers or options changed: what shows them, and the keys if they did."""
        if self.mask_rule not in mask_rules(self.session):  # c took away the rule shown alone
            self.mask_rule = None
        steps = stages_for(self.session.scenario)
        if steps != self.stages:  # a step came (tiles, decoding) or went: stay on the same stage
            current, self.stages = self.stage, steps
            names = [stage.name for stage in steps]
            self.put(
                replace(self.position, step=names.index(current) if current in names else self.step)
            )
        else:  # (the numbers of rows and columns may have changed)
            self.put(self.position)
        self.panes.show_all(edited)
        self.update_keys()
        self.lessons.changed()
        self.call_after_refresh(self.changes.keep_recovery)

    # ---- what the controllers tell the screen (they know it, not each other) ---------------

    def after_guess(self) -> None:
        """After a guess was recorded: the stage and the Why pane, and a class's teacher."""
        self.panes.show_stage()
        self.panes.show_why()
        self.lessons.guessed()

    def after_reveal(self) -> None:
        """After a row was revealed: what shows it, the keys, the lesson's bar, a class's
        teacher."""
        self.panes.show_stage()
        self.panes.show_marks()
        self.panes.show_overview()
        self.update_keys()
        self.lessons.show()
        self.lessons.guessed()

    def after_lesson_shown(self) -> None:
        """The lesson's bar changed (a beat, a recording, a teacher): so may the stage's
        subtitle."""
        self.panes.show_subtitle()

    def commit_editing(self) -> bool:
        """Commit a cell still being typed in (before saving or quitting); False if it is no
        number."""
        return self.changes.flush_editor()

    @property
    def file_name(self) -> str:
        """The file as the header and messages name it (``tui.controllers.saving.file_name``)."""
        return file_name(self.session)

    def on_unmount(self) -> None:
        self.session.journal.flush()  # a change made just before leaving is kept too

    def update_keys(self) -> None:
        """Refresh the footer only when the set of keys that work changed."""
        history = self.session.history
        # the keys the footer shows (the stage's own hidden keys are checked when pressed)
        state = (
            history.can_undo,
            history.can_redo,
            self.comparing,
            self.revealable(),
            self.lessons.reveal_pending(),
            self.keyed,
            self.column_count > 1,
        )  # ([ ]: Key or Column)
        if state != self._keys_state:
            self._keys_state = state
            self.refresh_bindings()

    # ---- reactive values --------------------------------------------------------------------

    def watch_position(self, before: DebuggerPosition, now: DebuggerPosition) -> None:
        """The panes told what moved: another step redraws the stage, another head every pane,
        another row or column the marks (and the stage view's cursor, which follows)."""
        if now.step != before.step:
            self.mask_rule = None
            if self.stage_view.editing:  # a guess half typed belongs to the step it was typed at
                self.stage_view.close_editor()
            self.panes.show_header()
            self.panes.show_stage()
            self.panes.show_marks()
            self.update_keys()
        if now.head != before.head:
            self.panes.show_all()
        elif now.step == before.step:
            self.panes.show_marks()
            if now.row != before.row:
                self.update_keys()
                if self.predicting:  # the bottom line says what to do with this row
                    self.panes.show_subtitle()

    def watch_expanded(self) -> None:
        self.panes.show_why()

    def watch_theirs(self) -> None:
        self.panes.show_stage()

    def watch_mask_rule(self) -> None:
        self.panes.show_stage()
        self.panes.show_why()

    @on(MatrixView.Scrolled, "#stage")
    def stage_scrolled(self) -> None:
        self.panes.show_window()

    @on(OverviewMap.Resized)
    def overview_resized(self) -> None:
        self.panes.show_overview()

    @on(OverviewMap.Picked)
    def overview_picked(self, event: OverviewMap.Picked) -> None:
        self.move(row=event.row, column=event.col * self.span if self.keyed else self.column)

    # ---- keys -------------------------------------------------------------------------------

    # the keys whose work is a controller's (each a method of that controller: see tui.controllers)
    action_expand = delegate("panes", "expand")
    action_zoom = delegate("panes", "zoom")
    action_next_pane = delegate("panes", "next_pane")
    action_check_gradient = delegate("panes", "check_gradient")
    action_column = delegate("panes", "column")
    action_out_column = delegate("panes", "out_column")
    action_step = delegate("moves", "step")
    action_goto = delegate("moves", "goto")
    action_last_step = delegate("moves", "last_step")
    action_row = delegate("moves", "row")
    action_page = delegate("moves", "page")
    action_next_head = delegate("moves", "next_head")
    action_all_heads = delegate("moves", "all_heads")
    action_go_to = delegate("moves", "go_to")
    action_toggle = delegate("changes", "toggle")
    action_undo = delegate("changes", "undo")
    action_redo = delegate("changes", "redo")
    action_keep_predictions = delegate("changes", "keep_predictions")
    action_next_beat = delegate("lessons", "next")
    action_previous_beat = delegate("lessons", "previous")
    action_record = delegate("lessons", "record")
    action_follow = delegate("lessons", "follow")
    action_save = delegate("saving", "save")
    action_save_as = delegate("saving", "save_as")
    action_screenshot = delegate("saving", "screenshot")
    action_figure = delegate("saving", "figure")

    def action_reveal(self) -> None:
        """r: the row under the cursor revealed, or where there is no row to, the beat's answer."""
        if self.revealable():
            first = self.reveal_first()
            if not first:
                self.guesses.reveal()
                return
            from attn_tui.core.engine.stages import stage_named
            from attn_tui.tui.text import tell

            titles = " and ".join(stage_named(name).title for name in first)
            tell(
                self,
                f"r: predict and reveal this row of {titles} first: {self.described.title} is "
                "computed from it, so showing it would give that away",
                severity="warning",
            )
        else:
            self.lessons.reveal_answer()
            self.update_keys()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return available(self, action, parameters)

    def action_cycle_mask(self) -> None:
        rules = mask_rules(self.session)
        self.mask_rule = rules[(rules.index(self.mask_rule) + 1) % len(rules)]

    on_key = delegate("changes", "unable")

    def on_descendant_focus(self, event) -> None:
        if isinstance(event.widget, InputMatrix):
            self.last_input = event.widget

    def action_train(self) -> None:
        from attn_tui.tui.screens.train import TrainScreen

        self.app.push_screen(TrainScreen(self))

    def action_present(self) -> None:
        from attn_tui.tui.screens.present import PresentScreen

        self.app.push_screen(PresentScreen(self))

    def action_toggle_causal(self) -> None:
        self.changes.make(self.session.toggle_causal)

    def action_cycle_scale(self) -> None:
        self.changes.make(self.session.cycle_scale)

    # ---- edits from the matrices ------------------------------------------------------------

    @on(EditableMatrix.CellEdited)
    def cell_edited(self, event: EditableMatrix.CellEdited) -> None:
        if isinstance(event.matrix, StageView):  # a prediction, not a change to the numbers
            self.guesses.guess(event.row, event.col, event.value)
        else:
            self.changes.cell(event.matrix, event.row, event.col, event.value, event.text)

    @on(InputMatrix.Nudged)
    def cell_nudged(self, event: InputMatrix.Nudged) -> None:
        self.changes.nudge(event.matrix, event.row, event.col, event.direction)

    on_stage_view_moved = delegate("guesses", "follow_editor")
    on_editable_matrix_refused = delegate("panes", "refused")

    def action_toggle_theirs(self) -> None:
        self.theirs = not self.theirs

    @on(StageView.CellClicked, "#stage")
    def stage_clicked(self, event: MatrixView.CellClicked) -> None:
        self.move(row=event.row, column=event.col * self.span if self.keyed else self.column)
        event.view.focus()
