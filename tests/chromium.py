"""Headless Chromium driven over its DevTools protocol, to read a served app's terminal as text.

Only what pip installs is used: aiohttp (which textual-serve brings) speaks the protocol's
websocket; the browser is Debian's ``chromium``. textual-serve's page draws the terminal with
xterm.js on a canvas, so there is no text in the page to read, and its xterm.js object is
local to the page's script. A conditional breakpoint on the line that writes the app's output
into the terminal hands that object to the page (its condition stores it and is false, so the
page never stops); from then on the terminal's own buffer is read, line by line.
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import shutil
import signal
import time
from itertools import count
from pathlib import Path

import aiohttp

CHROMIUM = shutil.which("chromium")
# the flags that work here: as root, without a display or a network
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--remote-debugging-port=0",
    "--window-size=1280,800",
]
HOOK = "this.terminal.write("  # in textual-serve's textual.js, where output reaches xterm.js
READ_SCREEN = """(() => {
  const terminal = window.__attnTerminal;
  if (!terminal) return null;
  const buffer = terminal.buffer.active, lines = [];
  for (let y = 0; y < terminal.rows; y++) lines.push(buffer.getLine(y).translateToString(true));
  return lines.join("\\n");
})()"""


def hook_location() -> tuple[int, int]:
    """Line and column (from 0) of :data:`HOOK` in the installed textual-serve's script."""
    import textual_serve

    script = Path(textual_serve.__file__).parent / "static" / "js" / "textual.js"
    text = script.read_text(encoding="utf-8")
    if text.count(HOOK) != 1:
        raise RuntimeError(
            f"{script} has {text.count(HOOK)} places that write to the terminal "
            f"({HOOK!r}), not 1: textual-serve changed; update tests/chromium.py"
        )
    offset = text.index(HOOK)
    return text.count("\n", 0, offset), offset - (text.rfind("\n", 0, offset) + 1)


