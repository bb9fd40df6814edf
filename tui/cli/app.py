"""``open``: the scenario in the terminal app (``attn-tui FILE``), or a model index as the model
view; and the app a served class's browser gets (``--save-root``, which ``serve`` passes)."""

from __future__ import annotations

import argparse
import os
import sys

from attn_tui.tui.cli.streams import EXIT_INTERNAL, EXIT_USAGE, report_internal_error, say_problems


def open_app(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    from attn_tui.core import ScenarioError, load
    from attn_tui.core.loading import catalog
    from attn_tui.core.loading.model_index import index_or_none
    from attn_tui.tui.cli.views import scenario_path, with_views

    if args.save_root:
        from attn_tui.tui.cli.serving import served_app

        return served_app(parser, args)
    if args.follow_from:
        parser.error("--follow goes with --serve: attn-tui --serve FILE --follow")
    if args.recovery_dir:
        parser.error("--recovery-dir goes with --save-root: it is how --serve starts each app")
    if args.scenario is None:
        return start_app(None, debug=args.debug)
    try:
        path = scenario_path(args.scenario)
        index = index_or_none(path)
        if index is not None:  # every layer of a capture, as the model view
            if args.present:
                parser.error(
                    "a model index lists one scenario per layer: the app opens them as the "
                    "model view; give one layer's scenario for --present"
                )
            return start_app(None, debug=args.debug, index=index)
        scenario = with_views(
            parser, args, load(path)
        )  # before the terminal is taken: an error is one line
        if args.lesson and scenario.lesson is None:
            raise ScenarioError("has no lesson: (see docs/classroom.md: lessons)", path=path)
    except ScenarioError as error:
        say_problems(error)
        return EXIT_USAGE
    classroom = None
    if args.join is not None or args.name is not None:
        from attn_tui.tui.join import joined_classroom

        classroom = joined_classroom(parser, args, scenario)
        if classroom is None:
            return EXIT_USAGE
    # a built-in, by name or by path, is opened read-only: saving asks where
    return start_app(
        scenario,
        read_only=catalog.is_builtin(path),
        present=args.present,
        debug=args.debug,
        classroom=classroom,
    )


def one_blas_thread() -> None:
    """Let NumPy's BLAS use one thread in the app, unless the user said otherwise (before NumPy
    loads: it reads this once). A key multiplies small matrices; OpenBLAS's second thread then
    spins on the other core, waiting for more, and took a key 10-15 ms slower (an X edit at
    8 heads, 40-48 ms → 28-33) on two cores shared with the terminal."""
    if "numpy" not in sys.modules:
        for name in ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
            os.environ.setdefault(name, "1")


def start_app(
    scenario,
    read_only: bool = False,
    present: bool = False,
    save_root=None,
    debug: bool = False,
    classroom=None,
    index=None,
    start=None,
) -> int:
    """The app; a crash of it (a bug) is one line and exit 3, naming where the unsaved edits
    were kept."""
    import time

    from attn_tui.core.editing import recovery
    from attn_tui.tui.app import run_app

    started = time.time()
    try:
        return run_app(
            scenario,
            read_only,
            save_root=save_root,
            present=present,
            classroom=classroom,
            index=index,
            start=start,
        )
    except Exception as crash:
        kept = recovery.copies_since(started)
        note = (
            f"your unsaved edits are kept in {recovery.folder()}: open the file again to restore "
            "them"
            if kept
            else ""
        )
        report_internal_error(crash, debug, note)
        return EXIT_INTERNAL
