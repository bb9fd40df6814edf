"""``attn-tui --serve``: the app in web browsers, for a class.

textual-serve (the Textual project's own server) starts one app process per browser that
connects, so every student has their own app and their own edits. Each of those apps is
started with ``--save-root FOLDER``: it saves only inside that folder, never over a file it did
not write itself (see ``core.editing.save_root``), and keeps its recovery copies there too, in a
folder of its browser's own named by a cookie the page sets (``--recovery-dir``,
``core.editing.recovery_slots``), so that a Ctrl+C on the server loses no student's edits and a
student who comes back in the same browser is offered theirs.

What is added to textual-serve's server: the page tells the browser to connect back to the
address the browser used, so that a server listening on every address (0.0.0.0) works from
other machines; an app is started only for a page of this server: a web page from elsewhere,
open in the lecturer's browser, cannot start one (browsers let any page open a websocket to
127.0.0.1), nor can one reached under a borrowed name (DNS rebinding); the page loads nothing
from outside this machine; Ctrl+C ends every browser's app at once; at most ``max_apps`` apps
run, counted until each app's process has ended; each browser's websocket is read as hostile
input (``tui.browser_sockets``: a terminal size within bounds); and the console says what a
lecturer needs (the address, the folder, a line per browser), not every request.
"""

from __future__ import annotations

import asyncio
import errno
import hashlib
import ipaddress
import logging
import os
import re
import secrets
import shlex
import socket
import sys
import tempfile

from aiohttp import web
from textual_serve.server import Server

from attn_tui.core.editing.save_root import RECOVERY_FOLDER
from attn_tui.core.text import visible
from attn_tui.tui.browser_sockets import run_app

log = logging.getLogger("attn-tui")
WILDCARDS = ("0.0.0.0", "::", "")  # every address of this machine
GOOGLE_FONT = re.compile(r'<link\s[^>]*href="https://fonts\.googleapis\.com/[^"]*"[^>]*>')
LOCAL_FONT = (
    '<style>@font-face { font-family: "Roboto Mono"; '
    'src: url("/static/fonts/RobotoMono-VariableFont_wght.ttf"); }</style>'
)


class ServeError(Exception):
    """The server cannot start; the message is one line saying why."""


COOKIE = "attn-tui-browser"  # a random name for the browser: its apps' recovery copies go by it
COOKIE_DAYS = 30


