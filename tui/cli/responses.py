"""``attn-tui responses LESSON FILE.jsonl [--json] [--markdown]``: what a class answered at each
predict beat, from the log ``serve LESSON --follow --responses FILE.jsonl`` wrote
(``core.classroom.summary``)."""

from __future__ import annotations

import argparse
import json
import os
import stat

from attn_tui.core.text import visible
from attn_tui.tui.cli.streams import EXIT_OK, EXIT_USAGE, say, say_problems, write_out


def responses(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    from attn_tui.core import ScenarioError, load
    from attn_tui.core.classroom.summary import as_markdown, as_text, summarise
    from attn_tui.tui.cli.views import scenario_path

    if args.json and args.markdown:
        parser.error("give --json or --markdown, not both")
    try:
        path = scenario_path(args.scenario)
        scenario = load(path)
        if scenario.lesson is None:
            raise ScenarioError("has no lesson: (see docs/classroom.md: lessons)", path=path)
    except ScenarioError as error:
        say_problems(error)
        return EXIT_USAGE
    try:
        stream = open_log(args.log)
    except OSError as error:
        say(f"attn-tui: {visible(args.log)}: {error.strerror or error}")
        return EXIT_USAGE
    with stream:
        summary = summarise(scenario, stream)
    if args.json:
        write_out(json.dumps(summary, ensure_ascii=False, indent=2) + "\n")
    elif args.markdown:
        write_out(as_markdown(summary, scenario, args.scenario))
    else:
        write_out(as_text(summary, scenario))
    return EXIT_OK


def open_log(path: str):
    """The log for reading: a regular file only (a FIFO or a device would never end)."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(0, "not a regular file (a log that --responses wrote)")
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise
