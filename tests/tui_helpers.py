"""Helpers for the Pilot tests: start the app on a scenario and read what is on screen."""

from __future__ import annotations

from contextlib import asynccontextmanager

from attn_tui.core import load
from attn_tui.core.engine.trace import Trace, trace
from attn_tui.tui.app import AttnApp
from attn_tui.tui.screens.debugger import DebuggerScreen
from attn_tui.tui.widgets.explanation import ExplanationView
from attn_tui.tui.widgets.input_matrix import InputMatrix
from attn_tui.tui.widgets.matrix import MatrixView
from tests.conftest import SCENARIOS

SIZE = (120, 40)


@asynccontextmanager
async def running(path=SCENARIOS / "cat_sat.yaml", size=SIZE, read_only=False):
    app = AttnApp(load(path), read_only=read_only, remember=False)
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        yield app, pilot


def debugger(app: AttnApp) -> DebuggerScreen:
    screen = app.screen
    assert isinstance(screen, DebuggerScreen), screen
    return screen


def debugger_below(app: AttnApp) -> DebuggerScreen:
    """The debugger under whatever screen is on top (the all-heads view, projector mode, a
    dialog)."""
    return next(
        screen for screen in reversed(app.screen_stack) if isinstance(screen, DebuggerScreen)
    )


def stage_view(app: AttnApp) -> MatrixView:
    return app.screen.query_one("#stage", MatrixView)


def matrix(app: AttnApp, name: str) -> InputMatrix:
    return app.screen.query_one(f"#input-{name}", InputMatrix)


def explanation(app: AttnApp) -> str:
    return app.screen.query_one(ExplanationView).plain


def drawn_lines(view: MatrixView) -> list[str]:
    """The lines a matrix view draws now (its own render_line), without the border."""
    height = view.scrollable_content_region.height
    return [view.render_line(y).text for y in range(height)]


def screen_text(app: AttnApp) -> str:
    """Everything the terminal shows, as plain text lines."""
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())


def current(app: AttnApp, variant: str = "") -> Trace:
    """The debugger's numbers now, every stage as dense arrays (the scenario's own, or a
    variant's)."""
    return trace(debugger(app).session.attentions[variant])


async def post(app: AttnApp, *keys: str) -> None:
    """Press keys as the terminal driver posts them, and let each travel through the app's
    queues (Pilot's ``press`` also sleeps about 60 ms a key, which a long test cannot afford)."""
    import asyncio

    from textual import events

    for key in keys:
        app.post_message(
            events.Key(key, "\r" if key == "enter" else (key if len(key) == 1 else None))
        )
        for _ in range(12):
            await asyncio.sleep(0)


def delivered_to_browser(app, monkeypatch) -> list[tuple[bytes, str, str]]:
    """What the app hands a browser (``deliver_binary``: the bytes, the file name, the type),
    recorded instead of sent; the list fills as the app delivers."""
    delivered = []

    def deliver(file, *, save_filename=None, mime_type=None, **rest):
        delivered.append((file.read(), save_filename, mime_type))
        return "key"

    monkeypatch.setattr(app, "deliver_binary", deliver)
    return delivered
