"""``attn-tui --serve FILE --follow``: the teacher's terminal leads a served class.

This process opens the follow channel (``tui.follow``), starts the class's server as a child
process (``serve FILE --lesson --follow-from CHANNEL``: every browser's app plays the lesson
and follows the channel), waits for it to say it is serving, then runs the teacher's own app
in this terminal, which publishes its beat on the channel at every n and N. When the teacher
quits, the server is stopped (as Ctrl+C stops it: every browser's app ends) and its last words
are printed.
"""

from __future__ import annotations

import errno
import os
import signal
import subprocess
import sys
import tempfile
import time

from attn_tui.core.text import visible
from attn_tui.tui.classroom import Classroom
from attn_tui.tui.follow import Leader, channel_socket
from attn_tui.tui.serve import check_port, public_address

STARTED = "Ctrl+C stops it"  # the last line of the server's banner
ENDING_SIGNALS = (
    signal.SIGHUP,
    signal.SIGTERM,
)  # end the teacher's app as a closed terminal or kill does
START_TIMEOUT = 30


def lead_class(
    scenario,
    label: str,
    host: str,
    port: int,
    folder: str | None,
    max_apps: int,
    read_only: bool,
    debug: bool,
    responses: str | None = None,
    names: bool = False,
    record_names: bool = False,
) -> int:
    from attn_tui.tui.cli import EXIT_USAGE, say, start_app

    try:
        check_port(host, port)
    except Exception as error:  # ServeError: said as the server would say it
        say(f"attn-tui: {error}")
        return EXIT_USAGE
    if responses:
        problem = _log_problem(responses)
        if problem:
            say(f"attn-tui: --responses {visible(responses)}: {problem}")
            return EXIT_USAGE
    listener, channel = channel_socket()
    leader = Leader(listener, channel)
    leader.max_followers = max_apps  # (terminals that --join count too)
    log = tempfile.NamedTemporaryFile("w+", prefix="attn-tui-class-", suffix=".log", delete=False)
    command = (
        [
            sys.executable,
            "-m",
            "attn_tui",
            "serve",
            scenario.path,
            "--lesson",
            "--follow-from",
            channel,
            "--host",
            host,
            "--port",
            str(port),
            "--max-apps",
            str(max_apps),
        ]
        + (["--serve-dir", folder] if folder else [])
        + ["--names"] * names
        + ["--record-names"] * record_names
    )
    server = subprocess.Popen(
        command,
        stdout=log,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        banner = _wait_for_banner(server, log.name)
        if banner is None:
            said = _read(log.name).strip().splitlines()
            say(
                "attn-tui: the class's server did not start: "
                f"{said[-1] if said else 'it said nothing'}"
            )
            return EXIT_USAGE
        classroom = Classroom(
            play=True,
            leader=leader,
            address=public_address(host, port),
            names=names,
            record_names=record_names,
            responses=responses,
            channel=channel,
        )
        before = {
            number: signal.signal(number, _ending(server, leader)) for number in ENDING_SIGNALS
        }
        try:
            return start_app(scenario, read_only=read_only, debug=debug, classroom=classroom)
        finally:
            for number, handler in before.items():
                signal.signal(number, handler)
    finally:
        _stop(server)
        said = _read(log.name)
        if said:
            print(visible(said, multiline=True).rstrip(), flush=True)
        leader.close()
        log.close()
        os.unlink(log.name)


def _ending(server: subprocess.Popen, leader: Leader):
    """A handler for a signal that ends the teacher's app without its finally clauses (the
    terminal closed: SIGHUP; kill: SIGTERM): the class's server and channel go first, then the
    signal does what it would have done. Without it the server went on serving, the students'
    apps waiting for a teacher who had gone, and held the port."""

    def end(number, frame) -> None:
        _stop(server)
        leader.close()
        signal.signal(number, signal.SIG_DFL)
        os.kill(os.getpid(), number)

    return end


def _log_problem(path: str) -> str | None:
    """Why answers cannot be appended to ``path`` (None: they can), said before the class starts."""
    from attn_tui.core.classroom.log import ResponseLog

    try:
        ResponseLog(path).close()
    except OSError as error:
        return (
            "it is a link: give the file itself"
            if error.errno == errno.ELOOP
            else (error.strerror or str(error))
        )
    return None


def _wait_for_banner(server: subprocess.Popen, log: str) -> str | None:
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        text = _read(log)
        if STARTED in text:
            return text
        if server.poll() is not None:
            return None
        time.sleep(0.05)
    return None


def _read(path: str) -> str:
    try:
        with open(path, encoding="utf-8", errors="replace") as file:
            return file.read(64 * 1024)
    except OSError:
        return ""


def _stop(server: subprocess.Popen) -> None:
    """As Ctrl+C would: the server ends every browser's app, then itself."""
    if server.poll() is None:
        try:
            os.killpg(server.pid, signal.SIGINT)
            server.wait(15)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            pass
    if server.poll() is None:
        try:
            os.killpg(server.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        server.wait()
