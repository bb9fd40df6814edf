"""The ``attn-tui`` command: the app, or a headless view of a scenario (--json, --print, --check).

Exit status: 0 ok; 1 the student's values (``expect:``) differ from attention's; 2 a scenario
or usage error, or output that cannot be written; 3 an unexpected internal error (one line;
the traceback with --debug).

Every message and every line of output that quotes text from a file or an argument goes
through :func:`say` or :func:`write_out`, which make control characters visible (see
``core.text.visible``): a token, a title or a file name can never steer the terminal.
"""

from __future__ import annotations

import argparse
import gc
import dataclasses
import os
import stat
import sys
import traceback

from attn_tui import __version__
from attn_tui.core.text import visible

EXIT_OK, EXIT_DIFFERS, EXIT_USAGE, EXIT_INTERNAL = 0, 1, 2, 3
DEFAULT_HOST, DEFAULT_PORT = "127.0.0.1", 8000
# A served app is a process of about 60 MB (40 MB counting shared pages once; README, Speed):
# 40 of them take 1.6-2.4 GB, what a lecturer's laptop can spare, and cover a class of 30 with
# room for reloaded pages, whose old app lingers until its connection times out. Without a cap,
# a page reloaded in a loop (or one script) starts apps until the machine runs out of memory.
DEFAULT_MAX_APPS = 40


class OutputError(Exception):
    """Standard output cannot take what a mode writes: closed, a full disk, a device error."""


class Parser(argparse.ArgumentParser):
    """argparse, with its messages (which quote the arguments given) made visible."""

    def error(self, message: str):  # type: ignore[override]
        super().error(visible(message))


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="attn-tui",
        description="Step through scaled dot-product attention, stage by stage, "
                    "and see why every number is what it is.",
        epilog="'attn-tui new FILE --tokens \"the cat sat\" --d-k 2' writes a commented scenario "
               "to start from (see 'attn-tui new --help'); 'attn-tui capture MODEL --text \"…\" "
               "--layer N' writes one layer of a real Hugging Face model as a scenario (see "
               "'attn-tui capture --help'). "
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
    parser.add_argument("--worksheet", action="store_true",
                        help="with --markdown: a worksheet, the predicted stages (or all after Score) "
                             "left as blanks to fill in")
    parser.add_argument("--answers", action="store_true",
                        help="with --markdown (and --worksheet or not): the worksheet's answer key")
    mode.add_argument("--serve", action="store_true",
                      help="serve the app to web browsers, one app per browser, for a class "
                           "(needs: pip install 'attn-tui[serve]')")
    parser.add_argument("--lesson", action="store_true",
                        help="the scenario's lesson: with --markdown, as a handout (--answers: filled "
                             "in); with --serve, every browser plays it; the app opens at its beat 1 anyway")
    serving = parser.add_argument_group("with --serve")
    serving.add_argument("--follow", action="store_true",
                         help="with --serve: this terminal plays the lesson and leads, and every browser "
                              "moves to its beat (f in a browser leaves and rejoins)")
    serving.add_argument("--host", help=f"the address to listen on (default {DEFAULT_HOST}: this "
                                        "machine only; any other lets every machine that reaches it in)")
    serving.add_argument("--port", type=int, help=f"the port to listen on (default {DEFAULT_PORT})")
    serving.add_argument("--serve-dir", metavar="DIR",
                         help="the one folder served apps save in (default: a new temporary folder)")
    serving.add_argument("--max-apps", type=int, metavar="N",
                         help=f"at most N apps at once, one per browser (default {DEFAULT_MAX_APPS}); "
                              "the next browser is told the class is full")
    # how --serve starts each browser's app: saving only inside DIR (see core.save_root), and
    # following the teacher's beats on the channel at PATH (see tui.follow)
    parser.add_argument("--save-root", metavar="DIR", help=argparse.SUPPRESS)
    parser.add_argument("--follow-from", metavar="PATH", help=argparse.SUPPRESS)
    # …and where that app keeps its recovery copies: its browser's folder (see core.recovery_slots)
    parser.add_argument("--recovery-dir", metavar="DIR", help=argparse.SUPPRESS)
    add_toggles(parser)
    parser.add_argument("--row", metavar="ROW",
                        help="with --print or --markdown: the query row(s) to explain: a token, "
                             "a 1-based number, or 'all' (default: the scenario's focus)")
    parser.add_argument("--present", action="store_true",
                        help="start in projector mode: the focus row large, for a class")
    parser.add_argument("--debug", action="store_true", help="show tracebacks of internal errors")
    parser.add_argument("--version", action="version", version=f"attn-tui {__version__}")
    return parser


