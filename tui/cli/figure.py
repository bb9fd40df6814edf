"""``attn-tui figure SCENARIO --stage NAME [--head H] [--row R|all] [--variant V] [-o FILE]
[--format svg|png|pdf]``: a standalone figure of one stage for slides and papers (issue 45);
``attn-tui figure SCENARIO --train``: the loss curves of its training runs; ``attn-tui figure
INDEX --model-view``: the layers × heads grid of thumbnails with their pattern scores.

SVG needs nothing beyond today's dependencies (core.outputs.figures). PNG and PDF are the SVG
converted by cairosvg, the optional extra ``figures``: it draws the very SVG the tests check (one
picture, two formats) and is small, where matplotlib would mean drawing every figure twice and a
~40 MB dependency; cairosvg needs the system's libcairo, which a teacher's machine with a desktop
has. Without it: one line naming the extra, exit 2.

Exit status: 0 written; 2 a file that cannot be read, a figure that cannot be made (no such
stage, head or row), no extra for PNG/PDF, or output that cannot be written.
"""

from __future__ import annotations

import argparse
import errno
import os

from attn_tui.core.text import visible

FORMATS = ("svg", "png", "pdf")


def build_parser(parser_class=argparse.ArgumentParser) -> argparse.ArgumentParser:
    parser = parser_class(
        prog="attn-tui figure",
        description="Write one stage of a scenario as a figure for slides and papers: a heat map "
        "with the tokens on both axes, each cell's value, masked cells hatched and a colour scale "
        "(the app's colour-blind-safe palettes), or with --row R one row's bar chart.",
        epilog="Exit status: 0 written, 2 a file that cannot be read or a figure that cannot be "
        "made.",
    )
    parser.add_argument(
        "file",
        metavar="SCENARIO",
        help="a scenario file or a built-in's name (with --model-view, a model index too)",
    )
    parser.add_argument(
        "--stage",
        metavar="NAME",
        help="the stage by its expect:/--json key: weights (default), scores, d_scores, …; "
        "or an input: Q, K, V, X, Wq, …",
    )
    parser.add_argument(
        "--head",
        metavar="H",
        help="the head as the scenario names it: 2 or 'head 2' "
        "(a written scenario's heads are head 1, head 2, …; a captured layer's head 0, …); "
        "default the first",
    )
    parser.add_argument(
        "--row",
        metavar="R",
        help="a row (a number from 1 or a token) as a bar chart; "
        "all (the default): the heat map of every row",
    )
    parser.add_argument("--variant", metavar="V", help="the scenario's variant of that name")
    parser.add_argument(
        "--train",
        action="store_true",
        help="the loss curves of the scenario's training runs (train:; each variant beside "
        "the others), instead of a stage",
    )
    parser.add_argument(
        "--model-view",
        action="store_true",
        help="every head of a model index (attn-tui capture --layer all), or of the scenario, "
        "as thumbnails of its weights with the pattern it scores highest",
    )
    parser.add_argument(
        "--layers",
        metavar="LIST",
        help="with --model-view of an index, only these layers (by number: 0-16, 0-3,8); "
        "what would take more than about 20 s is refused, naming the layers that fit",
    )
    parser.add_argument(
        "-o", "--output", metavar="FILE", help="the file to write (default: SVG on standard output)"
    )
    parser.add_argument(
        "--format", choices=FORMATS, help="svg, png or pdf (default: from -o's suffix, else svg)"
    )
    parser.add_argument("--debug", action="store_true", help=argparse.SUPPRESS)
    return parser


