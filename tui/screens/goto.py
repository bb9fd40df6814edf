"""GoToScreen: ask for a row (and a column) to jump to, by token or by number."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from attn_tui.core.engine.stages import column_labels
from attn_tui.core.model.labels import token_labels
from attn_tui.tui.text import plain
from attn_tui.tui.widgets.input_matrix import InputMatrix

if TYPE_CHECKING:
    from attn_tui.tui.screens.debugger import DebuggerScreen


def parse_target(
    text: str, rows: list[str], columns: list[str], tokens: list[str] | None = None
) -> tuple[int, int | None]:
    """``"sat"``, ``"3"``, ``"sat, the"`` or ``"512 7"`` as 0-based (row, column or None).

    A part is a label as shown (``the₅``), a token (``the``, when only one row holds it) or a
    1-based number; ``ValueError`` says what did not match, or which rows a repeated token is.
    """
    parts = [part for part in text.replace(",", " ").split() if part]
    if not 1 <= len(parts) <= 2:
        raise ValueError("type a row, or a row and a column, e.g. 'sat' or '512, 7'")

    def find(part: str, labels: list[str], what: str) -> int:
        if part in labels:
            return labels.index(part)
        same = (
            [i for i, token in enumerate(tokens or ()) if token == part]
            if len(labels) == len(tokens or ())
            else []
        )
        if len(same) == 1:
            return same[0]
        if len(same) > 1:
            which = ", ".join(f"{labels[i]} (row {i + 1})" for i in same)
            raise ValueError(
                f"{part!r} is more than one {what}: {which}; type one of those or its number"
            )
        if part.isascii() and part.isdigit() and 1 <= int(part) <= len(labels):
            return int(part) - 1
        raise ValueError(f"{part!r} is not a {what} (a label, or a number from 1 to {len(labels)})")

    row = find(parts[0], rows, "row")
    column = find(parts[1], columns, "column") if len(parts) == 2 else None
    return row, column


def parse_step(text: str, steps: list[tuple[str, str]]) -> int | None:
    """``"step 11"``, ``"step softmax"`` or a step's name or title alone (``"weighted sum"``) as a
    0-based step; None if the text names no step. ``steps`` are (name, title) in order."""
    words = text.strip().lower()
    said = words.startswith("step ")
    words = words.removeprefix("step ").strip() if said else words
    if said and words.isascii() and words.isdigit() and 1 <= int(words) <= len(steps):
        return int(words) - 1
    for number, (name, title) in enumerate(steps):
        if words in (name.lower(), title.lower(), name.lower().replace("_", " ")):
            return number
    return None


class GoToScreen(ModalScreen[tuple | None]):
    """Dismisses with (row, column or None), with ("step", step) for a step, or None on Esc."""

    DEFAULT_CSS = """
    GoToScreen { align: center middle; }
    GoToScreen > Vertical {
        width: 72; max-width: 100%; height: auto; padding: 1 2;
        border: thick $accent; background: $surface;
    }
    GoToScreen #problem { color: $error; height: auto; }
    """

    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(
        self,
        rows: list[str],
        columns: list[str],
        tokens: list[str] | None = None,
        steps: list[tuple[str, str]] | None = None,
    ) -> None:
        super().__init__()
        self.rows = rows
        self.columns = columns
        self.tokens = tokens
        self.steps = steps  # (name, title) of each step: the stage view's go-to takes a step too

    def compose(self) -> ComposeResult:
        with Vertical():
            if self.steps:
                yield Static(
                    "Go to a row, or a row and a column (a token or a number), or a step "
                    "(its name, or 'step N'):"
                )
                yield Input(placeholder="e.g. sat  or  512, 7  or  softmax", id="target")
            else:
                yield Static("Go to a row, or a row and a column (a token or a number):")
                yield Input(placeholder="e.g. sat  or  512, 7", id="target")
            yield Static("", id="problem")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        try:
            self.dismiss(parse_target(event.value, self.rows, self.columns, self.tokens))
        except ValueError as error:
            step = parse_step(event.value, self.steps) if self.steps else None
            if step is not None:
                self.dismiss(("step", step))
                return
            self.query_one("#problem", Static).update(plain(str(error)))

    def action_cancel(self) -> None:
        self.dismiss(None)


def go_to(debugger: DebuggerScreen) -> None:
    """g: ask for a cell and go there, in the focused input matrix or in the stage view."""
    focused = debugger.focused
    if isinstance(focused, InputMatrix):
        grid = focused.grid

        def chosen(target) -> None:
            if target is not None:
                row, column = target
                focused.set_cursor((row, focused.cursor[1] if column is None else column))

        debugger.app.push_screen(GoToScreen(list(grid.rows), list(grid.columns)), chosen)
        return
    scenario = debugger.session.scenario

    def chosen_stage(target) -> None:
        if target is not None and target[0] == "step":
            debugger.move(step=target[1])
        elif target is not None:
            keyed = target[1] is not None and debugger.keyed
            debugger.move(
                row=target[0], column=target[1] * debugger.span if keyed else debugger.column
            )

    debugger.app.push_screen(
        GoToScreen(
            list(token_labels(scenario.row_tokens)),
            list(column_labels(scenario, debugger.described)),
            list(scenario.row_tokens),
            [(stage.name, stage.title) for stage in debugger.stages],
        ),
        chosen_stage,
    )
