"""The ``attn-tui`` command: the app, or a headless view of a scenario (json, print, markdown,
check), a class served to browsers, a new scenario, a captured layer, a table of heads.

Exit status: 0 ok; 1 the student's values (``expect:``) differ from attention's; 2 a scenario
or usage error, or output that cannot be written; 3 an unexpected internal error (one line;
the traceback with --debug).

``parser`` has the command line (``arguments``: what each command takes), ``streams`` what it
writes (every message made visible); each command's work is in a module of its own: ``app``
(open), ``views`` (the headless modes and list), ``serving``, ``new``, ``heads``, and capture's
own package.
"""

from __future__ import annotations

import gc
import sys

from attn_tui.tui.cli import app as _open
from attn_tui.tui.cli.app import one_blas_thread, start_app
from attn_tui.tui.cli.arguments import DEFAULT_MAX_APPS
from attn_tui.tui.cli.parser import (
    OWN_PARSERS,
    CommandLine,
    Parser,
    build_parser,
    read,
)
from attn_tui.tui.cli.streams import (
    EXIT_INTERNAL,
    EXIT_OK,
    EXIT_USAGE,
    OutputError,
    flush_out,
    quiet_stdout,
    report_internal_error,
    say,
    write_out,
)
from attn_tui.tui.cli.views import scenario_path, select_rows, with_views


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    line = read(argv)  # (argparse exits on a usage error)
    if line.opens_the_app:
        _open.one_blas_thread()  # (before the command's parser loads NumPy, which reads it once)
        # and no garbage collection while the app starts: the collector's passes over the modules
        # being imported (NumPy's, Textual's) and the widgets being made cost its first frame
        # ~25 ms; it is back on once that frame is up (tui.app), or a server starts (_action)
        gc.disable()
    debug = False
    try:
        action, debug = _action(line)
        status = action()
        flush_out()
        return status
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        quiet_stdout()
        return EXIT_OK
    except OutputError as error:
        quiet_stdout()
        say(f"attn-tui: cannot write the output: {error}")
        return EXIT_USAGE
    except Exception as exc:  # the promise: one line, never a traceback, unless asked
        report_internal_error(exc, debug)
        return EXIT_INTERNAL
    finally:
        gc.enable()  # (whatever the run was, the caller's process collects again)


def _action(line: CommandLine):
    """What the command line asks for, its command's words parsed (argparse exits on a usage
    error), and whether it asked for tracebacks (--debug)."""
    name, rest = line.command, list(line.words)
    if name in OWN_PARSERS:
        if name == "heads":
            from attn_tui.tui.cli import heads

            args = heads.build_parser(Parser).parse_args(rest)
            return lambda: heads.heads(args, write_out, say, scenario_path), args.debug
        if name == "figure":
            from attn_tui.tui.cli import figure

            args = figure.build_parser(Parser).parse_args(rest)
            return lambda: figure.figure(
                args, write_out, say, scenario_path, select_rows
            ), args.debug
        from attn_tui.capture import command

        args = command.build_parser().parse_args(rest)
        return lambda: command.capture(args), args.debug
    args = build_parser().parse_args(
        rest if name is None else [name, *rest]
    )  # (None: --version, --help)
    if name == "open":
        from attn_tui.tui.cli.app import open_app as run
    elif name == "serve":
        gc.enable()  # a class's server runs for hours: it collects from the start
        from attn_tui.tui.cli.serving import serve as run
    elif name == "new":
        from attn_tui.tui.cli.new import new_scenario as run
    elif name == "responses":
        from attn_tui.tui.cli.responses import responses as run
    elif name == "grade":
        from attn_tui.grading.grade import grade as run
    elif name == "autograder":
        from attn_tui.grading.autograder import autograder as run
    elif name == "list":
        from attn_tui.tui.cli.views import list_builtins as run
    else:
        from attn_tui.tui.cli.views import headless as run
    return lambda: run(args.parser, args), args.debug  # (its errors show the command's usage)


__all__ = [
    "DEFAULT_MAX_APPS",
    "EXIT_USAGE",
    "build_parser",
    "main",
    "one_blas_thread",
    "say",
    "scenario_path",
    "select_rows",
    "start_app",
    "with_views",
]


if __name__ == "__main__":
    sys.exit(main())
