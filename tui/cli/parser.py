"""The command line: one subcommand a mode, each with only the options that go with it, so that
the rules of which option goes with which are argparse's structure, not checks after parsing.

    attn-tui FILE                    the app (attn-tui open FILE)
    attn-tui json|print|markdown|check FILE …
    attn-tui list | serve [FILE] | new FILE | heads FILE | capture MODEL

The line is read once, by :func:`read`: its result says which command it asks for (the app:
``open``) and the words that command's parser is given. Today's flags still work: ``attn-tui
--json FILE`` is ``attn-tui json FILE``, and an option given to a mode it does not go with is
told which do. Each command's options (declared in ``tui.cli.arguments``) are argparse's (and so
are their prefixes: ``--ro``); the modes' flags, which come before any command is known, are
matched by :func:`_mode_flag` alone: argparse (3.10 to 3.13) looks a subcommand up by its whole
name, ``allow_abbrev`` being for the options within one parser.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from typing import NamedTuple

from attn_tui import __version__
from attn_tui.core.text import visible
from attn_tui.tui.cli.arguments import (
    HIDDEN,
    add_autograder_arguments,
    add_check_arguments,
    add_grade_arguments,
    add_markdown_arguments,
    add_new_arguments,
    add_open_arguments,
    add_responses_arguments,
    add_row,
    add_scenario,
    add_serve_arguments,
    add_toggles,
)

# The modes' flags of the command line before it had subcommands: each is its command's.
FLAGS = {
    "--json": "json",
    "--print": "print",
    "--markdown": "markdown",
    "--check": "check",
    "--list": "list",
    "--serve": "serve",
}
# The commands whose parsers live with their work (capture's and heads' modules): main hands
# them the rest of the line.
OWN_PARSERS = {
    "capture": "write one layer of a real Hugging Face model as a scenario (see "
    "'attn-tui capture --help')",
    "heads": "score every head for the standard attention patterns (see 'attn-tui heads --help')",
    "figure": "write one stage as an SVG (PNG, PDF) figure for slides and papers (see "
    "'attn-tui figure --help')",
}


class Parser(argparse.ArgumentParser):
    """argparse, with its messages (which quote the arguments given) made visible, and an option
    given to the wrong mode told which modes it goes with, in the usage of the mode given."""

    def parse_args(self, args=None, namespace=None):  # type: ignore[override]
        parsed, extras = self.parse_known_args(args, namespace)
        if extras:
            # (the mode's own parser says it, with the mode's usage)
            getattr(parsed, "parser", self).error(_unrecognized(extras, args or []))
        return parsed

    def error(self, message: str):  # type: ignore[override]
        super().error(visible(message))


def _unrecognized(extras: list[str], argv: list[str]) -> str:
    """What argparse's "unrecognized arguments" means: an option of another mode says which
    modes take it (an argument after ``--`` is not an option)."""
    after = argv[argv.index("--") + 1 :] if "--" in argv else []
    options = [
        word.split("=", 1)[0] for word in extras if word.startswith("--") and word not in after
    ]
    option = options[0] if options else None
    modes = [
        name
        for name, taken in {**options_of(build_parser()).of, **_own_options()}.items()
        if option in taken
    ]
    if option in HIDDEN:
        return f"{option} is how --serve starts each app, not an option to give"
    if not modes:
        return "unrecognized arguments: " + " ".join(extras)
    others = [word for word in extras if word.split("=", 1)[0] != option]
    told = f"{option} goes with {' or '.join(_shown(name) for name in modes)}" + HINTS.get(
        option, ""
    )
    return told + (f" (and unrecognized: {' '.join(others)})" if len(others) > 1 else "")


def _own_options() -> dict[str, set[str]]:
    """The options of the commands with parsers of their own (heads, capture)."""
    from attn_tui.capture import command as capture
    from attn_tui.tui.cli import figure, heads

    return {
        name: {option for action in own._actions for option in action.option_strings}
        - {"-h", "--help"}
        for name, own in (
            ("heads", heads.build_parser()),
            ("capture", capture.build_parser()),
            ("figure", figure.build_parser()),
        )
    }


def _shown(command: str) -> str:
    flag = next((flag for flag, name in FLAGS.items() if name == command), None)
    return "the app (attn-tui FILE)" if command == "open" else flag or f"attn-tui {command}"


HINTS = {
    "--worksheet": ": attn-tui --markdown --worksheet FILE",
    "--answers": ": attn-tui --markdown --answers FILE",
    "--follow": ": attn-tui --serve FILE --follow",
}


class Options(NamedTuple):
    """The options of a parser's commands (:func:`options_of`): each command's, and those
    followed by a value (``--row ROW``)."""

    of: dict[str, set[str]]
    taking_values: set[str]


def options_of(parser: argparse.ArgumentParser) -> Options:
    """The options of the commands of a parser just built (read off it when needed, never kept)."""
    commands = next(
        action for action in parser._actions if isinstance(action, argparse._SubParsersAction)
    )
    return Options(
        {
            name: {option for action in sub._actions for option in action.option_strings}
            for name, sub in commands.choices.items()
            if name not in OWN_PARSERS
        },
        {
            option
            for sub in commands.choices.values()
            for action in sub._actions
            if action.nargs != 0
            for option in action.option_strings
        },
    )


@dataclass(frozen=True)
class CommandLine:
    """The command line, read: the command it asks for (``open``: the app; None: the top level's
    own ``--version`` or ``--help``) and the words that command's parser reads."""

    command: str | None
    words: tuple[str, ...]

    @property
    def opens_the_app(self) -> bool:
        """Whether it opens the app (or serves apps): then it wants one BLAS thread, asked for
        before NumPy loads (tui.cli.app.one_blas_thread)."""
        return self.command in ("open", "serve")


