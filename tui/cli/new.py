"""``attn-tui new FILE --tokens … --d-k N``: a commented scenario to start from."""

from __future__ import annotations

import argparse
import os
import stat

from attn_tui.core.text import visible
from attn_tui.tui.cli.streams import EXIT_OK, EXIT_USAGE, say, write_out


def new_scenario(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    """``attn-tui new FILE …``: write a commented template. Only ever creates a file, or (with
    --force) replaces a regular file: never a device, a pipe, a folder, or a link's missing
    target."""
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
    write_out(
        visible(
            f"Wrote {args.file}: {tokens} tokens, d_k = {args.d_k}, d_v = {args.d_v or args.d_k}"
            f"{'' if args.random is None else f', random numbers from seed {args.random}'}. "
            f"Edit it, then: attn-tui {args.file}"
        )
        + "\n"
    )
    return EXIT_OK


def _new_file_refusal(path: str, force: bool) -> str | None:
    """Why ``new`` must not write ``path``, or None."""
    if not os.path.lexists(path):
        return None
    try:
        mode = os.stat(path).st_mode  # (through a link, the file it points to)
    except FileNotFoundError:
        return (
            f"is a symbolic link to {os.readlink(path)}, which does not exist; new does not "
            "create files through links: give the file's own path"
        )
    except OSError as exc:
        return f"cannot be used: {exc.strerror or exc}"
    if stat.S_ISDIR(mode):
        return f"is a folder; give a file name such as {os.path.join(path, 'scenario.yaml')}"
    if not stat.S_ISREG(mode):
        return (
            "is not a regular file (a device, a pipe or a socket); "
            "new only creates or replaces files"
        )
    if not force:
        return "already exists; add --force to replace it"
    return None
