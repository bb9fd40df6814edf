"""Fixtures of the capture tests."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    """``models(family, **config)``: the folder of a tiny model of ``family`` with ``config``,
    built the first time a test module asks for it (tests/tiny_models.py)."""
    from tests.tiny_models import save_family  # it imports torch: not before a test asks

    folder = tmp_path_factory.mktemp("families")
    made = {}

    def model(family: str, **config) -> Path:
        key = (family, tuple(sorted(config.items())))
        if key not in made:
            made[key] = save_family(family, folder / f"tiny-{family}-{len(made)}", **config)
        return made[key]

    return model
