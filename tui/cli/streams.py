"""What the command writes: its exit statuses, its messages on standard error and its output.

Every message and every line of output that quotes text from a file or an argument goes
through :func:`say` or :func:`write_out`, which make control characters visible (see
``core.text.visible``): a token, a title or a file name can never steer the terminal.
"""

from __future__ import annotations

import os
import sys
import traceback

from attn_tui.core.text import visible

EXIT_OK, EXIT_DIFFERS, EXIT_USAGE, EXIT_INTERNAL = 0, 1, 2, 3


class OutputError(Exception):
    """Standard output cannot take what a mode writes: closed, a full disk, a device error."""


def report_internal_error(exc: Exception, debug: bool, note: str = "") -> None:
    """An unexpected exception (a bug): one line naming it, or its traceback with --debug."""
    if debug:
        traceback.print_exception(exc)
        if note:
            say(f"attn-tui: {note}")
    else:
        say(
            f"attn-tui: internal error: {type(exc).__name__}: {exc} "
            f"(this is a bug; --debug shows the traceback){'; ' + note if note else ''}"
        )


def say(message: str) -> None:
    """One message on standard error, made visible (nothing, if standard error is closed)."""
    if sys.stderr is not None:
        try:
            print(visible(message), file=sys.stderr)
        except (OSError, ValueError):
            pass  # nowhere left to say it; the exit status still tells


def say_problems(error) -> None:
    """A scenario's problems on standard error, one line each (each already made visible)."""
    for line in str(error).split("\n"):
        say(line)


def write_out(text: str) -> None:
    """``text`` on standard output; ``OutputError`` saying why if it cannot be written. The
    text is written as given: views put outside text through ``visible`` themselves."""
    if sys.stdout is None:
        raise OutputError("standard output is closed")
    try:
        sys.stdout.write(text)
    except BrokenPipeError:
        raise
    except OSError as exc:
        raise OutputError(exc.strerror or str(exc)) from None
    except ValueError:  # "I/O operation on closed file"
        raise OutputError("standard output is closed") from None


def write_all(chunks) -> None:
    """Write text pieces to stdout in writes of about a megabyte (many small writes are slow,
    one huge string costs its size in memory)."""
    pending: list[str] = []
    size = 0
    for chunk in chunks:
        pending.append(chunk)
        size += len(chunk)
        if size >= 1 << 20:
            write_out("".join(pending))
            pending, size = [], 0
    write_out("".join(pending))


def flush_out() -> None:
    """Push buffered output out now, while a failure can still be reported and exit 2."""
    if sys.stdout is None:
        return
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        raise
    except OSError as exc:
        raise OutputError(exc.strerror or str(exc)) from None
    except ValueError:
        raise OutputError("standard output is closed") from None


def quiet_stdout() -> None:
    """Send what is still buffered for standard output nowhere, so that Python's own flush at
    exit cannot fail a second time and print a traceback of its own."""
    if sys.stdout is None:
        return
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
