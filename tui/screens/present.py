"""PresentScreen (projector mode): one thing, large — the current stage's focus row in big digits,
its tokens above and its arithmetic below, the rest hidden. ←/→ or a digit step, ↑/↓ move the
row, [ ] the keys shown, n and N the lesson's beats (a teacher leads from here as from the
debugger); p or Esc goes back; the footer says so. Readable from the back of a room at 100×30."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.renderables.digits import Digits as DigitsRenderable
from textual.screen import Screen
from textual.widgets import Digits, Footer, Static

from attn_tui.core.engine.explanation import explain
from attn_tui.core.engine.stages import column_labels, row_labels
from attn_tui.core.engine.views import stage_window
from attn_tui.core.numbers import fixed, mask_text
from attn_tui.core.text import clip
from attn_tui.tui.key_bindings import step_bindings
from attn_tui.tui.whole_frames import WholeFrames
from attn_tui.tui.widgets.explanation import ExplanationView

CELL_WIDTH = 20  # columns a value in big digits takes, label and gap included


class PresentScreen(WholeFrames, Screen[None]):
    DEFAULT_CSS = """
    PresentScreen { padding: 1 2; }
    PresentScreen #present-title { text-style: bold; height: auto; margin-bottom: 1; }
    PresentScreen #cells { height: auto; }
    PresentScreen .cell { width: auto; min-width: 12; height: auto; margin-right: 2; }
    PresentScreen .label { color: $text-accent; text-style: bold; height: 1; }
    PresentScreen .masked { color: $text-muted; width: auto; height: 3;
                            content-align: left middle; }
    PresentScreen Digits { width: auto; }
    PresentScreen .cell.-cursor Digits { color: $text-warning; }
    PresentScreen ExplanationView { height: 1fr; margin-top: 1; }
    """

    BINDINGS = [
        Binding("left", "step(-1)", "Step", show=False),
        Binding("right", "step(1)", "Step"),
        *step_bindings(shown=True),
        Binding("up", "row(-1)", "Row", show=False),
        Binding("down", "row(1)", "Row"),
        Binding("left_square_bracket", "column(-1)", "Key ←"),
        Binding("right_square_bracket", "column(1)", "Key →"),
        Binding("n", "next_beat", "Next beat"),
        Binding("N", "previous_beat", "Previous beat", show=False),
        Binding("p,escape", "leave", "Leave projector mode"),
    ]

    def __init__(self, debugger) -> None:
        super().__init__()
        self.debugger = debugger

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(id="present-title")
            yield Horizontal(id="cells")
            yield ExplanationView(id="present-why")
        yield Footer()  # the keys, as on every other screen

    def on_mount(self) -> None:
        self.show()

    def on_resize(self) -> None:
        self.show()

    def show(self) -> None:
        debugger = self.debugger
        session = debugger.session
        scenario = session.scenario
        stage, head, row = debugger.described, debugger.head, debugger.row
        label = row_labels(scenario, stage)[row]
        columns = column_labels(scenario, stage)
        fits = max(1, (self.size.width - 4) // CELL_WIDTH)
        keyed = debugger.keyed  # (keys, or online softmax's tiles of keys)
        centre = debugger.stage_column if keyed else 0
        first = max(0, min(centre - fits // 2, len(columns) - fits))
        cols = range(first, min(len(columns), first + fits))
        # what is left out is said, never silently gone (at 61 columns not every key fits)
        shown = (
            ""
            if len(cols) == len(columns)
            else (
                f" · {cols.start + 1}–{cols.stop} of {len(columns)}"
                + (" ([ ] for more)" if keyed else "")
            )
        )
        self.query_one("#present-title", Static).update(
            Content(f'Step {debugger.step + 1} · {stage.title} — row "{label}"{shown}')
        )
        window = stage_window(session, stage.name, head, range(row, row + 1), cols)
        cells = self.query_one("#cells", Horizontal)
        cells.remove_children()
        p = scenario.precision
        for j, col in enumerate(cols):
            if window.hidden is not None and window.hidden[0, j]:
                big = None
                text = "? (predict it)"
            elif window.empty is not None and window.empty[0]:
                big, text = None, "nothing to attend to"
            elif (
                window.blocked is not None and window.blocked[0, j]
            ):  # masked, or left out (a skipped tile)
                big, text = (
                    None,
                    (
                        stage.display.skipped_text
                        if stage.arithmetic.skipped is not None
                        else f"{mask_text(scenario.options.mask_value)} masked"
                    ),
                )
            else:
                big, text = big_number(float(window.values[0, j]), p, stage.tiny), ""
            # the cell is as wide as what it shows (12 at least, as .cell's min-width): a longer
            # token is cut there with "…", not silently by the cell's edge
            width = max(12, len(text) if big is None else DigitsRenderable.get_width(big))
            cell = Vertical(
                Static(Content(clip(columns[col], width)), classes="label"),
                Digits(big) if big is not None else Static(Content(text), classes="masked"),
                classes="cell" + (" -cursor" if keyed and col == debugger.stage_column else ""),
            )
            cells.mount(cell)
        predictions = session.predictions
        why = self.query_one(ExplanationView)
        if predictions is not None and predictions.hidden_rows(stage.name, head)[row]:
            why.show(None, [], "Hidden until the row is predicted and revealed")
        else:
            why.show(explain(session.attention, stage.name, row, debugger.column, head=head))

    def action_step(self, delta: int) -> None:
        self.debugger.action_step(delta)
        self.show()

    def action_goto(self, number: int) -> None:
        self.debugger.action_goto(number)
        self.show()

    def action_next_beat(self) -> None:
        self.debugger.action_next_beat()
        self.show()

    def action_previous_beat(self) -> None:
        self.debugger.action_previous_beat()
        self.show()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        delegated = ("goto", "column", "next_beat", "previous_beat")
        return self.debugger.check_action(action, parameters) if action in delegated else True

    def action_row(self, delta: int) -> None:
        self.debugger.action_row(delta)
        self.show()

    def action_column(self, delta: int) -> None:
        self.debugger.action_column(delta)
        self.show()

    def action_leave(self) -> None:
        self.dismiss(None)


def big_number(value: float, decimals: int, tiny: bool) -> str:
    """``value`` as Digits draws it, by the rule of every other view (a non-zero number never
    reads 0): ``1.000e−5`` as ``1.000x10^-5``, since Digits has big x and ^ but no e."""
    text = fixed(value, decimals, tiny).replace("−", "-")
    if "e" in text:
        mantissa, exponent = text.split("e")
        text = f"{mantissa}x10^{exponent}"
    return text
