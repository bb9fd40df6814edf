"""docs/screenshot.svg, README's picture of the app, is what docs/screenshot.py makes today: the
app's own export of cat_sat at Softmax, 120×40 (regenerate with python docs/screenshot.py)."""

from __future__ import annotations

import re

from tests.conftest import ROOT, load_script

SCRIPT = ROOT / "docs" / "screenshot.py"
CHECKED_IN = ROOT / "docs" / "screenshot.svg"


def script():
    return load_script(SCRIPT)


async def test_the_checked_in_screenshot_is_what_the_script_makes_now():
    svg = await script().screenshot()
    assert svg == CHECKED_IN.read_text(encoding="utf-8"), (
        "docs/screenshot.svg is out of date: run python docs/screenshot.py"
    )


def test_the_screenshot_shows_cat_sat_at_softmax(tmp_path):
    module = script()
    out = tmp_path / "shot.svg"
    module.main([str(out)])
    svg = out.read_text(encoding="utf-8")
    assert svg.startswith("<svg") and svg.rstrip().endswith("</svg>")
    text = svg.replace("&#160;", " ")
    for token in ("the", "cat", "sat"):
        assert re.search(rf">{token}\s*<", text), token
    assert "Softmax" in text and "0.503" in text  # "sat"'s weight on itself, at the step shown


def test_readme_shows_the_screenshot():
    assert "](docs/screenshot.svg)" in (ROOT / "README.md").read_text(encoding="utf-8")