def read(argv: list[str]) -> CommandLine:
    """The one reading of the command line, as it was read before it had subcommands too: a
    mode's flag anywhere (``--json``, or a prefix of it only, ``--js``) names its command, a line
    with neither opens the app, and ``--version`` and ``--debug`` go anywhere; heads', figure's,
    capture's and grade's words are theirs. Two modes, or a prefix of a mode's flag and another
    option, are a usage error (exit 2). Only a line with a word that may be a mode's flag needs
    the options of every command: read off the parser built without the stages' options, unless
    the line has a word none of those is (--tiles, or a prefix): those load NumPy, which the app
    wants loaded after it asked for one BLAS thread."""
    end = argv.index("--") if "--" in argv else len(argv)
    head, tail = argv[:end], argv[end:]
    if "--version" in head:
        return CommandLine(None, ("--version",))
    if head[:1] and (
        head[0] in OWN_PARSERS or head[0] == "grade"
    ):  # (grade's --json is its own format)
        return CommandLine(head[0], tuple(argv[1:]))
    debug = [word for word in head if word == "--debug"]
    head = [word for word in head if word != "--debug"]
    command = head[0] if head[:1] and head[0] in COMMANDS else None
    words = head[1:] if command else head
    options = (
        options_of(build_parser(toggles=False))
        if any(_may_be_a_mode(word) for word in words)
        else None
    )
    if options is not None and any(
        word.startswith("-") and word not in set(FLAGS).union(*options.of.values())
        for word in words
    ):
        options = options_of(build_parser())
    modes, rest, value_next = [], [], False
    for word in words:
        flag = (
            None
            if options is None or value_next or word in options.of.get(command, ())
            else _mode_flag(word, options)
        )  # (responses' --json is its own)
        if flag is not None:
            modes.append(flag)
            continue
        rest.append(word)
        value_next = options is not None and not value_next and word in options.taking_values
    named = list(dict.fromkeys([*([command] if command else []), *(FLAGS[flag] for flag in modes)]))
    if len(named) > 1:
        shown = [
            f"attn-tui {name}" if name == command else next(f for f in modes if FLAGS[f] == name)
            for name in named
        ]
        build_parser().error(f"give one mode: {' and '.join(shown)} are two")
    if not named and rest[:1] in (["-h"], ["--help"]):
        return CommandLine(None, tuple(argv))
    return CommandLine(named[0] if named else "open", (*rest, *debug, *tail))