def build_new_parser() -> argparse.ArgumentParser:
    parser = Parser(
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
    elif argv[:1] == ["heads"]:
        from attn_tui.tui import heads_command

        parser = heads_command.build_parser(Parser)
        args = parser.parse_args(argv[1:])
        action = lambda: heads_command.heads(args, write_out, say, scenario_path)  # noqa: E731
    elif argv[:1] == ["capture"]:
        from attn_tui.capture import command

        parser = command.build_parser()
        args = parser.parse_args(argv[1:])
        action = lambda: command.capture(args)  # noqa: E731
    else:
        parser = build_parser()
        args = parser.parse_args(argv)
        if not (args.json or args.print_ or args.check or args.markdown or args.serve):
            # The app: no garbage collection while it starts (the collector's passes over the
            # modules being imported, Textual's and NumPy's, cost its first frame ~25 ms); it
            # turns collection back on once its first frame is up (tui.app._settle_garbage)
            gc.disable()
        action = lambda: run(parser, args)  # noqa: E731
    try:
        status = action()
        flush_out()
        return status
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        _quiet_stdout()
        return EXIT_OK
    except OutputError as error:
        _quiet_stdout()
        say(f"attn-tui: cannot write the output: {error}")
        return EXIT_USAGE
    except Exception as exc:  # the promise: one line, never a traceback, unless asked
        report_internal_error(exc, args.debug)
        return EXIT_INTERNAL
    finally:
        gc.enable()  # (whatever the run was, the caller's process collects again)


def report_internal_error(exc: Exception, debug: bool, note: str = "") -> None:
    """An unexpected exception (a bug): one line naming it, or its traceback with --debug."""
    if debug:
        traceback.print_exception(exc)
        if note:
            say(f"attn-tui: {note}")
    else:
        say(f"attn-tui: internal error: {type(exc).__name__}: {exc} "
            f"(this is a bug; --debug shows the traceback){'; ' + note if note else ''}")


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


def run(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    headless = args.json or args.print_ or args.check or args.markdown
    if not (headless or args.list):
        one_blas_thread()
    from attn_tui.core import ScenarioError

    if args.list:
        return list_builtins()
    if args.row and not (args.print_ or args.markdown):
        parser.error("--row goes with --print or --markdown")
    # README's "--markdown --worksheet FILE (--answers: its answer key)" invites adding
    # --answers to the worksheet's command: the key of that worksheet
    args.sheet = "answers" if args.answers else "worksheet" if args.worksheet else None
    if args.sheet and not args.markdown:
        parser.error(f"--{args.sheet} goes with --markdown: attn-tui --markdown --{args.sheet} FILE")
    if args.lesson and (args.json or args.print_ or args.check):
        parser.error("--lesson goes with --markdown (a handout), --serve, or the app")
    if args.lesson and args.sheet == "worksheet":
        parser.error("--lesson is a handout of its own; --answers fills it in")
    if (args.follow or args.follow_from) and not (args.serve or args.save_root):
        parser.error("--follow goes with --serve: attn-tui --serve FILE --follow")
    if args.serve or args.save_root:
        return serve_class(parser, args)
    if args.host is not None or args.port is not None or args.serve_dir is not None:
        parser.error("--host, --port and --serve-dir go with --serve")
    if args.max_apps is not None:
        parser.error("--max-apps goes with --serve")
    if args.scenario is None:
        if headless:
            parser.error("--json, --print, --markdown and --check need a scenario (a file or a "
                         "built-in name)")
        return start_app(None, debug=args.debug)
    try:
        path = scenario_path(args.scenario)
        from attn_tui.core.loading.model_index import index_or_none

        index = index_or_none(path)
        if index is not None:  # every layer of a capture: listed, or opened as the model view
            return open_index(parser, args, index, headless)
        from attn_tui.core.loading import catalog
        from attn_tui.core import load

        scenario = load(path)  # before the terminal is taken, so an error reads as one line
        scenario = with_views(parser, args, scenario)
        if args.lesson and scenario.lesson is None:
            raise ScenarioError("has no lesson: (see README: lessons)", path=path)
        if not headless:  # a built-in, by name or by path, is opened read-only: saving asks where
            return start_app(scenario, read_only=catalog.is_builtin(path), present=args.present,
                             debug=args.debug)
    except ScenarioError as error:
        say_problems(error)
        return EXIT_USAGE
    if sys.stdout is None:  # before the work: a closed output would otherwise pass unnoticed
        raise OutputError("standard output is closed")
    try:
        return _headless(parser, args, scenario)
    except ScenarioError as error:  # found while working (a training step that overflows)
        say_problems(error)
        return EXIT_USAGE


def _headless(parser: argparse.ArgumentParser, args: argparse.Namespace, scenario) -> int:
    """--json, --print, --markdown or --check of a loaded scenario."""
    comparison = None
    if scenario.expect:
        from attn_tui.core.teaching.compare import compare

        comparison = compare(scenario)
    if args.json:
        from attn_tui.core.outputs.json_export import json_chunks

        document = None
        if comparison is not None:
            from attn_tui.core.teaching.compare import to_json as comparison_json
            document = comparison_json(comparison)
        _write_all(json_chunks(scenario, document))
    elif args.print_ or args.markdown:
        try:
            rows = select_rows(args.row, scenario.row_tokens)
        except ValueError as exc:
            parser.error(str(exc))
        if args.markdown and args.lesson:
            if args.row:
                parser.error("--row goes with the walk-through; a lesson's beats name their own rows")
            from attn_tui.core.outputs.lesson_handout import lesson_markdown
            write_out(lesson_markdown(scenario, answers=args.sheet == "answers"))
        elif args.markdown:
            from attn_tui.core.outputs.markdown import to_markdown
            write_out(to_markdown(scenario, rows=rows, sheet=args.sheet))
        else:
            from attn_tui.core.outputs.report import text_chunks
            _write_all(text_chunks(scenario, rows=rows))
    elif args.check:
        from attn_tui.core.engine.stages.back_output import loss

        if loss(scenario) is not None and loss(scenario).train is not None:
            from attn_tui.core.outputs.report import attentions_of as runs_of
            from attn_tui.core.engine.training import train

            for attention in runs_of(scenario).values():  # (a learning rate that overflows is told here too)
                train(scenario, attention.options)
        if comparison is None:
            write_out(visible(f"{scenario.display_name}: ok: {summary(scenario)}") + "\n")
        else:
            from attn_tui.core.teaching.compare import summary as comparison_summary
            verdict = "your values match" if comparison.ok else "your values differ"
            write_out(visible(f"{scenario.display_name}: {verdict}: {summary(scenario)}") + "\n")
            write_out(comparison_summary(comparison, scenario) + "\n")
        from attn_tui.core.outputs.report import attentions_of
        from attn_tui.core.engine.stages.mask import leak_warnings

        for line in leak_warnings(attentions_of(scenario)):
            write_out(visible(line) + "\n")
        if comparison is not None and not comparison.ok:
            return EXIT_DIFFERS
    return EXIT_OK


def open_index(parser: argparse.ArgumentParser, args: argparse.Namespace, index, headless: bool) -> int:
    """A model index: ``--json`` lists its layers, the app shows them as the model view."""
    if args.json:
        import json

        from attn_tui.core.loading.model_index import to_json
        write_out(json.dumps(to_json(index), indent=1, allow_nan=False) + "\n")
        return EXIT_OK
    if headless or args.present:
        parser.error("a model index lists one scenario per layer: --json lists them, "
                     "'attn-tui heads FILE' scores their heads, and the app opens them as the model "
                     "view; give one layer's scenario for --print, --markdown, --check or --present")
    return start_app(None, debug=args.debug, index=index)


def one_blas_thread() -> None:
    """Let NumPy's BLAS use one thread in the app, unless the user said otherwise (before NumPy
    loads: it reads this once). A key multiplies small matrices; OpenBLAS's second thread then
    spins on the other core, waiting for more, and took a key 10-15 ms slower (an X edit at
    8 heads, 40-48 ms → 28-33) on two cores shared with the terminal."""
    if "numpy" not in sys.modules:
        for name in ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
            os.environ.setdefault(name, "1")


def new_scenario(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    """``attn-tui new FILE …``: write a commented template. Only ever creates a file, or (with
    --force) replaces a regular file: never a device, a pipe, a folder, or a link's missing target."""
    from attn_tui.core.files.atomic_write import write_atomic
    from attn_tui.core.model.template import scenario_template

    try:
        text = scenario_template(args.tokens.split(), args.d_k, args.d_v, seed=args.random)
    except ValueError as exc:
        parser.error(str(exc))
    refusal = _new_file_refusal(args.file, args.force)
    if refusal is not None:
        say(f"{args.file}: {refusal}")
        return EXIT_USAGE
    try:
        write_atomic(args.file, text)
    except OSError as exc:
        say(f"{args.file}: cannot write: {exc.strerror or exc}")
        return EXIT_USAGE
    tokens = len(args.tokens.split())
    write_out(visible(f"Wrote {args.file}: {tokens} tokens, d_k = {args.d_k}, d_v = {args.d_v or args.d_k}"
                      f"{'' if args.random is None else f', random numbers from seed {args.random}'}. "
                      f"Edit it, then: attn-tui {args.file}") + "\n")
    return EXIT_OK


def _new_file_refusal(path: str, force: bool) -> str | None:
    """Why ``new`` must not write ``path``, or None."""
    if not os.path.lexists(path):
        return None
    try:
        mode = os.stat(path).st_mode  # (through a link, the file it points to)
    except FileNotFoundError:
        return (f"is a symbolic link to {os.readlink(path)}, which does not exist; new does not "
                "create files through links: give the file's own path")
    except OSError as exc:
        return f"cannot be used: {exc.strerror or exc}"
    if stat.S_ISDIR(mode):
        return f"is a folder; give a file name such as {os.path.join(path, 'scenario.yaml')}"
    if not stat.S_ISREG(mode):
        return "is not a regular file (a device, a pipe or a socket); new only creates or replaces files"
    if not force:
        return "already exists; add --force to replace it"
    return None


def serve_class(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    """``--serve``: the server; ``--save-root``: one browser's app, which the server starts."""
    from attn_tui.core import ScenarioError
    from attn_tui.core import check
    from attn_tui.core import load

    if args.serve and args.save_root:
        parser.error("--save-root is how --serve starts each app; give --serve-dir instead")
    if args.recovery_dir and not args.save_root:
        parser.error("--recovery-dir goes with --save-root: it is how --serve starts each app")
    if args.present:
        parser.error("--present is for the app in this terminal; a served app starts as usual")
    if args.port is not None and not 1 <= args.port <= 65535:
        parser.error(f"--port {args.port}: a port is a number from 1 to 65535")
    if args.max_apps is not None and (args.max_apps < 1 or args.save_root):
        parser.error(f"--max-apps {args.max_apps}: --max-apps is a number of apps from 1 up, with --serve")
    lesson = args.lesson or args.follow or bool(args.follow_from)
    if lesson and args.scenario is None:
        parser.error("--lesson and --follow need a scenario with a lesson: (such as cat_sat_lesson)")
    path = scenario = None
    try:
        if args.scenario is not None:  # read here, so that a bad file is told at once
            path = os.path.abspath(scenario_path(args.scenario))
            # the server only checks it (without NumPy): the apps it starts do the work
            scenario = load(path) if args.save_root or lesson else check(path)
            if lesson and scenario.lesson is None:
                raise ScenarioError("has no lesson: (see README: lessons)", path=path)
    except ScenarioError as error:
        say_problems(error)
        return EXIT_USAGE
    if args.save_root:
        from attn_tui.core.editing.save_root import SaveRoot

        try:
            save_root = SaveRoot(args.save_root, recovery=served_recovery(args.recovery_dir))
        except ValueError as error:
            parser.error(f"--save-root: {error}")
        os.chdir(save_root.folder)  # so that a name typed in Save As means the same everywhere
        # the served file is never overwritten: saving it asks for a new name in the folder
        from attn_tui.tui.follow import Classroom

        classroom = Classroom(play=lesson, follow=args.follow_from)
        return start_app(scenario, read_only=True, save_root=save_root, debug=args.debug, classroom=classroom)
    try:
        from attn_tui.tui.serve import ServeError, serve
    except ModuleNotFoundError as missing:
        say(f"attn-tui: --serve needs textual-serve (no module {missing.name!r}): "
            "pip install 'attn-tui[serve]'")
        return EXIT_USAGE
    label = "the built-in scenarios" if path is None else visible(args.scenario)
    host, port = args.host or DEFAULT_HOST, args.port or DEFAULT_PORT
    if args.follow:
        from attn_tui.core.loading import catalog
        from attn_tui.tui.lead import lead_class

        return lead_class(scenario, label, host, port, args.serve_dir, args.max_apps or DEFAULT_MAX_APPS,
                          catalog.is_builtin(path), args.debug)
    try:
        serve(path, label, host, port, args.serve_dir, args.max_apps or DEFAULT_MAX_APPS, lesson=lesson,
              follow=args.follow_from)
    except ServeError as error:
        say(f"attn-tui: {error}")
        return EXIT_USAGE
    return EXIT_OK


def served_recovery(browser_folder: str | None) -> str | None:
    """The slot a served app keeps its recovery copies in, held for the app's life; None (no
    copies, said on the server's console) if none can be had."""
    if browser_folder is None:
        return None
    from attn_tui.core.editing.recovery_slots import claim

    try:
        return claim(browser_folder).folder  # the lock is let go when this process ends
    except OSError as error:
        say(f"attn-tui: this app keeps no recovery copies: {error}")
        return None


def scenario_path(name: str) -> str:
    """A file path, or failing that the file of a built-in; errors name what was tried."""
    from attn_tui.core import ScenarioError
    from attn_tui.core.loading import catalog

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
    shown = " ".join(tokens[:8]) + (f" … ({len(tokens) - 8:,} more)" if len(tokens) > 8 else "")
    raise ValueError(f"--row {row!r}: not 'all', a number from 1 to {len(tokens)}, or a token "
                     f"({shown})")


def add_toggles(parser: argparse.ArgumentParser) -> None:
    """The options that turn a stage on (each stage's ``toggle``: --tiles, --decode)."""
    from attn_tui.core.engine.stages import toggled

    for stage in toggled():
        toggle = stage.toggle
        if toggle.value is None:
            parser.add_argument(toggle.option, action="store_true", help=toggle.help)
        else:
            parser.add_argument(toggle.option, metavar=toggle.value, help=toggle.help)


def with_views(parser: argparse.ArgumentParser, args: argparse.Namespace, scenario):
    """The scenario with the steps options such as --tiles and --decode add (as its own keys
    would), for this run: saving keeps the file's own settings of them unless they are changed
    in the app."""
    from attn_tui.core.errors import NotApplicable
    from attn_tui.core.engine.stages import toggled

    own = dict(scenario.stage_settings)
    for stage in toggled():
        toggle = stage.toggle
        given = getattr(args, toggle.option.lstrip("-").replace("-", "_"))
        if given in (None, False):
            continue
        try:
            setting = toggle.on(scenario) if toggle.value is None else toggle.parse(given)
            if scenario.stage_settings.get(stage.name) != setting:
                scenario = toggle.switch(scenario, setting).apply(scenario)
        except ValueError as problem:  # (NotApplicable is one)
            shown = toggle.option if toggle.value is None else f"{toggle.option} {given!r}"
            parser.error(f"{shown}: {problem}")
    changed = {name: own.get(name) for name in {*own, *scenario.stage_settings}
               if own.get(name) != scenario.stage_settings.get(name)}
    return dataclasses.replace(scenario, file_settings=changed) if changed else scenario


def summary(scenario) -> str:
    tokens = f"T = {scenario.T}" if not scenario.cross else f"{scenario.T} queries × {scenario.T_k} keys"
    parts = [visible(scenario.title), tokens, f"d_k = {scenario.d_k}", f"d_v = {scenario.d_v}", scenario.describe()]
    if scenario.multi_head:
        parts.append(f"{scenario.heads} head{'s' if scenario.heads != 1 else ''}")
    if scenario.variants:
        parts.append(f"{len(scenario.variants)} variants")
    return " · ".join(parts)


def _write_all(chunks) -> None:
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


def list_builtins() -> int:
    from attn_tui.core.loading import catalog
    from attn_tui.core import load

    entries = [(builtin.name, load(builtin.path).title) for builtin in catalog.builtins()]
    width = max(len(name) for name, _ in entries)
    for name, title in entries:
        write_out(visible(f"{name:<{width}}  {title}") + "\n")
    return EXIT_OK


def start_app(scenario, read_only: bool = False, present: bool = False, save_root=None,
              debug: bool = False, classroom=None, index=None) -> int:
    """The app; a crash of it (a bug) is one line and exit 3, naming where the unsaved edits
    were kept."""
    import time

    from attn_tui.core.editing import recovery
    from attn_tui.tui.app import run_app

    started = time.time()
    try:
        return run_app(scenario, read_only, save_root=save_root, present=present, classroom=classroom,
                       index=index)
    except Exception as crash:
        kept = recovery.copies_since(started)
        note = (f"your unsaved edits are kept in {recovery.folder()}: open the file again to restore "
                "them" if kept else "")
        report_internal_error(crash, debug, note)
        return EXIT_INTERNAL


def _quiet_stdout() -> None:
    """Send what is still buffered for standard output nowhere, so that Python's own flush at
    exit cannot fail a second time and print a traceback of its own."""
    if sys.stdout is None:
        return
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


if __name__ == "__main__":
    sys.exit(main())
