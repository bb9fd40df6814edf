"""One installed name: the wheel holds attn_tui and nothing else, and works from any folder;
the tests themselves run on the checkout's files, never on an installed copy."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import attn_tui
import attn_tui.core
from tests.conftest import ROOT


def test_the_tests_import_the_checkout():
    for module in (attn_tui, attn_tui.core):
        assert Path(module.__file__).resolve().is_relative_to(ROOT), module.__file__


@pytest.fixture(scope="module")
def unpacked_wheel(tmp_path_factory) -> Path:
    """The wheel pip builds from the checkout, unpacked as site-packages would hold it."""
    out = tmp_path_factory.mktemp("wheel")
    result = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(out), str(ROOT)],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr
    (wheel,) = out.glob("*.whl")
    site = out / "site"
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(site)
    return site


def test_the_wheel_has_one_top_level_package(unpacked_wheel):
    (info,) = unpacked_wheel.glob("*.dist-info")
    assert (info / "top_level.txt").read_text().split() == ["attn_tui"]
    top = sorted(
        path.name for path in unpacked_wheel.iterdir() if not path.name.endswith(".dist-info")
    )
    assert top == ["attn_tui"]
    assert (unpacked_wheel / "attn_tui" / "scenarios" / "cat_sat.yaml").is_file()
    assert (unpacked_wheel / "attn_tui" / "tui" / "app.tcss").is_file()
    assert (unpacked_wheel / "attn_tui" / "capture" / "command.py").is_file()
    assert "attn-tui = attn_tui.tui.cli:main" in (info / "entry_points.txt").read_text()


def test_the_installed_copy_works_from_any_folder(unpacked_wheel, tmp_path):
    """Every documented headless command, run from an unrelated folder with only the wheel's
    files on the path; and the generic names core, tui, scenarios are not installed."""
    env = {**os.environ, "PYTHONPATH": str(unpacked_wheel)}

    def run(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, *args],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )

    where = run("-c", "import attn_tui.core, attn_tui.tui.cli; print(attn_tui.core.__file__)")
    assert where.returncode == 0 and where.stdout.startswith(str(unpacked_wheel)), where
    for generic in ("core", "tui", "scenarios"):
        assert run("-c", f"import {generic}").returncode == 1, generic
    assert "attn-tui" in run("-m", "attn_tui", "--version").stdout
    assert "cat_sat" in run("-m", "attn_tui", "--list").stdout
    printed = run("-m", "attn_tui", "--print", "cat_sat", "--row", "sat")
    assert "[0.248, 0.248, 0.503]" in printed.stdout, printed.stderr
    assert json.loads(run("-m", "attn_tui", "--json", "cat_sat").stdout)["tokens"] == [
        "the",
        "cat",
        "sat",
    ]
    assert "| the |" in run("-m", "attn_tui", "--markdown", "cat_sat").stdout
    assert (
        run("-m", "attn_tui", "new", "mine.yaml", "--tokens", "a b", "--d-k", "2").returncode == 0
    )
    checked = run("-m", "attn_tui", "--check", "mine.yaml")
    assert checked.returncode == 0 and "ok" in checked.stdout, checked.stderr
    capture_help = run("-m", "attn_tui", "capture", "--help")
    assert capture_help.returncode == 0 and "attn-tui[models]" in capture_help.stdout
