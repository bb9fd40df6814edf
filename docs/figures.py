"""Make the figures docs/figures.md shows, with ``attn-tui figure`` itself.

    python docs/figures.py              # writes docs/figures/*.svg
    python docs/figures.py OUT_DIR      # writes them into OUT_DIR instead

tests/test_figures_docs.py checks that the checked-in figures are what this script makes today.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
# (file name, the command line after "attn-tui figure")
FIGURES = (
    ("cat_sat_weights.svg", ["cat_sat", "--stage", "weights"]),
    ("cat_sat_scores.svg", ["cat_sat", "--stage", "scores"]),
    ("cat_sat_sat_row.svg", ["cat_sat", "--stage", "weights", "--row", "sat"]),
    ("learning_to_attend_d_scores.svg", ["learning_to_attend", "--stage", "d_scores"]),
    ("padding_mask_weights.svg", ["padding_mask", "--stage", "weights"]),
    ("learning_to_attend_train.svg", ["learning_to_attend", "--train"]),
    ("two_heads_model_view.svg", ["two_heads", "--model-view"]),
)


def figures() -> dict[str, str]:
    """Every figure's SVG text, by file name."""
    from attn_tui.core import load
    from attn_tui.core.engine.attention import Attention
    from attn_tui.core.loading.catalog import find
    from attn_tui.core.outputs.figures.bars import bar_chart
    from attn_tui.core.outputs.figures.heat_map import heat_map
    from attn_tui.core.outputs.figures.loss_curves import loss_curves
    from attn_tui.core.outputs.figures.model_view import model_view_figure

    made = {}
    for name, argv in FIGURES:
        attention = Attention(load(find(argv[0])))
        if "--train" in argv:
            made[name] = loss_curves(attention.scenario)
            continue
        if "--model-view" in argv:
            made[name] = model_view_figure(None, attention.scenario)
            continue
        stage = argv[argv.index("--stage") + 1]
        if "--row" in argv:
            row = attention.scenario.row_tokens.index(argv[argv.index("--row") + 1])
            made[name] = bar_chart(attention, stage, row)
        else:
            made[name] = heat_map(attention, stage)
    return made


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    folder = Path(argv[0]) if argv else HERE / "figures"
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in figures().items():
        (folder / name).write_text(text, encoding="utf-8")
        print(folder / name)


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    main()
