"""The terminal driver: Textual's own, except that a lone Esc arrives when its wait is over.

A terminal sends the Esc key as the byte ESC, which also begins every escape sequence (the
arrows are ESC [ A): the parser waits ``ESCAPE_DELAY`` (0.1 s, or ESCDELAY) for a next byte
before it calls the byte a key. Textual's input thread (8.2) looks at that deadline only when
its ``select`` wakes, every 0.1 s with nothing to read, so Esc took 0.10–0.22 s in any Textual
app, a bare one too, whatever ESCDELAY said. Here the thread wakes at the deadline.

And a lone ESC (the last byte read, outside a bracketed paste) is the Esc key after 5 ms: a
terminal writes each key's sequence at once, so the rest of one would already be there (tmux
3.5 waits 10 ms). Inside a sequence and inside a paste the wait stays Textual's, so a paste or
a mouse report that arrives in pieces is still read whole. ESCDELAY, when set, is the wait for
all of them, as in Textual and ncurses. A byte that is not UTF-8 reads as U+FFFD, where in
Textual's thread it ended the app.
"""

from __future__ import annotations

import os
import selectors
from codecs import getincrementaldecoder

from textual._parser import ParseError
from textual._time import get_time
from textual._xterm_parser import XTermParser
from textual.drivers.linux_driver import LinuxDriver

IDLE_WAIT = 0.1  # seconds between looks at the exit flag, as Textual's
LONE_ESC_WAIT = 0.005  # seconds, unless ESCDELAY is set
PASTE_START, PASTE_END = "\x1b[200~", "\x1b[201~"


def wait_for(deadline: float | None, now: float) -> float:
    """How long the input thread may sleep: until the parser's deadline (a lone ESC's), if it
    has one, else Textual's idle wait."""
    if deadline is None:
        return IDLE_WAIT
    return min(IDLE_WAIT, max(0.0, deadline - now))


class PasteTracker:
    """Whether the bytes read so far leave a bracketed paste open (its markers may come split
    across reads)."""

    def __init__(self) -> None:
        self.open = False
        self._tail = ""

    def feed(self, data: str) -> None:
        seen = self._tail + data
        start, end = seen.rfind(PASTE_START), seen.rfind(PASTE_END)
        if start != end:  # (both -1: neither marker)
            self.open = start > end
        self._tail = seen[-(len(PASTE_START) - 1) :]


class Driver(LinuxDriver):
    """LinuxDriver whose input thread wakes at the parser's deadline (see the module)."""

    def run_input_thread(self) -> None:
        # Textual 8.2.8's LinuxDriver.run_input_thread; select's timeout from wait_for, and a
        # lone ESC's deadline brought forward
        selector = selectors.SelectSelector()
        selector.register(self.fileno, selectors.EVENT_READ)
        parser = XTermParser(self._debug)
        decode = getincrementaldecoder("utf-8")(
            "replace"
        ).decode  # (Textual's: a byte 0xFF ended the app)
        paste = PasteTracker()
        lone_esc_wait = None if "ESCDELAY" in os.environ else LONE_ESC_WAIT

        def process(selector_events, final: bool = False) -> None:
            for index, (_key, mask) in enumerate(selector_events):
                if mask & selectors.EVENT_READ:
                    last = index == len(selector_events) - 1
                    data = decode(os.read(self.fileno, 1024 * 4), final=final and last)
                    if not data:
                        break  # (stdin piped and closed)
                    paste.feed(data)
                    for event in parser.feed(data):
                        self.process_message(event)
                    if (
                        lone_esc_wait is not None
                        and data.endswith("\x1b")
                        and not paste.open
                        and parser._timeout_time is not None
                    ):
                        parser._timeout_time = min(parser._timeout_time, get_time() + lone_esc_wait)
            for event in parser.tick():
                self.process_message(event)

        try:
            while not self.exit_event.is_set():
                process(selector.select(wait_for(parser._timeout_time, get_time())))
            selector.unregister(self.fileno)
            process(selector.select(IDLE_WAIT), final=True)
        finally:
            selector.close()
            try:
                for _event in parser.feed(""):
                    pass
            except (EOFError, ParseError):
                pass
