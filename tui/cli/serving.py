"""``serve``: the app in a class's web browsers, one app per browser; and the app each browser
gets, which the server starts as ``attn-tui open --save-root DIR …``."""

from __future__ import annotations

import argparse
import os

from attn_tui.core.text import visible
from attn_tui.tui.cli.arguments import DEFAULT_HOST, DEFAULT_MAX_APPS, DEFAULT_PORT
from attn_tui.tui.cli.streams import EXIT_OK, EXIT_USAGE, say, say_problems


def _scenario_of(
    parser: argparse.ArgumentParser, args: argparse.Namespace, lesson: bool, whole: bool
):
    """The path and the scenario given (read here, so that a bad file is told at once): loaded
    ``whole``, else only checked (the server needs no NumPy: the apps it starts do the work)."""
    from attn_tui.core import ScenarioError, check, load
    from attn_tui.tui.cli.views import scenario_path

    if lesson and args.scenario is None:
        parser.error(
            "--lesson and --follow need a scenario with a lesson: (such as cat_sat_lesson)"
        )
    if args.scenario is None:
        return None, None
    path = os.path.abspath(scenario_path(args.scenario))
    scenario = load(path) if whole else check(path)
    if lesson and scenario.lesson is None:
        raise ScenarioError("has no lesson: (see docs/classroom.md: lessons)", path=path)
    return path, scenario


def serve(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    from attn_tui.core import ScenarioError
    from attn_tui.tui.cli.app import one_blas_thread

    one_blas_thread()
    if args.port is not None and not 1 <= args.port <= 65535:
        parser.error(f"--port {args.port}: a port is a number from 1 to 65535")
    if args.max_apps is not None and args.max_apps < 1:
        parser.error(
            f"--max-apps {args.max_apps}: --max-apps is a number of apps from 1 up, with --serve"
        )
    lesson = args.lesson or args.follow or bool(args.follow_from)
    if args.responses and not args.follow or args.names and not (args.follow or args.follow_from):
        parser.error(
            f"{'--responses' if args.responses else '--names'} goes with --follow: the class's "
            "answers reach the teacher's terminal "
            "(attn-tui serve LESSON --follow --responses FILE.jsonl)"
        )
    if args.record_names and not (
        args.names and (args.responses and args.follow or args.follow_from)
    ):
        parser.error(
            "--record-names goes with --names and --responses: it writes the first names the "
            "class gives into the log (attn-tui serve LESSON --follow --names --responses "
            "FILE.jsonl --record-names)"
        )
    try:
        path, scenario = _scenario_of(parser, args, lesson, whole=lesson)
    except ScenarioError as error:
        say_problems(error)
        return EXIT_USAGE
    try:
        from attn_tui.tui.serve import ServeError
        from attn_tui.tui.serve import serve as serve_apps
    except ModuleNotFoundError as missing:
        say(
            f"attn-tui: --serve needs textual-serve (no module {missing.name!r}): "
            "pip install 'attn-tui[serve]'"
        )
        return EXIT_USAGE
    label = "the built-in scenarios" if path is None else visible(args.scenario)
    host, port = args.host or DEFAULT_HOST, args.port or DEFAULT_PORT
    if args.follow:
        from attn_tui.core.loading import catalog
        from attn_tui.tui.lead import lead_class

        return lead_class(
            scenario,
            label,
            host,
            port,
            args.serve_dir,
            args.max_apps or DEFAULT_MAX_APPS,
            catalog.is_builtin(path),
            args.debug,
            responses=args.responses,
            names=args.names,
            record_names=args.record_names,
        )
    try:
        serve_apps(
            path,
            label,
            host,
            port,
            args.serve_dir,
            args.max_apps or DEFAULT_MAX_APPS,
            lesson=lesson,
            follow=args.follow_from,
            names=args.names,
            record_names=args.record_names,
        )
    except ServeError as error:
        say(f"attn-tui: {error}")
        return EXIT_USAGE
    return EXIT_OK


def served_app(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    """One browser's app: saving only inside its folder, the served file never overwritten."""
    from attn_tui.core import ScenarioError
    from attn_tui.core.editing.save_root import SaveRoot
    from attn_tui.tui.classroom import Classroom
    from attn_tui.tui.cli.app import start_app

    if args.present:
        parser.error("--present is for the app in this terminal; a served app starts as usual")
    lesson = args.lesson or bool(args.follow_from)
    try:
        path, scenario = _scenario_of(parser, args, lesson, whole=True)
    except ScenarioError as error:
        say_problems(error)
        return EXIT_USAGE
    try:
        save_root = SaveRoot(args.save_root, recovery=served_recovery(args.recovery_dir))
    except ValueError as error:
        parser.error(f"--save-root: {error}")
    os.chdir(save_root.folder)  # so that a name typed in Save As means the same everywhere
    classroom = Classroom(
        play=lesson,
        follow=args.follow_from,
        student=browser_student(args.recovery_dir),
        names=args.ask_name in ("yes", "recorded"),
        record_names=args.ask_name == "recorded",
    )
    return start_app(
        scenario, read_only=True, save_root=save_root, debug=args.debug, classroom=classroom
    )


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


def browser_student(browser_folder: str | None) -> str:
    """The id a served app's answers go by: its browser's (a digest of its recovery folder's
    name, which is itself a digest of the browser's cookie), so that a reloaded page is the same
    student; "" (a random one) without it."""
    if not browser_folder:
        return ""
    import hashlib

    return hashlib.sha256(
        b"attn-tui student " + os.path.basename(browser_folder.rstrip("/")).encode()
    ).hexdigest()[:16]
