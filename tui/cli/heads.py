"""``attn-tui heads FILE_OR_INDEX [--sort NAME] [--json] [--layers 0-16]``: a table, one row per
layer and head, of the pattern scores of each head's weights (see core.teaching.patterns).
Headless: no Textual here. Work past about 20 s (reading the files as well as scoring: see
core.loading.work_estimate) is refused at once, naming the layers that fit.

Exit status: 0 printed; 2 a file that cannot be read (one line, FILE:LINE:COL where known), or
work refused.
"""

from __future__ import annotations

import argparse
import json

from attn_tui.core.teaching.patterns import DESCRIPTIONS, PATTERNS
from attn_tui.core.text import visible

NAME_WIDTH = 24
# model_index.work's units (half-ns): past about a second of work, a line per layer on stderr
PROGRESS_FROM = 2e9


def build_parser(parser_class=argparse.ArgumentParser) -> argparse.ArgumentParser:
    parser = parser_class(
        prog="attn-tui heads",
        description="Score every head of a scenario, or of every layer of a model index "
        "(attn-tui capture --layer all), for the standard attention patterns: "
        + "; ".join(f"{name}: {what}" for name, what in DESCRIPTIONS.items())
        + ".",
        epilog="Each score is a mean weight over the query rows (the first row, which under a "
        "causal mask can only see itself, is left out): 1 means all of every row's "
        "attention goes there. '—': the pattern does not apply (nothing repeats; "
        "cross-attention). Exit status: 0 printed, 2 a file that cannot be read.",
    )
    parser.add_argument(
        "file", metavar="FILE_OR_INDEX", help="a scenario file, a built-in's name, or a model index"
    )
    parser.add_argument(
        "--sort",
        choices=PATTERNS,
        metavar="NAME",
        help=f"the heads with the highest NAME first ({', '.join(PATTERNS)})",
    )
    parser.add_argument("--json", action="store_true", help="print the scores as one JSON object")
    parser.add_argument(
        "--layers",
        metavar="LIST",
        help="of an index, score only these layers (by number: 0-16, 0-3,8); what "
        "would take more than about 20 s is refused, naming the layers that fit",
    )
    parser.add_argument("--debug", action="store_true", help=argparse.SUPPRESS)
    return parser


def heads(args: argparse.Namespace, write_out, say, scenario_path) -> int:
    """Run the command; ``write_out``, ``say`` and ``scenario_path`` are the CLI's own."""
    from attn_tui.core import ScenarioError
    from attn_tui.core.loading.model_index import index_or_none
    from attn_tui.core.teaching.patterns import scenario_scores

    try:
        path = scenario_path(args.file)
        index = index_or_none(path)
        found = []
        kinds = {}  # layer → its kind, where the index says it
        if index is None:
            if args.layers is not None:
                say(
                    "attn-tui heads: --layers goes with a model index; "
                    f"{visible(path)} is one scenario"
                )
                return 2
            from attn_tui.core.loading.work_estimate import check_scenario_work

            found += scenario_scores(check_scenario_work(path))
        else:
            from attn_tui.core.loading.model_index import check_work, load_layer, selected
            from attn_tui.core.loading.work_estimate import RATE

            if args.layers is not None:
                try:
                    index = selected(index, args.layers)
                except ValueError as error:
                    say(f"attn-tui heads: {visible(str(error))}")
                    return 2
            estimate = check_work(index)
            # long work says how far it has got, on stderr
            tell = estimate.seconds * RATE > PROGRESS_FROM
            for number, entry in enumerate(index.layers, 1):
                if tell:
                    say(f"attn-tui heads: layer {entry.layer} ({number} of {len(index.layers)})")
                found += scenario_scores(load_layer(entry), entry.layer)
                if entry.kind is not None:
                    kinds[entry.layer] = entry.kind
    except ScenarioError as error:
        say(str(error))
        return 2
    if args.sort:
        found.sort(
            key=lambda head: (head.scores[args.sort] is None, -(head.scores[args.sort] or 0.0))
        )
    if args.json:
        document = {
            "file": path,
            "patterns": DESCRIPTIONS,
            "heads": [
                {
                    "layer": head.layer,
                    "head": head.head,
                    "name": head.name,
                    **head.scores,
                    **({"kind": kinds[head.layer].as_json()} if head.layer in kinds else {}),
                }
                for head in found
            ],
        }
        write_out(json.dumps(document, indent=1, allow_nan=False) + "\n")
        return 0
    write_out(table(found, kinds))
    return 0


def table(found, kinds=None) -> str:
    """The scores as aligned text, one line per head; names made visible and shortened;
    ``kinds`` (layer → its kind), a last column saying what sort of attention each layer is."""
    kinds = kinds or {}
    names = [_shown(head.name) for head in found]
    width = max([len("head"), *map(len, names)])
    lines = [f"{'layer':>5}  {'head':<{width}}  " + "  ".join(f"{name:>9}" for name in PATTERNS)]
    if kinds:
        lines[0] += "  kind"
    for head, name in zip(found, names):
        layer = "" if head.layer is None else str(head.layer)
        cells = "  ".join(
            f"{'—' if value is None else f'{value:.3f}':>9}"
            for value in (head.scores[name_] for name_ in PATTERNS)
        )
        kind = kinds.get(head.layer)
        lines.append(
            f"{layer:>5}  {name:<{width}}  {cells}"
            + ("" if kind is None else f"  {kind.describe()}")
        )
    return "\n".join(lines) + "\n"


def _shown(name: str) -> str:
    name = visible(name)
    return name if len(name) <= NAME_WIDTH else name[: NAME_WIDTH - 1] + "…"