class Chromium:
    """One headless browser with a fresh profile in ``folder``; ``async with`` it."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.process: asyncio.subprocess.Process | None = None
        self.http: aiohttp.ClientSession | None = None
        self.port = 0

    async def __aenter__(self) -> Chromium:
        profile = self.folder / "profile"
        profile.mkdir(parents=True)
        self.process = await asyncio.create_subprocess_exec(
            CHROMIUM,
            *FLAGS,
            f"--user-data-dir={profile}",
            "about:blank",
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.DEVNULL,
            start_new_session=True,
        )  # its helpers share its group, so all of them can be ended
        port_file = profile / "DevToolsActivePort"  # Chromium writes its port here when ready
        await wait_until(
            lambda: port_file.exists() and port_file.read_text().strip(),
            15,
            "Chromium did not start",
        )
        self.port = int(port_file.read_text().split()[0])
        self.http = aiohttp.ClientSession()
        return self

    async def __aexit__(self, *exc_info) -> None:
        if self.http is not None:
            await self.http.close()
        if self.process is not None:
            await end_group(self.process)

    async def new_page(self) -> Page:
        """A new tab, connected and ready to load a served app."""
        async with self.http.put(f"http://127.0.0.1:{self.port}/json/new?about:blank") as response:
            target = await response.json()
        socket = await self.http.ws_connect(target["webSocketDebuggerUrl"], max_msg_size=0)
        page = Page(socket)
        line, column = hook_location()
        await page.call("Debugger.enable")
        await page.call(
            "Debugger.setBreakpointByUrl",
            urlRegex=r"/static/js/textual\.js",
            lineNumber=line,
            columnNumber=column,
            condition="(window.__attnTerminal = this.terminal, false)",
        )
        await page.call("Page.enable")
        return page


class Page:
    """One tab: commands over its DevTools websocket, and the terminal's text."""

    def __init__(self, socket: aiohttp.ClientWebSocketResponse) -> None:
        self.socket = socket
        self.ids = count(1)

    async def call(self, method: str, **params) -> dict:
        """Send one command and return its result (events in between are not needed)."""
        number = next(self.ids)
        await self.socket.send_json({"id": number, "method": method, "params": params})
        async for message in self.socket:
            if message.type != aiohttp.WSMsgType.TEXT:
                break
            answer = json.loads(message.data)
            if answer.get("id") == number:
                if "error" in answer:
                    raise RuntimeError(f"{method}: {answer['error']}")
                return answer["result"]
        raise RuntimeError(f"{method}: the browser closed the connection")

    async def open(self, url: str) -> None:
        await self.call("Page.navigate", url=url)

    async def evaluate(self, expression: str):
        """The value of a JavaScript expression in the page."""
        result = await self.call("Runtime.evaluate", expression=expression, returnByValue=True)
        return result["result"].get("value")

    async def screen(self) -> str:
        """The terminal's text, one line per row ('' before the app has drawn anything)."""
        return await self.evaluate(READ_SCREEN) or ""

    async def wait_for(self, text: str, timeout: float = 10, gone: bool = False) -> str:
        """The screen, once it shows ``text`` (with ``gone``: once it does not); otherwise
        ``AssertionError`` with the screen."""
        deadline = time.monotonic() + timeout
        while True:
            screen = await self.screen()
            if (text in screen) != gone:
                return screen
            if time.monotonic() > deadline:
                state = "still" if gone else "not"
                raise AssertionError(f"{text!r} {state} on screen after {timeout} s:\n{screen}")
            await asyncio.sleep(0.05)

    async def press(self, key: str, ctrl: bool = False) -> None:
        """A key as a person types it (a letter, a digit or enter, with ctrl or not): into
        the focused terminal, down and up."""
        # a tab behind another gets keydown but no text input: bring it to the front first
        await self.call("Page.bringToFront")
        await self.evaluate("window.__attnTerminal.focus()")
        if key == "enter":
            event = {"key": "Enter", "code": "Enter", "windowsVirtualKeyCode": 13, "text": "\r"}
        else:
            code = f"Digit{key}" if key.isdigit() else f"Key{key.upper()}"
            event = {"key": key, "code": code, "windowsVirtualKeyCode": ord(key.upper())}
            if not ctrl:
                event["text"] = key
        modifiers = 2 if ctrl else 0
        await self.call("Input.dispatchKeyEvent", type="keyDown", modifiers=modifiers, **event)
        event.pop("text", None)
        await self.call("Input.dispatchKeyEvent", type="keyUp", modifiers=modifiers, **event)

    async def type(self, text: str) -> None:
        """Type ``text`` into the terminal through xterm.js's own input, which key events end
        in too: under load, Chromium sometimes dropped a printable key sent as key events."""
        await self.evaluate(f"window.__attnTerminal.input({json.dumps(text)})")

    async def type_into_field(self, text: str, attempts: int = 3) -> str:
        """Type ``text`` into a focused text field and wait until it shows. Under load (two
        workers beside Chromium) xterm.js's input has been seen to vanish whole, the field
        left empty (CI, stop 31): then the field is cleared (ctrl+u) and the text typed again,
        so a lost key fails only if it is lost every time."""
        for attempt in range(attempts):
            await self.type(text)
            try:
                return await self.wait_for(text, timeout=5)
            except AssertionError:
                if attempt == attempts - 1:
                    raise
                await self.press("u", ctrl=True)
        raise AssertionError("unreachable")

    async def close(self) -> None:
        """Close the tab (its websocket too: navigating away may keep the page, and with it
        the connection and its app, in the back-forward cache)."""
        await self.call("Page.close")
        await self.socket.close()

    async def screenshot(self, path: Path) -> None:
        result = await self.call("Page.captureScreenshot", format="png")
        path.write_bytes(base64.b64decode(result["data"]))


async def wait_until(condition, timeout: float, failure: str) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"{failure} within {timeout} s")
        await asyncio.sleep(0.02)


async def end_group(process: asyncio.subprocess.Process, grace: float = 5) -> None:
    """End a process started in a session of its own, and everything it started: politely
    (SIGTERM), then for sure (SIGKILL to the whole group)."""
    if process.returncode is None:
        process.send_signal(signal.SIGTERM)
        try:
            await asyncio.wait_for(process.wait(), grace)
        except asyncio.TimeoutError:
            pass
    try:
        os.killpg(process.pid, signal.SIGKILL)  # any helper left behind
    except ProcessLookupError:
        pass
    await process.wait()


def group_members(group: int) -> list[int]:
    """The live processes of a process group (from /proc)."""
    members = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if int(fields[2]) == group and fields[0] != "Z":
            members.append(int(entry))
    return members
