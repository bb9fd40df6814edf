"""Shared fixtures; hypothesis runs without deadlines because the machines are shared and noisy."""

from __future__ import annotations

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