def _may_be_a_mode(word: str) -> bool:
    """Whether a word is a mode's flag, or may be a prefix of one (as argparse reads a prefix)."""
    return (
        word.startswith("--")
        and "=" not in word
        and len(word) > 2
        and any(flag.startswith(word) for flag in FLAGS)
    )


def _mode_flag(word: str, options: Options) -> str | None:
    """The mode's flag ``word`` is, or is the only option starting with (as argparse reads a
    prefix); a prefix of several options, a mode among them, is refused as argparse would."""
    if word in FLAGS:
        return word
    if not word.startswith("--") or "=" in word or len(word) < 3:
        return None
    every = set().union(*options.of.values())
    if word in every:
        return None
    matches = sorted(option for option in every | set(FLAGS) if option.startswith(word))
    if len(matches) > 1 and any(match in FLAGS for match in matches):
        build_parser().error(f"ambiguous option: {word} could match {', '.join(matches)}")
    return matches[0] if matches and matches[0] in FLAGS else None


def build_parser(toggles: bool = True) -> argparse.ArgumentParser:
    """The command line's parser: a subcommand a mode. Without ``toggles``, the stages' options
    (--tiles, --decode) left out: they load NumPy, which :func:`read` must not before it knows
    whether the line opens the app."""
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--debug", action="store_true", help="show tracebacks of internal errors")
    parser = Parser(
        prog="attn-tui",
        description="Step through scaled dot-product attention, stage by stage, "
        "and see why every number is what it is.",
        epilog="'attn-tui FILE' opens the app ('attn-tui' alone offers the built-ins); each "
        "command has its own --help. The modes' flags work as before, anywhere on the line: "
        "'attn-tui --json FILE' is 'attn-tui json FILE', and so are --print, --markdown, "
        "--check, --list and --serve; --debug (tracebacks of internal errors) goes with every "
        "command. Exit status: 0 ok, 1 the student's values (expect:) differ, 2 scenario or "
        "usage error, 3 internal error.",
    )
    parser.add_argument("--version", action="version", version=f"attn-tui {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)

    def command(name: str, help: str) -> argparse.ArgumentParser:
        sub = commands.add_parser(
            name, help=help, description=help[0].upper() + help[1:] + ".", parents=[common]
        )
        sub.set_defaults(parser=sub)
        return sub

    open_app = command("open", "open the scenario in the terminal app (the default)")
    add_open_arguments(open_app, toggles)
    add_scenario(command("json", "print every stage as one JSON object"))
    walk = command("print", "print the step-by-step walk-through as text")
    add_scenario(walk)
    add_row(walk)
    add_markdown_arguments(command("markdown", "print the walk-through as Markdown, for a handout"))
    add_check_arguments(
        command("check", "validate the scenario; with expect:, compare the student's values")
    )
    for name in ("json", "print", "markdown", "check"):
        if toggles:
            add_toggles(commands.choices[name])
    command("list", "list the built-in scenarios")
    add_serve_arguments(
        command(
            "serve",
            "serve the app to web browsers, one app per browser, for a class "
            "(needs: pip install 'attn-tui[serve]')",
        )
    )
    add_responses_arguments(
        command(
            "responses",
            "sum up a class's answers: the log of serve --follow --responses, per predict beat",
        )
    )
    add_new_arguments(
        command("new", "write a new scenario file, commented and ready to edit; opens nothing")
    )
    add_grade_arguments(
        command(
            "grade",
            "check every student's attention on the same cases: a table per student "
            "and a class summary (docs/classroom.md)",
        )
    )
    add_autograder_arguments(
        command(
            "autograder",
            "write the zip a teacher uploads as a Gradescope autograder (docs/classroom.md)",
        )
    )
    for name, help in OWN_PARSERS.items():
        commands.add_parser(name, help=help, add_help=False)
    return parser


def options() -> set[str]:
    """Every option of every command, of the commands with parsers of their own, and the modes'
    flags."""
    parser = build_parser()
    top = {option for action in parser._actions for option in action.option_strings}
    return set().union(top, *options_of(parser).of.values(), *_own_options().values(), FLAGS)


COMMANDS = (
    "open",
    "json",
    "print",
    "markdown",
    "check",
    "list",
    "serve",
    "new",
    "grade",
    "autograder",
    "responses",
    *OWN_PARSERS,
)
