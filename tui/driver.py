"""The terminal driver: Textual's own, except that a lone Esc arrives when its wait is over.

A terminal sends the Esc key as the byte ESC, which also begins every escape sequence (the
arrows are ESC [ A): the parser waits ``ESCAPE_DELAY`` for a next byte before it calls the
byte a key. Textual's input thread (8.2) looks at that deadline only when its ``select`` wakes,
every 0.1 s with nothing to read, so Esc took 0.10–0.22 s in any Textual app, a bare one too,
whatever ESCDELAY said. Here the thread wakes at the deadline. And the wait is 10 ms unless the
user's ESCDELAY says otherwise (tmux 3.5's escape-time; a terminal writes a sequence at once).
"""

from __future__ import annotations

import os
import selectors
from codecs import getincrementaldecoder

from textual import constants
from textual._parser import ParseError
from textual._time import get_time
from textual._xterm_parser import XTermParser
from textual.drivers.linux_driver import LinuxDriver

IDLE_WAIT = 0.1  # seconds between looks at the exit flag, as Textual's
ESCAPE_DELAY = 0.005  # seconds, unless ESCDELAY (milliseconds, as ncurses and Textual read it)


def wait_for(deadline: float | None, now: float) -> float:
    """How long the input thread may sleep: until the parser's deadline (a lone ESC's), if it
    has one, else Textual's idle wait."""
    if deadline is None:
        return IDLE_WAIT
    return min(IDLE_WAIT, max(0.0, deadline - now))


class Driver(LinuxDriver):
    """LinuxDriver whose input thread wakes at the parser's deadline (see the module)."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        if "ESCDELAY" not in os.environ:
            constants.ESCAPE_DELAY = ESCAPE_DELAY  # (the parser reads it at every ESC)

    def run_input_thread(self) -> None:
        # Textual 8.2.8's LinuxDriver.run_input_thread, with select's timeout from wait_for
        selector = selectors.SelectSelector()
        selector.register(self.fileno, selectors.EVENT_READ)
        parser = XTermParser(self._debug)
        decode = getincrementaldecoder("utf-8")().decode

        def process(selector_events, final: bool = False) -> None:
            for index, (_key, mask) in enumerate(selector_events):
                if mask & selectors.EVENT_READ:
                    last = index == len(selector_events) - 1
                    data = decode(os.read(self.fileno, 1024 * 4), final=final and last)
                    if not data:
                        break  # (stdin piped and closed)
                    for event in parser.feed(data):
                        self.process_message(event)
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
