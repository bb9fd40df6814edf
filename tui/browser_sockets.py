"""A browser's websocket and the app it drives, for ``attn-tui serve`` (``tui.serve``): what
textual-serve's own handler does, reading what the page sends as the hostile input it is. The
terminal a page asks for is held within bounds (a page may ask for anything: 3000 × 3000 made
one app take 239 MB and send 29.5 MB in 15 s); a message that is not one of textual-serve's is
ignored rather than ending the connection with a traceback; and the app's process is waited for
to its end (killed if it lingers), so that the server's count of running apps is of processes,
not of connections (a reconnect storm had run 46 apps against --max-apps 40: a connection was
forgotten while its app was still ending)."""

from __future__ import annotations

import asyncio
import logging

from aiohttp import WSMsgType, web
from textual_serve.app_service import AppService

log = logging.getLogger("attn-tui")

# The largest terminal a browser may ask its app for: a 4K screen at a small font is about
# 400 × 120 cells.
MAX_COLUMNS, MAX_ROWS = 400, 150
MIN_COLUMNS, MIN_ROWS = 20, 6
APP_EXIT_SECONDS = 5  # an app told to quit that has not ended by then is killed


def terminal_size(width: object, height: object) -> tuple[int, int]:
    """The size a browser asked for (any JSON or query text), as an app is given it: whole
    cells, within MIN_… and MAX_… (80 × 24 for what is not a number)."""
    return (
        _within(width, 80, MIN_COLUMNS, MAX_COLUMNS),
        _within(height, 24, MIN_ROWS, MAX_ROWS),
    )


def _within(value: object, default: int, low: int, high: int) -> int:
    if isinstance(value, bool):
        return default
    try:
        number = int(float(value))  # (the page sends whole cells; a query, text)
    except (TypeError, ValueError, OverflowError):
        return default
    return min(high, max(low, number))


class ServedApp(AppService):
    """textual-serve's AppService, its app started as the shell's own process (exec) and waited
    for to its end: a browser's place in the class is free only once its app has gone."""

    async def ended(self) -> None:
        process = self._process
        if process is None:
            return
        try:
            await asyncio.wait_for(process.wait(), APP_EXIT_SECONDS)
        except asyncio.TimeoutError:
            try:
                process.kill()
            except ProcessLookupError:
                pass
            await process.wait()


async def run_app(request: web.Request, command: str, downloads, debug: bool) -> web.StreamResponse:
    """The browser's websocket, driving an app started with ``command``, until either ends; the
    app has exited when this returns."""
    websocket = web.WebSocketResponse(heartbeat=15)
    width, height = terminal_size(request.query.get("width"), request.query.get("height"))
    app: ServedApp | None = None
    try:
        await websocket.prepare(request)
        app = ServedApp(
            f"exec {command}",  # the app is the process: it is the one waited for, or killed
            write_bytes=websocket.send_bytes,
            write_str=websocket.send_str,
            close=websocket.close,
            download_manager=downloads,
            debug=debug,
        )
        await app.start(width, height)
        await read_messages(websocket, app)
    except asyncio.CancelledError:
        await websocket.close()
    except Exception as error:
        log.exception(error)
    finally:
        if app is not None:
            await app.stop()
            await app.ended()
    return websocket


async def read_messages(websocket: web.WebSocketResponse, app: AppService) -> None:
    """textual-serve's messages from the page, each checked: keys, a size within bounds, a ping,
    focus and blur; anything else ignored."""
    async for message in websocket:
        if message.type != WSMsgType.TEXT:
            continue
        try:
            kind, data = message.json()
        except (ValueError, TypeError):
            continue
        if kind == "stdin" and isinstance(data, str):
            await app.send_bytes(data.encode("utf-8"))
        elif kind == "resize" and isinstance(data, dict):
            await app.set_terminal_size(*terminal_size(data.get("width"), data.get("height")))
        elif kind == "ping" and isinstance(data, (str, int, float)):
            await websocket.send_json(["pong", data])
        elif kind == "blur":
            await app.blur()
        elif kind == "focus":
            await app.focus()