class ClassServer(Server):
    """textual-serve's server, with the checks above and a banner of its own; with ``folder``
    (the class folder), each browser's apps keep their recovery copies in a folder of that
    browser's own there (``core.editing.recovery_slots``)."""

    def __init__(
        self,
        command: str,
        host: str,
        port: int,
        banner: str,
        max_apps: int,
        folder: str | None = None,
    ) -> None:
        super().__init__(command, host=host, port=port, title="attn-tui")
        self.banner = banner
        self.max_apps = max_apps
        self.folder = folder
        self.loopback_only = is_loopback(host)
        self.connections: set[asyncio.Task] = set()  # one per browser, each running its app
        # apps started and not yet ended: taken as a browser is let in, given back only once
        # its app's process has exited (a reconnect storm had run 46 apps against 40)
        self.apps = 0

    def command_for(self, request: web.Request) -> str:
        """The command that starts this browser's app: with its recovery folder, named after
        the digest of its cookie, or (without a cookie this server made) a folder of its own."""
        if self.folder is None:
            return self.command
        token = request.cookies.get(COOKIE, "")
        if not re.fullmatch(r"[0-9a-f]{32}", token):
            token = secrets.token_hex(16)  # copies kept all the same, but for this app alone
        name = hashlib.sha256(token.encode()).hexdigest()[:32]
        folder = os.path.join(self.folder, RECOVERY_FOLDER, name)
        return f"{self.command} --recovery-dir {shlex.quote(folder)}"

    def initialize_logging(self) -> None:
        super().initialize_logging()
        # a line per browser (below) rather than aiohttp's line per request, browser and all
        logging.getLogger("aiohttp.access").setLevel(logging.WARNING)
        # At Ctrl+C, asyncio may reap an app's shell before its own watcher does and then says
        # so; the apps have ended all the same.
        logging.getLogger("asyncio").addFilter(
            lambda record: not record.getMessage().startswith("Unknown child process pid")
        )

    async def on_startup(self, app: web.Application) -> None:
        # instead of textual-serve's logo and the full command line
        print(self.banner, flush=True)

    async def on_shutdown(self, app: web.Application) -> None:
        # aiohttp waits for open requests before it stops, and a browser's connection never
        # ends by itself: Ctrl+C took 20 s with one browser open. Cancelled, textual-serve
        # closes the connection and ends that browser's app at once.
        for connection in self.connections:
            connection.cancel()

    async def handle_index(self, request: web.Request) -> web.StreamResponse:
        self.refuse_foreign(request)
        self.refuse_past_max()
        # The page's websocket and static addresses are built from public_url, read before
        # the first await of the handler: set per request, it is the one this browser used.
        self.public_url = f"{request.scheme}://{request.host}"
        page = await super().handle_index(request)
        # textual-serve's page takes its font from Google: a classroom network without the
        # internet would hold the page up, and every student's address would go to Google.
        # The same font ships with textual-serve; the page takes it from here instead.
        page.text = GOOGLE_FONT.sub(LOCAL_FONT, page.text)
        if not re.fullmatch(r"[0-9a-f]{32}", request.cookies.get(COOKIE, "")):
            # HttpOnly: no script reads it. Lax, not Strict: a student who follows the class's
            # link from another site (a course page) must keep their cookie, which Strict would
            # not send there, and a new one would be set; another site's page still cannot start
            # an app with it (refuse_foreign)
            page.set_cookie(
                COOKIE,
                secrets.token_hex(16),
                max_age=COOKIE_DAYS * 86400,
                path="/",
                httponly=True,
                samesite="Lax",
            )
        return page

    async def handle_websocket(self, request: web.Request) -> web.StreamResponse:
        """textual-serve's, with the checks above, the terminal's size held within bounds, and
        the browser's slot held until its app has exited."""
        self.refuse_foreign(request)
        self.refuse_past_max()  # (a page loaded before the class filled); counted at once, below
        self.apps += 1  # (no await since the check: no other browser between them)
        connection = asyncio.current_task()
        self.connections.add(connection)
        command = self.command_for(request)
        log.info("a browser connected from %s: %s", visible(request.remote or "?"), self.running())
        try:
            return await run_app(request, command, self.download_manager, self.debug)
        finally:
            self.connections.discard(connection)
            self.apps -= 1
            log.info("a browser left: %s", self.running())

    def running(self) -> str:
        return f"{self.apps} app{'' if self.apps == 1 else 's'} running"

    def refuse_past_max(self) -> None:
        """503 and a plain page once ``max_apps`` apps are running."""
        if self.apps >= self.max_apps:
            log.warning("refused a browser: the class is full (%s)", self.running())
            raise web.HTTPServiceUnavailable(
                text=f"attn-tui: the class is full: {self.apps} apps are running, "
                f"the most this server starts (--max-apps {self.max_apps}). "
                "Try again when someone leaves.\n",
                headers={"Retry-After": "30"},
            )

    def refuse_foreign(self, request: web.Request) -> None:
        """403 for a request that is not from a page of this server."""
        origin = request.headers.get("Origin")
        if origin is not None and origin.lower().partition("://")[2] != request.host.lower():
            log.warning("refused a request from a page of %s", visible(origin))
            raise web.HTTPForbidden(
                text="attn-tui: an app is started only for this server's own page"
            )
        if self.loopback_only:
            try:
                asked = request.url.host or ""
            except ValueError:
                asked = ""
            if not is_loopback(asked):
                log.warning("refused a request for host %s", visible(request.host))
                raise web.HTTPForbidden(text="attn-tui: this server answers only on this machine")


def is_loopback(host: str) -> bool:
    """Whether ``host`` (a name or an address) means this machine only."""
    if host.lower().rstrip(".") == "localhost" or host.lower().endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def app_command(
    scenario: str | None,
    folder: str,
    lesson: bool = False,
    follow: str | None = None,
    names: bool = False,
    record_names: bool = False,
) -> str:
    """The shell command that starts one browser's app (textual-serve runs it with a shell):
    playing the scenario's lesson with ``lesson``, following the channel at ``follow``, asking
    the student's first name with ``names`` (saying it is recorded with ``record_names``)."""
    # the same Python and the same attn_tui as this server (-m, from the same working folder)
    words = [sys.executable, "-m", "attn_tui", "open", "--save-root", folder]
    words += (
        ["--lesson"] * lesson
        + (["--follow-from", follow] if follow else [])
        + (["--ask-name", "recorded" if record_names else "yes"] if names else [])
    )
    return shlex.join(words + ([scenario] if scenario else []))


def public_address(host: str, port: int) -> str:
    """The address to give students: for every address (0.0.0.0, ::), this machine's name."""
    if host in WILDCARDS:
        host = socket.gethostname()
    elif ":" in host:
        host = f"[{host}]"
    return f"http://{host}:{port}"


def check_port(host: str, port: int) -> None:
    """``ServeError`` unless ``host:port`` can be listened on now (as aiohttp will)."""
    try:
        addresses = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as error:
        raise ServeError(f"cannot serve on host {visible(host)}: {error.strerror}") from None
    for family, kind, protocol, _, address in addresses:
        with socket.socket(family, kind, protocol) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as asyncio does
            try:
                probe.bind(address)
            except OSError as error:
                raise ServeError(bind_problem(host, port, error)) from None


