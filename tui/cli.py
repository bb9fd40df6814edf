"""The ``attn-tui`` command: the app, or a headless view of a scenario (--json, --print, --check).

Exit status: 0 ok; 1 the student's values (``expect:``) differ from attention's; 2 a scenario
or usage error; 3 an unexpected internal error (one line; the traceback with --debug).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import traceback

from attn_tui import __version__

EXIT_OK, EXIT_DIFFERS, EXIT_USAGE, EXIT_INTERNAL = 0, 1, 2, 3


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="attn-tui",
        description="Step through scaled dot-product attention, stage by stage, "
                    "and see why every number is what it is.",
        epilog="'attn-tui new FILE --tokens \"the cat sat\" --d-k 2' writes a commented scenario "
               "to start from (see 'attn-tui new --help'). "
               "Without a mode, the scenario opens in the terminal app; without a scenario, "
               "the app offers the built-ins. Exit status: 0 ok, 1 the student's values "
               "(expect:) differ, 2 scenario or usage error, 3 internal error.",
    )
    parser.add_argument("scenario", nargs="?",
                        help="a scenario file (YAML), or the name of a built-in such as cat_sat")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--json", action="store_true", help="print every stage as one JSON object")
    mode.add_argument("--print", action="store_true", dest="print_",
                      help="print the step-by-step walk-through as text")
    mode.add_argument("--markdown", action="store_true",
                      help="print the walk-through as Markdown, for a handout")
    mode.add_argument("--check", action="store_true",
                      help="validate the scenario; with expect:, compare the student's values")
    mode.add_argument("--list", action="store_true", help="list the built-in scenarios")
    parser.add_argument("--row", metavar="ROW",
                        help="with --print or --markdown: the query row(s) to explain: a token, "
                             "a 1-based number, or 'all' (default: the scenario's focus)")
    parser.add_argument("--debug", action="store_true", help="show tracebacks of internal errors")
    parser.add_argument("--version", action="version", version=f"attn-tui {__version__}")
    return parser


def build_new_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="attn-tui new",
        description="Write a new scenario file, commented and ready to edit; opens nothing.")
    parser.add_argument("file", help="the scenario file to write")
    parser.add_argument("--tokens", required=True, help='the tokens, e.g. "the cat sat on the mat"')
    parser.add_argument("--d-k", type=int, required=True, help="the width of the queries and keys")
    parser.add_argument("--d-v", type=int, help="the width of the values (default: d_k)")
    parser.add_argument("--random", type=int, metavar="SEED",
                        help="fill Q, K, V from np.random.seed(SEED) instead of zeros")
    parser.add_argument("--force", action="store_true", help="replace the file if it exists")
    parser.add_argument("--debug", action="store_true", help=argparse.SUPPRESS)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["new"]:
        parser = build_new_parser()
        args = parser.parse_args(argv[1:])
        action = lambda: new_scenario(parser, args)  # noqa: E731
    else:
        parser = build_parser()
        args = parser.parse_args(argv)
        action = lambda: run(parser, args)  # noqa: E731
    try:
        return action()
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        _quiet_stdout()
        return EXIT_OK
    except Exception as exc:  # the promise: one line, never a traceback, unless asked
        if args.debug:
            traceback.print_exc()
        else:
            print(f"attn-tui: internal error: {type(exc).__name__}: {exc} "
                  "(this is a bug; --debug shows the traceback)", file=sys.stderr)
        return EXIT_INTERNAL


def run(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    from attn_tui.core import ScenarioError

    if args.list:
        return list_builtins()
    headless = args.json or args.print_ or args.check or args.markdown
    if args.row and not (args.print_ or args.markdown):
        parser.error("--row goes with --print or --markdown")
    if args.scenario is None:
        if headless:
            parser.error("--json, --print, --markdown and --check need a scenario (a file or a "
                         "built-in name)")
        return start_app(None)
    try:
        path = scenario_path(args.scenario)
        if not headless:  # the app: check now, build after the first frame (see tui.app)
            from attn_tui.core.scenario_file import check

            return start_app(check(path), read_only=not os.path.exists(args.scenario))
        from attn_tui.core import load

        scenario = load(path)
    except ScenarioError as error:
        print(error, file=sys.stderr)
        return EXIT_USAGE
    comparison = None
    if scenario.expect:
        from attn_tui.core.compare import compare

        comparison = compare(scenario)
    if args.json:
        from attn_tui.core.report import to_json
        document = to_json(scenario)
        if comparison is not None:
            from attn_tui.core.compare import to_json as comparison_json
            document["comparison"] = comparison_json(comparison)
        # one write of the whole text: json.dump's many small writes are several times slower
        sys.stdout.write(json.dumps(document, allow_nan=False) + "\n")
    elif args.print_ or args.markdown:
        try:
            rows = select_rows(args.row, scenario.tokens)
        except ValueError as exc:
            parser.error(str(exc))
        if args.markdown:
            from attn_tui.core.markdown import to_markdown
            sys.stdout.write(to_markdown(scenario, rows=rows))
        else:
            from attn_tui.core.report import to_text
            sys.stdout.write(to_text(scenario, rows=rows))
    elif args.check:
        if comparison is None:
            print(f"{scenario.display_name}: ok: {summary(scenario)}")
        else:
            from attn_tui.core.compare import summary as comparison_summary
            verdict = "your values match" if comparison.ok else "your values differ"
            print(f"{scenario.display_name}: {verdict}: {summary(scenario)}")
            print(comparison_summary(comparison, scenario.tokens))
            if not comparison.ok:
                return EXIT_DIFFERS
    return EXIT_OK


def new_scenario(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    """``attn-tui new FILE …``: write a commented template; refuse to replace a file unasked."""
    from attn_tui.core.atomic_write import write_atomic
    from attn_tui.core.template import scenario_template

    try:
        text = scenario_template(args.tokens.split(), args.d_k, args.d_v, seed=args.random)
    except ValueError as exc:
        parser.error(str(exc))
    if os.path.isdir(args.file):
        print(f"{args.file}: is a folder; give a file name such as {args.file}/scenario.yaml",
              file=sys.stderr)
        return EXIT_USAGE
    if os.path.exists(args.file) and not args.force:
        print(f"{args.file}: already exists; add --force to replace it", file=sys.stderr)
        return EXIT_USAGE
    try:
        write_atomic(args.file, text)
    except OSError as exc:
        print(f"{args.file}: cannot write: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_USAGE
    tokens = len(args.tokens.split())
    print(f"Wrote {args.file}: {tokens} tokens, d_k = {args.d_k}, d_v = {args.d_v or args.d_k}"
          f"{'' if args.random is None else f', random numbers from seed {args.random}'}. "
          f"Edit it, then: attn-tui {args.file}")
    return EXIT_OK


def scenario_path(name: str) -> str:
    """A file path, or failing that the file of a built-in; errors name what was tried."""
    from attn_tui.core import ScenarioError, catalog

    if os.path.lexists(name):  # a broken link or a loop is the user's file too: say what is wrong
        return name
    builtin = catalog.find(name)
    if builtin is not None:
        return str(builtin)
    if os.sep in name or name.endswith((".yaml", ".yml")):
        raise ScenarioError("no such file", path=name)
    known = ", ".join(b.name for b in catalog.builtins())
    raise ScenarioError(f"no such file, and no built-in scenario of that name (built-ins: {known})",
                        path=name)


def select_rows(row: str | None, tokens: tuple[str, ...]) -> list[int] | None:
    """``--row`` as row indices: ``all``, a 1-based number, or a token."""
    if row is None:
        return None
    if row == "all":
        return list(range(len(tokens)))
    if row.isascii() and row.isdigit() and 1 <= int(row) <= len(tokens):  # not "٣" or "３"
        return [int(row) - 1]
    if tokens.count(row) > 1:
        rows = ", ".join(str(i + 1) for i, token in enumerate(tokens) if token == row)
        raise ValueError(f"--row {row!r} is ambiguous: rows {rows} are all {row!r}; give the number")
    if row in tokens:
        return [tokens.index(row)]
    raise ValueError(f"--row {row!r}: not 'all', a number from 1 to {len(tokens)}, or a token "
                     f"({' '.join(tokens)})")


def summary(scenario) -> str:
    parts = [scenario.title, f"T = {scenario.T}", f"d_k = {scenario.d_k}", f"d_v = {scenario.d_v}",
             scenario.options.describe(scenario.d_k)]
    if scenario.variants:
        parts.append(f"{len(scenario.variants)} variants")
    return " · ".join(parts)


def list_builtins() -> int:
    from attn_tui.core import catalog, load

    entries = [(builtin.name, load(builtin.path).title) for builtin in catalog.builtins()]
    width = max(len(name) for name, _ in entries)
    for name, title in entries:
        print(f"{name:<{width}}  {title}")
    return EXIT_OK


def start_app(checked, read_only: bool = False) -> int:
    from attn_tui.tui.app import run_app

    return run_app(checked, read_only)


def _quiet_stdout() -> None:
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())


if __name__ == "__main__":
    sys.exit(main())
