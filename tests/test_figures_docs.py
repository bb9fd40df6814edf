"""docs/figures/*.svg, the figures docs/figures.md shows, are what docs/figures.py makes today
(regenerate with python docs/figures.py), and the page shows each of them."""

from __future__ import annotations

import math
import re

from tests.conftest import ROOT, load_script

SCRIPT = ROOT / "docs" / "figures.py"
NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:e[-+]?\d+)?")


def script():
    return load_script(SCRIPT)


def close(new: str, old: str) -> bool:
    """Two numbers of a figure the same to float64's rounding: another CPU's BLAS adds a training
    run's sums in another order, so a value written in full (a cell's ``data-value``) may differ
    in its last digits, and a coordinate written to two places by one in its last place. A whole
    number (a step, a pixel of the layout) is the same or not."""
    places = len(old.partition(".")[2])
    if "e" not in old and places <= 2:
        return new == old if places == 0 else abs(float(new) - float(old)) <= 1.01 * 10**-places
    return math.isclose(float(new), float(old), rel_tol=1e-9, abs_tol=1e-300)


def same_figure(made: str, checked_in: str) -> bool:
    """The same text between the numbers, and every number ``close``."""
    return NUMBER.split(made) == NUMBER.split(checked_in) and all(
        close(new, old)
        for new, old in zip(NUMBER.findall(made), NUMBER.findall(checked_in), strict=True)
    )


def test_the_checked_in_figures_are_what_the_script_makes_now():
    for name, text in script().figures().items():
        checked_in = ROOT / "docs" / "figures" / name
        assert checked_in.exists() and same_figure(text, checked_in.read_text(encoding="utf-8")), (
            f"docs/figures/{name} is out of date: run python docs/figures.py"
        )


def test_a_figure_is_out_of_date_when_a_word_or_a_number_changes_not_a_last_digit():
    old = '<text x="12.50">cat</text><rect data-value="0.26194371531839034"/>'
    assert same_figure(old, old.replace("0.26194371531839034", "0.2619437153183902"))
    assert same_figure(old, old.replace("12.50", "12.51"))
    assert not same_figure(old, old.replace("12.50", "12.52"))
    assert not same_figure(old, old.replace("0.26194371531839034", "0.2619438"))
    assert not same_figure(old, old.replace("cat", "sat"))
    assert not same_figure(old, old.replace("12.50", "2.50"))
    assert not same_figure(old.replace("12.50", "12"), old.replace("12.50", "13"))


def test_the_page_shows_every_figure():
    page = (ROOT / "docs" / "figures.md").read_text(encoding="utf-8")
    for name, _ in script().FIGURES:
        assert f"figures/{name}" in page, name