def bind_problem(host: str, port: int, error: OSError) -> str:
    if error.errno == errno.EADDRINUSE:
        return f"port {port} is in use on {visible(host)}; choose another with --port"
    if error.errno == errno.EADDRNOTAVAIL:
        return f"{visible(host)} is not an address of this machine; try --host 127.0.0.1"
    return f"cannot serve on {visible(host)}:{port}: {error.strerror or error}"


FIRST_SECONDS = (
    2  # textual-serve's page shows nothing until its app has started (benchmarks/serve.py)
)


def banner(label: str, host: str, port: int, folder: str, note: str = "") -> str:
    """What the lecturer reads at start: the address, where saves go, and a warning if any
    machine but this one can connect."""
    where = public_address(host, port)
    if host in WILDCARDS:
        where += " (or this machine's IP address, if its name is not known on the network)"
    lines = [
        f"attn-tui: serving {visible(label)} at {where}",
        f"  every browser that opens it gets its own app; saves go to {visible(folder)}",
        f"  a browser's page stays blank for its first {FIRST_SECONDS} seconds or so "
        "while its app starts: wait rather than reload",
    ]
    if note:
        lines.append(f"  {note}")
    if not is_loopback(host):
        lines.append(
            f"  warning: listening on {visible(host)}, not only on this machine: anyone who "
            f"reaches port {port} gets an app (there is no password)"
        )
    lines.append("  Ctrl+C stops it; saved work stays in that folder")
    return "\n".join(lines)


def serve_folder(folder: str | None) -> str:
    """The folder served apps save in, made if need be: by default a new temporary one."""
    if folder is None:
        return tempfile.mkdtemp(prefix="attn-tui-class-")
    if os.path.exists(folder) and not os.path.isdir(folder):
        raise ServeError(
            f"--serve-dir {visible(folder)} is a file, not a folder; give a folder (it is "
            "made if missing)"
        )
    try:
        os.makedirs(folder, exist_ok=True)
    except OSError as error:
        raise ServeError(f"--serve-dir {visible(folder)}: {error.strerror or error}") from None
    return os.path.realpath(folder)


def serve(
    scenario: str | None,
    label: str,
    host: str,
    port: int,
    folder: str | None,
    max_apps: int,
    lesson: bool = False,
    follow: str | None = None,
    names: bool = False,
    record_names: bool = False,
) -> None:
    """Serve the app on ``host:port`` until Ctrl+C, at most ``max_apps`` at once, its apps
    saving in ``folder`` (default: a new temporary folder), playing the scenario's lesson with
    ``lesson``, following the teacher's channel at ``follow``; ``ServeError`` if it cannot start."""
    check_port(host, port)
    folder = serve_folder(folder)
    before = set(os.listdir(folder))
    note = (
        "every browser follows the beats of the teacher's terminal "
        "(f in a browser leaves and rejoins)"
        if follow
        else "every browser plays the lesson, at its own pace"
        if lesson
        else ""
    )
    server = ClassServer(
        app_command(scenario, folder, lesson, follow, names, record_names),
        host,
        port,
        banner(label, host, port, folder, note),
        max_apps,
        folder,
    )
    try:
        server.serve()
    except OSError as error:  # taken between the check and the start
        raise ServeError(bind_problem(host, port, error)) from None
    new = len(set(os.listdir(folder)) - before - {RECOVERY_FOLDER})
    print(
        f"attn-tui: stopped; {new} new file{'' if new == 1 else 's'} in {visible(folder)}",
        flush=True,
    )
    kept = unsaved_browsers(folder)
    if kept:
        print(
            f"  {kept} browser{' has' if kept == 1 else 's have'} unsaved edits, kept in "
            f"{visible(os.path.join(folder, RECOVERY_FOLDER))}: serve again with --serve-dir "
            f"{visible(shlex.quote(folder))} and each student who opens the page in the same "
            "browser is offered theirs",
            flush=True,
        )


def unsaved_browsers(folder: str) -> int:
    """How many browsers' apps left recovery copies in the class folder; the folders of those
    that left none go (every page a script opens with a fresh cookie would leave one)."""
    root = os.path.join(folder, RECOVERY_FOLDER)
    try:
        browsers = os.listdir(root)
    except OSError:
        return 0
    found = 0
    for name in browsers:
        browser = os.path.join(root, name)
        if any(
            file.endswith(".attn-recover") for _, _, files in os.walk(browser) for file in files
        ):
            found += 1
            continue
        try:  # only what the apps made: a lock file in each numbered slot (nothing else is touched)
            for slot in os.listdir(browser):
                if set(os.listdir(os.path.join(browser, slot))) <= {"in-use"}:
                    if os.path.lexists(os.path.join(browser, slot, "in-use")):
                        os.unlink(os.path.join(browser, slot, "in-use"))
                    os.rmdir(os.path.join(browser, slot))
            os.rmdir(browser)
        except OSError:
            continue  # anything else there: left as it is
    return found
