"""docs/figures/*.svg, the figures docs/figures.md shows, are what docs/figures.py makes today
(regenerate with python docs/figures.py), and the page shows each of them."""

from __future__ import annotations

from tests.conftest import ROOT, load_script

SCRIPT = ROOT / "docs" / "figures.py"


def script():
    return load_script(SCRIPT)


def test_the_checked_in_figures_are_what_the_script_makes_now():
    for name, text in script().figures().items():
        checked_in = ROOT / "docs" / "figures" / name
        assert checked_in.exists() and text == checked_in.read_text(encoding="utf-8"), (
            f"docs/figures/{name} is out of date: run python docs/figures.py"
        )


def test_the_page_shows_every_figure():
    page = (ROOT / "docs" / "figures.md").read_text(encoding="utf-8")
    for name, _ in script().FIGURES:
        assert f"figures/{name}" in page, name
