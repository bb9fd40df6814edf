"""What the app remembers between starts: the theme and the heat-map palette, in a small JSON
file under ``$XDG_CONFIG_HOME/attn-tui/`` (by default ``~/.config/attn-tui/``).

The file is read defensively — anything unexpected is ignored, never an error — and written
atomically; a folder that cannot be written only means nothing is remembered.
"""

from __future__ import annotations

import json
import os

from attn_tui.core.files.atomic_write import write_atomic
from attn_tui.core.files.folders import config_folder

PALETTES = ("theme", "colour-blind safe")
MAX_BYTES = 4096


def settings_path() -> str:
    return os.path.join(config_folder(), "settings.json")


def load_settings() -> dict[str, str]:
    """``{"theme": …, "palette": …}`` as last saved; missing or odd entries are left out."""
    try:
        with open(settings_path(), "rb") as file:
            data = json.loads(file.read(MAX_BYTES + 1)[:MAX_BYTES + 1].decode("utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    found = {}
    if isinstance(data.get("theme"), str) and len(data["theme"]) < 100:
        found["theme"] = data["theme"]
    if data.get("palette") in PALETTES:
        found["palette"] = data["palette"]
    return found


def save_settings(**changes: str) -> str | None:
    """Remember ``changes``; returns why not, if the file cannot be written."""
    settings = {**load_settings(), **changes}
    path = settings_path()
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        write_atomic(path, json.dumps(settings, indent=1) + "\n")
    except OSError as error:
        return f"cannot remember settings in {os.path.dirname(path)}: {error.strerror or error}"
    return None
