"""DecodeViewScreen: the tokens a model generated (a scenario with ``generated:``, written by
``attn-tui capture --generate``), stepped through one at a time. Each step shows the text so
far, the token the model chose next and the probability it gave it, and where the token before
it looked: its row of weights over every token up to itself, the KV cache it read at that step.
←/→ choose the step, h the head, Enter opens the debugger at that row (Esc there comes back).

The weights are core's, computed from the scenario for the one row shown; the screen holds no
arithmetic of its own.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Static

from attn_tui.core.model.scenario import Scenario
from attn_tui.core.text import visible
from attn_tui.tui.key_bindings import decode_view_bindings
from attn_tui.tui.screens.debugger import DebuggerScreen
from attn_tui.tui.widgets.key_footer import KeyFooter

BAR_WIDTH = 30  # characters of the longest weight's bar
STEPS_SHOWN = 9  # steps listed around the chosen one
TOKEN_WIDTH = 14  # characters of a token in the lists (longer ones end in …)


class DecodeViewScreen(Screen):
    DEFAULT_CSS = """
    DecodeViewScreen #decode-title { height: auto; padding: 0 1; text-style: bold; }
    DecodeViewScreen #decode-hint { height: auto; padding: 0 1; color: $text-muted; }
    DecodeViewScreen #decode-text { height: auto; padding: 0 1; margin-bottom: 1; }
    DecodeViewScreen #decode-steps { height: auto; padding: 0 1; margin-bottom: 1; }
    DecodeViewScreen #decode-row { height: 1fr; padding: 0 1; }
    """

    BINDINGS = decode_view_bindings("step(-1)", "step(1)", "next_head", "open")

    def __init__(self, scenario: Scenario) -> None:
        super().__init__()
        if scenario.generated is None:
            raise ValueError("the decode view needs a scenario with generated:")
        self.scenario = scenario
        self.generation = scenario.generated
        self.step = 0  # counted from 0: the first token the model chose
        self.head = 0
        self._attention = None
        self._kept: tuple[tuple[int, int], DebuggerScreen] | None = None

    def compose(self) -> ComposeResult:
        yield Static(Content(visible(self.scenario.title)), id="decode-title")
        yield Static("", id="decode-hint")
        yield Static("", id="decode-text")
        yield Static("", id="decode-steps")
        with VerticalScroll(id="decode-row"):
            yield Static("", id="decode-weights")
        yield KeyFooter()

    def on_mount(self) -> None:
        self._show()

    # ---- keys ----------------------------------------------------------------------------------

    def action_step(self, by: int) -> None:
        self.step = max(0, min(self.generation.steps - 1, self.step + by))
        self._show()

    def action_next_head(self) -> None:
        self.head = (self.head + 1) % self.scenario.heads
        self._show()

    def action_open(self) -> None:
        """The debugger at the row that chose this step's token, on this head."""
        from dataclasses import replace

        row = self.generation.deciding_row(self.step)
        if self._kept is not None and self._kept[0] == (row, self.head):
            debugger = self._kept[1]
        else:
            self._forget_kept()
            debugger = GenerationDebugger(self.scenario)
            debugger.put(replace(debugger.position, row=row, head=self.head))
            self.app.install_screen(debugger, f"decode-{id(debugger)}")
            self._kept = ((row, self.head), debugger)
        self.app.push_screen(debugger)

    def on_screen_resume(self) -> None:
        if self._kept is not None and self._kept[1].session.modified:  # its edits were discarded
            self._kept[1].session.journal.keep = False
            self._forget_kept()

    def _forget_kept(self) -> None:
        if self._kept is not None:
            debugger, self._kept = self._kept[1], None
            self.app.uninstall_screen(debugger)
            debugger.remove()

    # ---- what is shown -------------------------------------------------------------------------

    def weights_row(self, step: int, head: int):
        """The weights of the row that chose step ``step``'s token, over the tokens up to it."""
        from attn_tui.core.engine.attention import Attention

        if self._attention is None:
            self._attention = Attention(self.scenario)
        row = self.generation.deciding_row(step)
        return self._attention.values("softmax", head, range(row, row + 1), range(row + 1))[0]

    def _show(self) -> None:
        generation, tokens = self.generation, self.scenario.tokens
        step, row = self.step, self.generation.deciding_row(self.step)
        chosen = tokens[generation.chosen_row(step)]
        name = self.scenario.head_names[self.head]
        self.query_one("#decode-hint", Static).update(
            Content(
                f"Step {step + 1} of {generation.steps} · {visible(name)} "
                f"({self.head + 1} of {self.scenario.heads}) · the prompt is "
                f"{generation.prompt} tokens; the model chose each token after it, greedily. "
                "←→ step, h head, Enter opens this row in the debugger."
            )
        )
        text = Content.assemble(
            *[(_token(token) + " ", "dim") for token in tokens[: generation.prompt]],
            *[_token(token) + " " for token in tokens[generation.prompt : row + 1]],
            (_token(chosen), "bold reverse"),
        )
        self.query_one("#decode-text", Static).update(text)
        first = max(0, min(step - STEPS_SHOWN // 2, generation.steps - STEPS_SHOWN))
        lines = []
        for s in range(first, min(generation.steps, first + STEPS_SHOWN)):
            reading = _short(_token(tokens[generation.deciding_row(s)]))
            picked = _short(_token(tokens[generation.chosen_row(s)]))
            line = (
                f"{'▶' if s == step else ' '} step {s + 1:>3}  {reading:>{TOKEN_WIDTH}} → "
                f"{picked:<{TOKEN_WIDTH}}  p = {generation.p[s]:.3f}"
            )
            lines.append((line + "\n", "bold" if s == step else ""))
        self.query_one("#decode-steps", Static).update(Content.assemble(*lines))
        weights = self.weights_row(step, self.head)
        largest = max(float(weights.max()), 1e-12)
        rows = [
            (
                f'Where "{_short(_token(tokens[row]))}" looked ({visible(name)}), reading the KV '
                f"cache of {row + 1} tokens, to choose "
                f'"{_short(_token(chosen))}" (p = {generation.p[step]:.3f}):\n',
                "bold",
            )
        ]
        for key, weight in enumerate(weights):
            bar = "█" * round(BAR_WIDTH * float(weight) / largest)
            rows.append(
                f"  {_short(_token(tokens[key])):<{TOKEN_WIDTH}} {float(weight):.3f} {bar}\n"
            )
        self.query_one("#decode-weights", Static).update(Content.assemble(*rows))


class GenerationDebugger(DebuggerScreen):
    """The debugger opened from the decode view: Esc goes back to the steps."""

    BINDINGS = decode_view_bindings("back_to_decode")

    def action_back_to_decode(self) -> None:
        self.app._unless_unsaved(self.app.pop_screen)


def _token(token: str) -> str:
    return visible(token)


def _short(text: str) -> str:
    return text if len(text) <= TOKEN_WIDTH else text[: TOKEN_WIDTH - 1] + "…"
