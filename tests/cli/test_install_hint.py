"""capture's install hint is the form that works where attn-tui came from:
a clone ('.[models]' in its folder, as docs/capture.md installs), installed from a clone with
``pip install .`` (pip's PEP 610 record names the folder), a wheel file, or an index."""

from __future__ import annotations

import json
from importlib import metadata

import pytest

import attn_tui
from attn_tui.capture import install
from tests.conftest import ROOT


class Recorded:
    """A distribution whose direct_url.json says ``url``."""

    def __init__(self, url: str | None) -> None:
        self.url = url

    def read_text(self, name: str) -> str | None:
        assert name == "direct_url.json"
        return None if self.url is None else json.dumps({"url": self.url, "dir_info": {}})


@pytest.fixture
def site_packages(tmp_path, monkeypatch):
    """attn_tui as pip installs it: in a folder with no pyproject.toml beside it."""
    monkeypatch.setattr(attn_tui, "__path__", [str(tmp_path / "site" / "attn_tui")])

    def recorded(url):
        monkeypatch.setattr(metadata, "distribution", lambda name: Recorded(url))

    return recorded


def test_from_the_checkout_it_says_dot_models_in_its_folder():
    assert install.install_command() == f"python -m pip install '.[models]' (in {ROOT})"


def test_installed_from_a_clone_it_says_dot_models_in_the_clone(site_packages, tmp_path):
    clone = tmp_path / "my clone"
    clone.mkdir()
    (clone / "pyproject.toml").write_text('[project]\nname = "attn-tui"\n')
    site_packages(clone.as_uri())
    assert install.install_command() == f"python -m pip install '.[models]' (in {clone})"


def test_installed_from_a_wheel_it_names_the_wheel(site_packages, tmp_path):
    wheel = tmp_path / "attn_tui-1.0-py3-none-any.whl"
    wheel.write_bytes(b"")
    site_packages(wheel.as_uri())
    assert install.install_command() == f"python -m pip install '{wheel}[models]'"


@pytest.mark.parametrize("url", [None, "https://example.org/attn_tui-1.0.whl", "file:///gone/away"])
def test_from_an_index_or_a_folder_that_is_gone_it_says_the_name(site_packages, url):
    site_packages(url)
    assert install.install_command() == "python -m pip install 'attn-tui[models]'"


def test_docs_say_both_forms():
    text = " ".join((ROOT / "docs" / "capture.md").read_text(encoding="utf-8").split())
    assert "python -m pip install '.[models]'" in text and "'attn-tui[models]'" in text


def test_a_clone_whose_name_holds_an_escape_byte_is_shown_not_obeyed(site_packages, tmp_path):
    clone = tmp_path / "evil\x1b[31m"
    clone.mkdir()
    (clone / "pyproject.toml").write_text('[project]\nname = "attn-tui"\n')
    site_packages(clone.as_uri())
    hint = install.install_command()
    assert "\x1b" not in hint and "'.[models]' (in " in hint
