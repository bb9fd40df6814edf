"""README says which tests a local run skips that CI runs, and what each needs (a run without
PyTorch skips some, so its test command is not "exactly what CI runs"), and names the markers
CI's second run selects them by."""

from __future__ import annotations

import re

from tests.conftest import ROOT

README = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())
TESTS = {
    path: path.read_text(encoding="utf-8")
    for path in (ROOT / "tests").rglob("test_*.py")
    if path.name != "test_readme_skips.py"
}


def test_the_pins_readme_names_are_the_ones_ci_installs():
    pins = re.search(
        r"pip install -q (torch==[\w.]+ transformers==[\w.]+)", (ROOT / ".ci" / "run").read_text()
    )
    assert pins and f"`{pins.group(1)}`" in README
    assert "exactly what CI runs" not in README


def test_each_kind_of_skip_is_named_with_what_it_needs():
    capture = [
        p
        for p, text in TESTS.items()
        if p.parent.name == "capture"
        and re.search(r'^pytest\.importorskip\(\s*"(torch|huggingface_hub)"', text, re.MULTILINE)
    ]
    assert len(capture) == 8 and "capture's eight files" in README
    root = [p for p, text in TESTS.items() if re.search(r"needs root|geteuid\(\) != 0", text)]
    assert (
        len(root) == 4
        and "Four test files need root (they hand a file or folder to another user" in README
    )
    assert "apt-get install chromium tmux" in README and "cairosvg" in README
    # every marker CI's second run selects by is named, with what it needs
    markers = re.findall(r'^\s+"(\w+): ', (ROOT / "pyproject.toml").read_text(), re.MULTILINE)
    assert {"models", "figures", "browser", "tmux"} <= set(markers)
    for marker in set(markers) - {"slow"}:
        assert f"`{marker}`" in README, marker
    assert "python -m pytest -rs" in README
