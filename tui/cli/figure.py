"""``attn-tui figure SCENARIO --stage NAME [--head H] [--row R|all] [--variant V] [-o FILE
[--force]] [--format svg|png|pdf] [--scale S | --width PX]``: a standalone figure of one stage
for slides and papers;
``attn-tui figure SCENARIO --train``: the loss curves of its training runs; ``attn-tui figure
INDEX --model-view``: the layers × heads grid of thumbnails with their pattern scores.

SVG needs nothing beyond today's dependencies (core.outputs.figures). PNG and PDF are the SVG
converted by cairosvg, the optional extra ``figures``: it draws the very SVG the tests check (one
picture, two formats) and is small, where matplotlib would mean drawing every figure twice and a
~40 MB dependency; cairosvg needs the system's libcairo, which a teacher's machine with a desktop
has. Without it: one line naming the extra, exit 2.

-o never replaces a file (or a link) that is there unless --force, as capture does; that is
checked before any work. --scale and --width size a PNG or PDF (cairosvg draws the SVG larger:
sharp on a projector), at most MAX_PIXELS a side.

Exit status: 0 written; 2 a file that cannot be read, a figure that cannot be made (no such
stage, head or row), no extra for PNG/PDF, or output that cannot be written.
"""

from __future__ import annotations

import argparse
import errno
import os
import re

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
    parser.add_argument(
        "--force",
        action="store_true",
        help="replace -o FILE if it exists (a symbolic link there is replaced by the figure, "
        "not written through)",
    )
    size = parser.add_mutually_exclusive_group()
    size.add_argument(
        "--scale",
        type=float,
        metavar="S",
        help="PNG or PDF: S times the figure's own size (2 or 3 for a projector; default 1)",
    )
    size.add_argument(
        "--width",
        type=int,
        metavar="PX",
        help="PNG or PDF: this many pixels wide (1920 for a full-width slide), the height in "
        "proportion",
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
    problem = _size_problem(args, form) or (
        _output_problem(args.output, args.force) if args.output else None
    )
    if problem:
        say(f"attn-tui figure: {problem}")
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
    if form == "svg":
        data = text.encode("utf-8")
    else:
        factor = _factor(text, args.scale, args.width)
        width, height = (round(side * factor) for side in _svg_size(text))
        if max(width, height) > MAX_PIXELS:
            say(
                f"attn-tui figure: that would be {width:,} × {height:,} pixels; at most "
                f"{MAX_PIXELS:,} a side (a smaller --scale or --width)"
            )
            return 2
        data = _converter()(text, form, factor)
    try:
        write_file(args.output, data, replace=args.force)
    except OSError as error:
        say(f"attn-tui figure: cannot write {visible(args.output)}: {error.strerror or error}")
        return 2
    say(f"attn-tui figure: wrote {visible(args.output)}")
    return 0


def write_file(path: str, data: bytes, replace: bool = False) -> None:
    """``data`` into ``path`` through a temporary file beside it, so a file there is never left half
    written; what is there already is kept (``FileExistsError``) unless ``replace``, and then a
    link there is replaced by the file, never written through; a FIFO or a device there is
    refused, not replaced by a file."""
    if os.path.exists(path) and not os.path.isfile(path) and not os.path.isdir(path):
        raise OSError(
            errno.EINVAL, "not a regular file (a FIFO or a device): a figure is written to a file"
        )
    folder = os.path.dirname(os.path.abspath(path))
    temporary = os.path.join(folder, f".{os.path.basename(path)}.{os.getpid()}.tmp")
    try:
        with open(temporary, "wb") as out:
            out.write(data)
        if replace:
            os.replace(temporary, path)
        else:  # a new name only: linking fails if anything appeared there meanwhile
            os.link(temporary, path, follow_symlinks=False)
            os.unlink(temporary)
    except OSError:
        if os.path.lexists(temporary):
            os.unlink(temporary)
        raise


MAX_PIXELS = 10_000  # a side of a PNG or PDF page: 10,000 × 10,000 px is 400 MB to draw
MAX_SCALE = 20.0


def _size_problem(args: argparse.Namespace, form: str) -> str | None:
    """Why --scale or --width cannot be had here (None: they can, or were not given)."""
    if args.scale is None and args.width is None:
        return None
    given = "--scale" if args.scale is not None else "--width"
    if form == "svg":
        return f"{given} goes with PNG or PDF (-o FILE.png): an SVG is drawn at any size"
    if args.scale is not None and not 0.1 <= args.scale <= MAX_SCALE:
        return f"--scale {args.scale:g}: a scale is from 0.1 to {MAX_SCALE:g}"
    if args.width is not None and not 16 <= args.width <= MAX_PIXELS:
        return f"--width {args.width}: a width is from 16 to {MAX_PIXELS:,} pixels"
    return None


def _output_problem(path: str, force: bool) -> str | None:
    """Why -o ``path`` may not be written (None: it may), said before any work, as capture
    does: what exists there is replaced only with --force, and a folder never."""
    shown = visible(path)
    if os.path.isdir(path) and not os.path.islink(path):
        return f"{shown} is a folder; give a file name (weights.svg)"
    if os.path.lexists(path) and not os.path.islink(path) and not os.path.isfile(path):
        return f"cannot write {shown}: not a regular file (a FIFO or a device): a figure is a file"
    if os.path.islink(path) and not force:
        return (
            f"{shown} is a symbolic link (to {visible(os.readlink(path))}); add --force to "
            "replace the link with the figure"
        )
    if os.path.lexists(path) and not force:
        return f"{shown} already exists; add --force to replace it"
    return None


def _svg_size(text: str) -> tuple[float, float]:
    """The width and height of the figure's SVG (core.outputs.figures.svg writes them first)."""
    found = re.search(r'<svg [^>]*width="([0-9.]+)" height="([0-9.]+)"', text)
    return (float(found[1]), float(found[2])) if found else (0.0, 0.0)


def _factor(text: str, scale: float | None, width: int | None) -> float:
    if width is not None:
        return width / (_svg_size(text)[0] or width)
    return scale or 1.0


def _suffix(path: str | None) -> str:
    return os.path.splitext(path or "")[1].lower().lstrip(".")


def _suffix_format(path: str | None) -> str | None:
    return _suffix(path) if _suffix(path) in FORMATS else None


def _converter():
    """(svg text, "png"|"pdf", scale) → bytes with cairosvg; None without it (or libcairo)."""
    try:
        import cairosvg
    except (ImportError, OSError):
        return None

    def convert(text: str, form: str, scale: float = 1.0) -> bytes:
        make = cairosvg.svg2png if form == "png" else cairosvg.svg2pdf
        return make(bytestring=text.encode("utf-8"), scale=scale)

    return convert
