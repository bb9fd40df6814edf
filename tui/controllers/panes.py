"""What each pane of the debugger shows, and how the panes share the terminal: the part of
:class:`~attn_tui.tui.screens.debugger.DebuggerScreen` that tells its widgets what is new after
a step, a row, a head or an edit changed (everything they show comes from core). What the Why
pane says is :class:`~attn_tui.tui.controllers.why_pane.WhyPane`'s, the weights overview
:class:`~attn_tui.tui.controllers.overview_pane.OverviewPane`'s; ``Panes`` is both."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.geometry import Region
from textual.widgets import Static

from attn_tui.core.engine.stages import ALL, KEY, ROW, highlights
from attn_tui.core.engine.views import mask_rules
from attn_tui.core.model.labels import ROLES, dims, input_labels, token_labels
from attn_tui.core.numbers import decimals_needed
from attn_tui.tui.controllers.layout import fit
from attn_tui.tui.controllers.overview_pane import OverviewPane
from attn_tui.tui.controllers.why_pane import WhyPane
from attn_tui.tui.text import plain, set_titles
from attn_tui.tui.widgets.grid import DenseGrid
from attn_tui.tui.widgets.matrix import MatrixView
from attn_tui.tui.widgets.stage_view import StageGrid

if TYPE_CHECKING:
    from textual.widget import Widget

    from attn_tui.tui.screens.debugger import DebuggerScreen


class Panes(WhyPane, OverviewPane):
    """The debugger screen's panes: sized to the terminal, and shown anew when something changed."""

    def __init__(self, screen: DebuggerScreen) -> None:
        self.screen = screen
        self.description_shown: str | None = None
        self._focus_before_small: Widget | None = None

    def resize(self, event) -> None:
        screen = self.screen
        width, height = event.size
        small = width < screen.MIN_SIZE[0] or height < screen.MIN_SIZE[1]
        if small and not screen.has_class("-too-small"):
            self._focus_before_small = screen.focused  # hiding the panes takes the focus away…
        elif not small and screen.has_class("-too-small"):
            screen.call_after_refresh(
                screen.set_focus, self._focus_before_small or screen.query_one("#stage")
            )  # …so give it back
        screen.set_class(small, "-too-small")
        if not small:  # the focused matrix may have moved out of view in the new layout
            screen.call_after_refresh(
                lambda: screen.focused is not None and screen.focused.scroll_visible()
            )
        if small:
            screen.query_one("#too-small", Static).update(
                f"This window is {width}×{height}: too small to draw attention in. "
                f"Enlarge it to at least {screen.MIN_SIZE[0]}×{screen.MIN_SIZE[1]}; "
                "nothing is lost meanwhile."
            )
        else:
            screen.call_after_refresh(self.fit)

    def zoom(self) -> None:
        """z: the stage and the Why pane take the width, the inputs hidden (or back)."""
        screen = self.screen
        screen.toggle_class("-zoomed")
        if screen.has_class("-zoomed"):
            screen.stage_view.focus()  # not an input matrix that is no longer shown

    def next_pane(self, direction: int) -> None:
        """Tab, shift+Tab: the next (previous) input matrix or the stage view; from a zoomed
        stage, the inputs come back first."""
        screen = self.screen
        move = screen.focus_next if direction > 0 else screen.focus_previous
        if screen.has_class("-zoomed"):
            screen.remove_class("-zoomed")
            screen.call_after_refresh(move)
        else:
            move()

    def column(self, delta: int) -> None:
        """[ and ]: the key to the left or right; at a stage whose columns are tiles of keys, the
        tile."""
        screen = self.screen
        span, column = screen.span, screen.column
        screen.move(
            column=column - column % span + delta * span
        )  # (kept to the keys: the position's)

    def out_column(self, delta: int) -> None:
        """[ and ] at a stage whose columns are not keys (the Weighted sum's, Project's outputs, a
        gradient's): the stage's cursor moves along its columns, and the Why pane explains the
        column it is on, not always the first."""
        screen = self.screen
        column = screen.stage_column
        screen.move(stage_column=column + delta)  # (the stage's cursor follows: show_marks)
        if screen.stage_column == column:
            screen.app.bell()

    def inputs_scrolled(self) -> None:
        """Show the derived Q, K, V an edit left behind out of view: a widget refreshed off the
        screen makes Textual lay the whole screen out again at the next frame, 3 ms of every
        edit of X."""
        self.show_inputs(())

    def _in_view(self, view: MatrixView) -> bool:
        """Whether some line of an input matrix is (or, the scroll being laid out, is about to
        be) in the inputs pane's window, give or take a line."""
        pane = self.screen.inputs_pane
        window = Region(0, int(pane.scroll_y), *pane.scrollable_content_region.size).grow(
            (1, 0, 1, 0)
        )
        return view.virtual_region.overlaps(window)

    def fit(self) -> None:
        """The width and heights of the panes fitted to the terminal (tui.controllers.layout)."""
        fit(self.screen)
        self.inputs_scrolled()  # new heights may bring a derived matrix into view

    # ---- telling the widgets ----------------------------------------------------------------

    def show_all(self, edited: tuple[str, ...] | None = None) -> None:
        """Every pane, after the numbers or the head changed (of the inputs, only the matrices
        ``edited`` if given)."""
        self.show_header()
        self.show_inputs(edited)
        self.show_stage()
        self.show_marks()
        self.show_overview()

    def show_header(self) -> None:
        screen = self.screen
        session = screen.session
        scenario = session.scenario
        # a lesson's own edits: no
        modified = session.modified and not session.journal.only_unkept()
        screen.header.show(scenario, screen.file_name, modified, scenario.head_names[screen.head])
        screen.steps.show([stage.title for stage in screen.stages], screen.step)

    def show_inputs(self, names: tuple[str, ...] | None = None) -> None:
        """The input matrices (all, or the ones an edit changed)."""
        screen = self.screen
        session = screen.session
        scenario = session.scenario
        p = scenario.precision
        for name, view in screen.input_views.items():
            if names is not None and name not in names and not view.has_class("derived"):
                continue
            if view.has_class("derived"):
                if names is not None and not self._in_view(view):
                    # scrolled out of view: shown when it comes back (see on_inputs_scrolled)
                    continue
                values = {
                    "Q": session.inputs.Q_projected,
                    "K": session.inputs.K_projected,
                    "V": session.inputs.V,
                }[name](screen.head)
                rows = token_labels(scenario.row_tokens if name == "Q" else scenario.tokens)
                columns = dims(values.shape[1])
                set_titles(
                    view, f"{name} = X·W{name.lower()} ({values.shape[0]}×{values.shape[1]})"
                )
            else:
                rows, columns = input_labels(scenario, name)
                values = scenario.inputs[name]
                head = getattr(view, "head", None)
                if values.ndim == 3:
                    head = view.head = min(
                        screen.head * values.shape[0] // scenario.heads, values.shape[0] - 1
                    )
                    values = values[head]
                which = (
                    f", {_head_label(scenario, name, head)}"
                    if head is not None and scenario.inputs[name].ndim == 3
                    else ""
                )
                set_titles(view, f"{name} ({values.shape[0]}×{values.shape[1]}{which})")
            if view.tooltip is None:
                view.tooltip = ROLES.get(name, name)
            per_head = view.has_class("derived") or scenario.inputs[name].ndim == 3
            shown = (screen.head if per_head else None, session.version)
            if getattr(view, "_shown_values", None) == shown:  # another head, the same matrix
                continue
            view._shown_values = shown
            view.show(
                DenseGrid(
                    rows,
                    columns,
                    decimals_needed(values, p),
                    tiny=True,
                    key=(name, getattr(view, "head", None)),
                    kin=name,
                    version=session.version,
                    values=values,
                )
            )
        text = scenario.description.strip() + session.description_note
        if self.description_shown != text:  # an update lays the screen out again
            self.description_shown = text
            for description in screen.query("#description").results(Static):
                description.update(plain(text, multiline=True))

    def show_stage(self) -> None:
        """The current stage's matrix, after the step, head or numbers changed."""
        screen = self.screen
        session = screen.session
        described = screen.described
        stage_view = screen.stage_view
        heading = described.display.heading(session.scenario, session.attention.options)
        which = (
            f" · {session.scenario.head_names[screen.head]}"
            if described.arithmetic.per_head and session.scenario.heads > 1
            else ""
        )
        set_titles(stage_view, f"Step {screen.step + 1} · {described.title}{which} · {heading}")
        stage_view.predicting = screen.predicting
        stage_view.show(StageGrid(session, described, screen.head, screen.theirs, screen.mask_rule))
        self.show_subtitle()

    def show_subtitle(self) -> None:
        """What the stage view's bottom line says there is to do here."""
        screen = self.screen
        session, stage_view = screen.session, screen.stage_view
        if screen.predicting:
            close, judged = session.predictions.score(session.attention)
            pending = not session.predictions.is_revealed(screen.stage, screen.head, screen.row)
            subtitle = " · ".join(
                part
                for part in (
                    "type a guess, Tab the next, r reveals the row" if pending else "",
                    f"{close}/{judged} close" if judged else "",
                )
                if part
            )
        elif screen.answer_first():
            subtitle = "r reveals the beat's answer"
        elif screen.comparing:
            subtitle = (
                "showing YOUR values · ✗ differs from attention · y: attention's"
                if screen.theirs
                else "showing attention's values · ✗ yours differs · y: yours"
            )
        elif screen.described.arithmetic.masks and len(mask_rules(session)) > 1:
            subtitle = f"showing: {screen.mask_rule or 'every rule'} · m: next"
        else:
            subtitle = ""
        stage_view.predicting = screen.predicting
        if not stage_view.editing:
            set_titles(stage_view, subtitle=subtitle)

    def show_marks(self) -> None:
        """The cursor, the cells the current step reads from, and the explanation."""
        screen = self.screen
        stage = screen.stage
        row, column = screen.row, screen.column
        stage_view = screen.stage_view
        if (
            not stage_view.editing
        ):  # (an open guess keeps its cell; the Moved it posts moves the position)
            stage_view.set_cursor((row, screen.stage_column))
        stage_view.set_marks(rows=frozenset({row}))
        reads = highlights(stage, screen.stages)
        shown = {
            ROW: frozenset({row}),
            KEY: frozenset({column}),
            ALL: frozenset(range(min(screen.session.scenario.T_k, 4096))),
        }
        context = screen.described.arithmetic.context
        for name in ("Q", "K", "V"):
            if name in screen.input_views:
                view = screen.input_views[name]
                view.set_marks(rows=shown[reads[name]] if name in reads else frozenset())
                if context is not None and name in (
                    "K",
                    "V",
                ):  # a decode step: the cache, the new row marked
                    view.set_marks(rows=frozenset({row}))
                    view.scroll_to_cell(row, 0)
                view.set_context(
                    context(screen.session.scenario, row)
                    if context is not None and name != "Q"
                    else None
                )
        self.show_why()
        self.show_variants()
        self.show_window()

    def show_variants(self) -> None:
        screen = self.screen
        for view in screen.variants:
            view.show(screen.session, screen.described, screen.head, screen.row)


def _head_label(scenario, name: str, head: int) -> str:
    """Whose matrix an input pane shows: a query head's name, or for K and V shared by several
    query heads (grouped-query attention), the key/value head and the heads that read it."""
    if name not in ("K", "V") or scenario.kv_heads == scenario.heads:
        return scenario.head_names[head]
    group = scenario.heads // scenario.kv_heads
    readers = scenario.head_names[head * group : (head + 1) * group]
    first = 0 if scenario.head_names[0] == "head 0" else 1  # count as the heads are counted
    if all(name.startswith("head ") for name in readers):
        readers = ["heads " + ", ".join(name.removeprefix("head ") for name in readers)]
    return f"kv head {head + first}, for {', '.join(readers)}"