def figure(args: argparse.Namespace, write_out, say, scenario_path, select_rows) -> int:
    """Run the command; the other arguments are the CLI's own helpers."""
    from attn_tui.core import ScenarioError, load
    from attn_tui.core.outputs.figures.heat_map import FigureError

    whole = "--train" if args.train else "--model-view" if args.model_view else None
    if args.train and args.model_view:
        say("attn-tui figure: --train or --model-view, not both")
        return 2
    if args.layers is not None and not args.model_view:
        say(
            "attn-tui figure: --layers goes with --model-view "
            "(the layers of a model index it draws)"
        )
        return 2
    if whole:
        given = [
            f"--{name}"
            for name in ("stage", "head", "row", "variant")
            if getattr(args, name) is not None
        ]
        if given:
            say(
                f"attn-tui figure: {', '.join(given)} go{'es' if len(given) == 1 else ''} with a "
                f"stage's figure, not with {whole} "
                f"(which draws every {'run' if args.train else 'head'})"
            )
            return 2
    stage, head = args.stage or "weights", args.head
    if (
        args.output
        and args.format is None
        and _suffix(args.output)
        and _suffix_format(args.output) is None
    ):
        say(
            f"attn-tui figure: {visible(args.output)}: a figure is .svg, .png or .pdf "
            "(or give --format)"
        )
        return 2
    form = args.format or _suffix_format(args.output) or "svg"
    if form != "svg" and not args.output:
        say(f"attn-tui figure: {form.upper()} is written to a file: give -o FILE.{form}")
        return 2
    if form != "svg" and _converter() is None:
        from attn_tui.capture.install import install_command

        say(
            f"attn-tui figure: {form.upper()} needs the extra 'figures' "
            "(cairosvg and the system's libcairo): "
            f"{install_command('figures')}"
        )
        return 2
    try:
        path = scenario_path(args.file)
        if args.model_view:
            text = _model_view(path, args.layers)
        else:
            text = _stage_or_runs(args, load(path), stage, head, select_rows)
    except ScenarioError as error:
        say(str(error))
        return 2
    except (FigureError, ValueError) as error:
        say(f"attn-tui figure: {error}")
        return 2
    return _written(text, form, args, write_out, say)


def _model_view(path: str, layers: str | None) -> str:
    """Every head of the model index at ``path`` (only ``layers``, if given), or of the scenario
    there; either refused at once past about 20 s of work (core.loading.work_estimate)."""
    from attn_tui.core.loading.model_index import index_or_none, selected
    from attn_tui.core.loading.work_estimate import check_scenario_work
    from attn_tui.core.outputs.figures.heat_map import FigureError
    from attn_tui.core.outputs.figures.model_view import model_view_figure

    index = index_or_none(path)
    if index is None:
        if layers is not None:
            raise FigureError(f"--layers goes with a model index; {visible(path)} is one scenario")
        return model_view_figure(None, check_scenario_work(path))
    return model_view_figure(index if layers is None else selected(index, layers))


def _stage_or_runs(
    args: argparse.Namespace, scenario, stage: str, given: str | None, select_rows
) -> str:
    """A stage's heat map or a row's bars (of the scenario or its variant), or the runs' losses."""
    from attn_tui.core.outputs.figures.stage_figure import stage_figure

    rows = None if args.row in (None, "all") else select_rows(args.row, scenario.row_tokens)
    return stage_figure(
        scenario,
        stage,
        head=given,
        row=None if rows is None else rows[0],
        variant=args.variant,
        train=args.train,
    )


def _written(text: str, form: str, args: argparse.Namespace, write_out, say) -> int:
    """The figure's SVG ``text`` on standard output, or into ``-o`` as SVG, PNG or PDF."""
    if not args.output:
        write_out(text)
        return 0
    data = text.encode("utf-8") if form == "svg" else _converter()(text, form)
    try:
        write_file(args.output, data)
    except OSError as error:
        say(f"attn-tui figure: cannot write {visible(args.output)}: {error.strerror or error}")
        return 2
    say(f"attn-tui figure: wrote {visible(args.output)}")
    return 0


def write_file(path: str, data: bytes) -> None:
    """``data`` into ``path`` through a temporary file beside it, so a file there is never left half
    written; a FIFO or a device there is refused, not replaced by a file."""
    if os.path.exists(path) and not os.path.isfile(path) and not os.path.isdir(path):
        raise OSError(
            errno.EINVAL, "not a regular file (a FIFO or a device): a figure is written to a file"
        )
    folder = os.path.dirname(os.path.abspath(path))
    temporary = os.path.join(folder, f".{os.path.basename(path)}.{os.getpid()}.tmp")
    try:
        with open(temporary, "wb") as out:
            out.write(data)
        os.replace(temporary, path)
    except OSError:
        if os.path.lexists(temporary):
            os.unlink(temporary)
        raise


def _suffix(path: str | None) -> str:
    return os.path.splitext(path or "")[1].lower().lstrip(".")


def _suffix_format(path: str | None) -> str | None:
    return _suffix(path) if _suffix(path) in FORMATS else None


def _converter():
    """(svg text, "png"|"pdf") → bytes with cairosvg, or None without it (or without libcairo)."""
    try:
        import cairosvg
    except (ImportError, OSError):
        return None

    def convert(text: str, form: str) -> bytes:
        make = cairosvg.svg2png if form == "png" else cairosvg.svg2pdf
        return make(bytestring=text.encode("utf-8"))

    return convert
