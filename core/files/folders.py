"""Where attn-tui keeps what outlives a run: recovery copies in the state folder, the theme
and palette in the config folder, as the XDG Base Directory spec says.

The standard library alone, not platformdirs: two folders do not need a fourth dependency, and
on macOS platformdirs would move them to ~/Library, so the recovery copies of edits made
before an upgrade would no longer be found.
"""

from __future__ import annotations

import os


def _xdg(variable: str, *default: str) -> str:
    """``$variable`` if it is an absolute path (the spec says to ignore a relative one, which
    would name a different folder from every working directory), else ``~/<default>``."""
    value = os.environ.get(variable, "")
    if os.path.isabs(value):
        return value
    return os.path.join(os.path.expanduser("~"), *default)


def state_folder() -> str:
    """attn-tui's state folder: ``$XDG_STATE_HOME/attn-tui``, by default
    ``~/.local/state/attn-tui``."""
    return os.path.join(_xdg("XDG_STATE_HOME", ".local", "state"), "attn-tui")


def config_folder() -> str:
    """attn-tui's config folder: ``$XDG_CONFIG_HOME/attn-tui``, by default
    ``~/.config/attn-tui``."""
    return os.path.join(_xdg("XDG_CONFIG_HOME", ".config"), "attn-tui")
