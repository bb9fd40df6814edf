"""Shared fixtures; hypothesis runs without deadlines because the machines are shared and noisy."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from hypothesis import settings

settings.register_profile("default", deadline=None, print_blob=True)
settings.load_profile("default")

# Checks that several test modules share live in modules of their own: pytest rewrites their
# asserts too, so that a failed check shows its values as it did inside a test module.
pytest.register_assert_rewrite(
    "tests.engine.stage_contract_checks",
    "tests.engine.float64_tolerance",
    "tests.capture.family_attention",
)

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = ROOT / "scenarios"


def load_script(path: Path):
    """A script of the repository that is not a package's module (docs/*.py, benchmarks/*.py),
    imported from its file."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# Why a "models" test skips: PyTorch and transformers are not in the test extra (a user's pip
# could bring a CUDA torch of several GB); .ci/run installs them.
NEEDS_MODELS = (
    "needs PyTorch and transformers, not in the test extra: "
    "pip install torch --index-url https://download.pytorch.org/whl/cpu; pip install transformers"
)
NEEDS_FIGURES = "needs cairosvg, the figures extra: pip install 'attn-tui[figures]'"

# What a test may need beyond the test extra, as the reason it skips without it names it, and
# the marker it must carry (pyproject.toml): CI's first run is a newcomer's, without them, and
# its second installs them and runs only the tests of their markers (.ci/run). A test that skips
# for one of them unmarked would run in neither, and fails instead, saying so.
EXTRAS = {
    "models": re.compile(r"torch|transformers|huggingface_hub", re.IGNORECASE),
    "figures": re.compile(r"cairosvg"),
    "browser": re.compile(r"chromium", re.IGNORECASE),
    "tmux": re.compile(r"\btmux\b"),
    "sandbox": re.compile(r"bubblewrap|\bbwrap\b"),
}
# The markers whose needs CI has installed (.ci/run's second run): a test of theirs that skips
# for lack of what they need fails, rather than pass unseen.
INSTALLED_EXTRAS = set(os.environ.get("ATTN_TUI_EXTRAS_INSTALLED", "").split())


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    report = yield
    if report.skipped and isinstance(report.longrepr, tuple):
        reason = report.longrepr[2]
        needs = [marker for marker, named in EXTRAS.items() if named.search(reason)]
        unmarked = [marker for marker in needs if item.get_closest_marker(marker) is None]
        if unmarked:
            report.outcome = "failed"
            report.longrepr = (
                f"{reason}\nwithout its marker ({' and '.join(unmarked)}): CI's second run, "
                "which installs what it needs, would not select it (tests/conftest.py)"
            )
        elif INSTALLED_EXTRAS.intersection(needs):
            report.outcome = "failed"
            report.longrepr = f"{reason}\nthough CI installed what it needs (.ci/run)"
    return report


@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report(collector):
    """A test module that skips whole (it imports PyTorch) fails too where CI installed it."""
    report = yield
    if report.skipped and isinstance(report.longrepr, tuple):
        reason = report.longrepr[2]
        if any(EXTRAS[marker].search(reason) for marker in INSTALLED_EXTRAS if marker in EXTRAS):
            report.outcome = "failed"
            report.longrepr = f"{reason}\nthough CI installed what it needs (.ci/run)"
    return report


@pytest.fixture(autouse=True)
def state_folder(tmp_path_factory, monkeypatch):
    """Recovery copies and remembered settings go to folders of each test's own, never the
    user's."""
    folder = tmp_path_factory.mktemp("state")
    monkeypatch.setenv("XDG_STATE_HOME", str(folder))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path_factory.mktemp("config")))
    return folder


@pytest.fixture
def write(tmp_path):
    """Write a scenario file into a fresh folder and return its path."""

    def write(text: str | bytes, name: str = "scenario.yaml") -> Path:
        path = tmp_path / name
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(text, encoding="utf-8")
        return path

    return write
