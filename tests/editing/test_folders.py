"""The state and config folders follow the XDG Base Directory spec (core/files/folders.py)."""

import os

from attn_tui.core.editing import recovery
from attn_tui.core.files.folders import config_folder, state_folder
from attn_tui.tui.settings import settings_path


def test_an_absolute_xdg_folder_is_used(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    assert state_folder() == str(tmp_path / "state" / "attn-tui") == recovery.folder()
    assert settings_path() == str(tmp_path / "config" / "attn-tui" / "settings.json")


def test_unset_empty_or_relative_xdg_folders_mean_the_defaults_under_home(monkeypatch, tmp_path):
    monkeypatch.setenv("HOME", str(tmp_path))
    for value in (None, "", "relative/state"):  # the spec: a relative path is to be ignored
        for name in ("XDG_STATE_HOME", "XDG_CONFIG_HOME"):
            if value is None:
                monkeypatch.delenv(name, raising=False)
            else:
                monkeypatch.setenv(name, value)
        assert state_folder() == os.path.join(str(tmp_path), ".local", "state", "attn-tui")
        assert config_folder() == os.path.join(str(tmp_path), ".config", "attn-tui")
