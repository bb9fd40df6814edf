"""What the Why pane of the debugger says: the explanation of the cell the position is on,
with what goes above it (a guess refused, a gradient checked, the mask's rule shown alone, a
prediction's or a comparison's lines), unfolded or folded (x), and the gradient check (v) it
shows; the part of :class:`~attn_tui.tui.controllers.panes.Panes` that tells the Why pane
(:class:`~attn_tui.tui.widgets.explanation.ExplanationView`) what to show."""

from __future__ import annotations

from typing import TYPE_CHECKING

from attn_tui.core.engine.explanation import FOLD, Line, Span, explain
from attn_tui.core.teaching.prediction_lines import hidden_lines, prediction_lines
from attn_tui.tui.text import tell
from attn_tui.tui.widgets.input_matrix import InputMatrix

if TYPE_CHECKING:
    from attn_tui.tui.screens.debugger import DebuggerScreen

# x unfolds sums and lists of keys to this many terms: whole at any size a class uses, and at
# T = 1024, d = 64 still a key's worth of work (every term of every key would take 0.2 s to
# write and more to wrap); --print writes them all
UNFOLDED = 64


class WhyPane:
    """The Why pane's part of the debugger's panes (a mixin of ``Panes``, which holds the
    screen)."""

    screen: DebuggerScreen

    def show_why(self) -> None:
        screen = self.screen
        session = screen.session
        stage, row, head = screen.stage, screen.row, screen.head
        col = screen.stage_column
        predictions = session.predictions
        hidden = predictions is not None and predictions.hidden_rows(stage, head)[row]
        extra: list[Line] = []
        explanation = None
        if not hidden:
            explanation = explain(
                session.attention,
                stage,
                row,
                col,
                fold=UNFOLDED if screen.expanded else FOLD,
                head=head,
            )
        if screen.predicting:
            extra = prediction_lines(predictions, stage, head, row, session.attention)
        elif hidden:
            extra = hidden_lines(predictions, stage, head, row, session.scenario)
        elif session.comparison is not None and screen.described.teaching.predictable:
            from attn_tui.core.teaching.comparison_report import (
                comparison_lines,  # (a scenario with expect: alone)
            )

            extra = comparison_lines(
                session.comparison,
                session.scenario,
                screen.described.key,
                row,
                col,
                screen.compared_head,
            )
        refused = [
            (
                "guess" if view is screen.stage_view else view.id.removeprefix("input-"),
                view.refused_reason,
            )
            for view in (*screen.input_views.values(), screen.stage_view)
            if getattr(view, "refused_reason", "")
        ]  # (whole here: a pane's border cuts it)
        extra = [
            *(Line((Span(f"✗ {name}: {reason}", "masked"),)) for name, reason in refused),
            *extra,
        ]
        check = screen.gradient_check
        if check is not None and check[0] == session.version:
            extra = [*check[1], *extra]
        if screen.described.arithmetic.masks and screen.mask_rule is not None:
            from attn_tui.core.model.masks import WHY

            extra = [
                Line(
                    (
                        Span(
                            f"The matrix shows only the keys {WHY[screen.mask_rule]} "
                            "(m: next view); the lines above are for every rule together.",
                            "note",
                        ),
                    )
                ),
                *extra,
            ]
        screen.why.show(explanation, extra, screen.described.title)

    def refused(self, event) -> None:
        """A cell's text was refused, or its editor closed: the Why pane says it, or no more."""
        self.show_why()

    def expand(self) -> None:
        """x: long sums in full in the Why pane, or folded again."""
        screen = self.screen
        screen.expanded = not screen.expanded
        scenario = screen.session.scenario
        longest = max(scenario.T_k, scenario.d_k, scenario.d_v, scenario.heads * scenario.d_v)
        if longest <= FOLD:
            tell(screen, f"Nothing to unfold: every sum here has at most {FOLD} terms", timeout=3)
        elif screen.expanded:
            tell(
                screen,
                f"Sums shown in full (up to {UNFOLDED} terms and keys; --print shows every one)"
                if longest > UNFOLDED
                else "Sums shown in full",
                timeout=3,
            )
        else:
            tell(screen, "Long sums folded", timeout=2)

    def check_gradient(self) -> None:
        """v: the finite-difference check of the input cell under the cursor (of the input
        matrix focused, or focused last, or the first), in the Why pane until the next change."""
        screen = self.screen
        view = screen.focused if isinstance(screen.focused, InputMatrix) else screen.last_input
        if view is None:
            view = next(iter(v for v in screen.input_views.values() if isinstance(v, InputMatrix)))
        row, col = view.cursor
        from attn_tui.core.engine.gradient_check import gradient_check  # (only when asked for)

        lines = gradient_check(screen.session.attention, view.matrix_name, row, col, view.head)
        screen.gradient_check = (screen.session.version, lines)
        self.show_why()
        tell(
            screen,
            "\n".join(line.plain().strip() for line in lines[1:]),
            title=lines[0].plain(),
            timeout=8,
        )
