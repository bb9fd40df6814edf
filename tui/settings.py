"""What the app remembers between starts: the theme and the heat-map palette, in a small JSON
file under ``$XDG_CONFIG_HOME/attn-tui/`` (by default ``~/.config/attn-tui/``).

The file is read as hostile: only a regular file (opened non-blocking, so a FIFO at its name
cannot hold the app), at most ``MAX_BYTES``, JSON of at most a shallow object. A file that is not
what attn-tui writes is set aside under a new name (never deleted: it may be the user's) and the
defaults used, with one notice; the app always opens. Written atomically; a folder that cannot be
written only means nothing is remembered.
"""

from __future__ import annotations

import json
import os
import stat
import time
from dataclasses import dataclass, field

from attn_tui.core.files.atomic_write import write_atomic
from attn_tui.core.files.folders import config_folder
from attn_tui.core.text import visible

PALETTES = ("theme", "colour-blind safe")
MAX_BYTES = 4096
MAX_THEME = 100  # characters in a theme's name


@dataclass(frozen=True)
class Settings:
    """The settings read (``values``), and ``notice``: what was wrong with the file, if anything."""

    values: dict[str, str] = field(default_factory=dict)
    notice: str | None = None


class _NotOurs(ValueError):
    """The settings file is not one attn-tui writes; the message says why."""


def settings_path() -> str:
    return os.path.join(config_folder(), "settings.json")


def load_settings() -> Settings:
    """The theme and palette as last saved; a file that is not what attn-tui writes is set aside."""
    path = settings_path()
    try:
        return Settings(_read(path))
    except FileNotFoundError:
        return Settings()
    except _NotOurs as why:
        return Settings(
            notice=f"{visible(path)} {why}: {_set_aside(path)}; using the default settings"
        )
    except OSError as error:
        return Settings(
            notice=f"cannot read {visible(path)} ({error.strerror or error}); "
            "using the default settings"
        )


def save_settings(**changes: str) -> str | None:
    """Remember ``changes``; returns why not, if the file cannot be written."""
    settings = {**load_settings().values, **changes}
    path = settings_path()
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        write_atomic(path, json.dumps(settings, indent=1) + "\n")
    except OSError as error:
        return (
            f"cannot remember settings in {visible(os.path.dirname(path))}: "
            f"{error.strerror or error}"
        )
    return None


def _read(path: str) -> dict[str, str]:
    with open(path, "rb", opener=_nonblocking) as file:
        if not stat.S_ISREG(os.fstat(file.fileno()).st_mode):
            raise _NotOurs("is not a regular file (a pipe, a device or a folder)")
        data = file.read(MAX_BYTES + 1)
    if len(data) > MAX_BYTES:
        raise _NotOurs(f"is larger than {MAX_BYTES:,} bytes")
    try:
        document = json.loads(data.decode("utf-8"))
    except (ValueError, RecursionError):
        raise _NotOurs("is not JSON") from None
    if not isinstance(document, dict):
        raise _NotOurs("is not a JSON object")
    theme, palette = document.get("theme"), document.get("palette")
    if theme is not None and not (isinstance(theme, str) and 0 < len(theme) <= MAX_THEME):
        raise _NotOurs("names no theme attn-tui could have written")
    if palette is not None and palette not in PALETTES:
        raise _NotOurs(f"names a palette attn-tui does not have (it has {', '.join(PALETTES)})")
    return {
        key: value for key, value in (("theme", theme), ("palette", palette)) if value is not None
    }


def _nonblocking(path: str, flags: int) -> int:
    return os.open(path, flags | getattr(os, "O_NONBLOCK", 0))


def _set_aside(path: str) -> str:
    """Move the file at ``path`` to a name of its own beside it (never over another file)."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    for n in range(100):
        aside = f"{path}.set-aside-{stamp}" + (f"-{n}" if n else "")
        if os.path.lexists(aside):
            continue
        try:
            os.rename(path, aside)
        except OSError as error:
            return f"it could not be set aside ({error.strerror or error}), so it is left as it is"
        return f"moved to {visible(aside)}"
    return "it is left as it is (too many files set aside already)"
