"""Moving about one debugger screen by key: a step (← →, a digit, Home, End), a row (↑ ↓, PgUp
PgDn), a head (h, or a for all heads side by side), a row and column by name (g). Where each key
moves is said by the position itself, made valid where it is set (``tui.screens.position``);
what is drawn after a move is the screen's (``watch_position``). A move that goes nowhere, past
the first or the last, rings the bell."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from attn_tui.tui.screens.debugger import DebuggerScreen


class Moves:
    """The keys that move one debugger screen's position."""

    def __init__(self, screen: DebuggerScreen) -> None:
        self.screen = screen

    def step(self, delta: int) -> None:
        screen = self.screen
        step = screen.step
        screen.move(step=step + delta)
        if screen.step == step:  # past the first or the last step: a bell, as an editor at its end
            screen.app.bell()

    def goto(self, number: int) -> None:
        self.screen.move(step=number - 1)

    def last_step(self) -> None:
        self.screen.move(step=len(self.screen.stages) - 1)

    def row(self, delta: int) -> None:
        """The row above or below: a query, or at a step whose rows are keys (dK, dV), a key."""
        screen = self.screen
        row = screen.row
        screen.move(row=row + delta)
        if screen.row == row:
            screen.app.bell()

    def page(self, direction: int) -> None:
        page = max(1, self.screen.stage_view.scrollable_content_region.height - 2)
        self.row(direction * page)

    def next_head(self) -> None:
        screen = self.screen
        screen.move(head=(screen.head + 1) % screen.session.scenario.heads)

    def all_heads(self) -> None:
        from attn_tui.tui.screens.heads import HeadsScreen

        screen = self.screen

        def chosen(head: int | None) -> None:
            if head is not None:
                screen.move(head=head)

        screen.app.push_screen(HeadsScreen(screen.session, screen.row, screen.head), chosen)

    def go_to(self) -> None:
        # (when asked: the first frame needs none of it, #30)
        from attn_tui.tui.screens.goto import go_to

        go_to(self.screen)
