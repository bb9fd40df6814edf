"""The terminal driver (tui/driver.py): a lone Esc is the Esc key as soon as its wait is over,
and the sequences that begin with ESC are still the keys they were (an arrow, Alt+x, a paste).
The app runs on a pseudo-terminal, with Textual's own parser reading the bytes."""

from __future__ import annotations

import os
import pty
import select
import sys
import time

import pytest

from attn_tui.tui.app import AttnApp
from attn_tui.tui.driver import IDLE_WAIT, Driver, PasteTracker, wait_for
from tests.conftest import ROOT

KEYS_APP = r"""
from textual.app import App
from textual.widgets import Static
from attn_tui.tui.driver import Driver

class Keys(App):
    def compose(self):
        self.seen = []
        yield Static("keys:", id="s")
    def on_mount(self):
        self.query_one("#s").update("keys: " + type(self._driver).__module__)
    def on_key(self, event):
        self.seen.append(event.key)
        self.query_one("#s").update("keys: " + " ".join(self.seen) + " .")
    def on_paste(self, event):
        self.seen.append("paste:" + event.text)
        self.query_one("#s").update("keys: " + " ".join(self.seen) + " .")
Keys(driver_class=Driver).run()
"""


def read_until(fd: int, output: bytearray, wanted: bytes, seconds: float = 30) -> None:
    end = time.monotonic() + seconds
    while wanted not in output:
        left = end - time.monotonic()
        assert left > 0, f"{wanted!r} not on the terminal in {seconds} s: {bytes(output[-400:])!r}"
        if select.select([fd], [], [], left)[0]:
            try:
                output += os.read(fd, 65536)
            except OSError:  # the child closed the terminal
                pytest.fail(f"the app ended: {bytes(output[-600:])!r}")


def start(tmp_path, **environment):
    pid, fd = pty.fork()
    if pid == 0:  # the child: the app, on the pseudo-terminal
        os.chdir(ROOT)
        os.environ.update(XDG_STATE_HOME=str(tmp_path / "state"), COLUMNS="80", LINES="10")
        os.environ.pop("ESCDELAY", None)
        os.environ.update(environment)
        os.execv(sys.executable, [sys.executable, "-c", KEYS_APP])
    output = bytearray()
    read_until(fd, output, b"keys: attn_tui.tui.driver")
    return pid, fd, output


@pytest.fixture
def terminal(tmp_path):
    pid, fd, output = start(tmp_path)
    yield fd, output
    os.kill(pid, 9)
    os.waitpid(pid, 0)
    os.close(fd)


def test_a_lone_esc_is_the_escape_key_and_sequences_are_still_keys(terminal):
    fd, output = terminal
    os.write(fd, b"\x1b")
    read_until(fd, output, b"keys: escape .")
    os.write(fd, b"\x1b[A")  # the up arrow, in one write as a terminal sends it
    read_until(fd, output, b"keys: escape up .")
    os.write(fd, b"\x1bx")  # Alt+x, as a terminal sends it
    read_until(fd, output, b"keys: escape up alt+x .")
    os.write(fd, b"a\x1b")
    read_until(fd, output, b"keys: escape up alt+x a escape .")


def test_a_paste_or_a_sequence_that_arrives_in_pieces_is_still_read_whole(terminal):
    """Only a lone ESC is the Esc key after 5 ms: inside a sequence or a paste the wait stays
    Textual's (an attack found pastes whose markers were split by 20 ms read as keys, or
    swallowing every key after them)."""
    fd, output = terminal
    for pieces, seen in (
        ([b"\x1b[200~hello\x1b", b"[201~abc"], b"keys: paste:hello a b c ."),
        ([b"\x1b[2", b"00~quit\x1b[201~"], b"paste:hello a b c paste:quit ."),
        ([b"\x1b[", b"A"], b"paste:quit up ."),
    ):
        for piece in pieces:
            os.write(fd, piece)
            time.sleep(0.03)
        read_until(fd, output, seen)


def test_a_byte_that_is_not_utf8_does_not_end_the_app(terminal):
    fd, output = terminal
    os.write(fd, b"\xff")
    os.write(fd, b"x")
    read_until(fd, output, b" x .")


def test_escdelay_is_the_wait_as_for_ncurses(tmp_path):
    """Esc, then x 0.1 s later: two keys after the 5 ms wait, Alt+x when ESCDELAY asks for 1 s."""
    for environment, seen in (({}, b"keys: escape x ."), ({"ESCDELAY": "1000"}, b"keys: alt+x .")):
        pid, fd, output = start(tmp_path, **environment)
        try:
            os.write(fd, b"\x1b")
            time.sleep(0.1)
            os.write(fd, b"x")
            read_until(fd, output, seen)
        finally:
            os.kill(pid, 9)
            os.waitpid(pid, 0)
            os.close(fd)


def test_the_thread_sleeps_until_a_lone_escs_deadline_and_no_longer():
    assert wait_for(None, 5.0) == IDLE_WAIT  # nothing pending: Textual's idle wake
    assert wait_for(5.004, 5.0) == pytest.approx(0.004)  # an ESC's wait, 4 ms left
    assert wait_for(4.9, 5.0) == 0.0  # past it: look now
    assert wait_for(9.0, 5.0) == IDLE_WAIT  # (a long ESCDELAY: still look at the exit flag)


def test_the_app_drives_a_terminal_with_it_and_a_browser_with_textuals(monkeypatch):
    monkeypatch.delenv("TEXTUAL_DRIVER", raising=False)
    assert AttnApp(remember=False).get_driver_class() is Driver
    monkeypatch.setattr("textual.constants.DRIVER", "textual.drivers.web_driver:WebDriver")
    assert AttnApp(remember=False).get_driver_class().__name__ == "WebDriver"


def test_the_paste_markers_are_followed_across_reads():
    paste = PasteTracker()
    for data, open_after in (
        ("ab", False),
        ("\x1b[20", False),
        ("0~hel", True),
        ("lo\x1b[2", True),
        ("01~", False),
        ("\x1b[200~x\x1b[201~\x1b[200~", True),
        ("\x1b[201~", False),
    ):
        paste.feed(data)
        assert paste.open is open_after, data
