"""How to install an extra (``models``: PyTorch and transformers; ``figures``: cairosvg), said
in the form that works where this attn-tui came from. The standard library only: capture's help
says it before either is imported."""

from __future__ import annotations

import shlex


def install_command(extra: str = "models") -> str:
    """How to get the extra ``extra``, in the form that works where this attn-tui came from: run
    from a checkout, or installed with ``pip install .`` from a clone (pip records the folder,
    PEP 610's direct_url.json), ``'.[models]'`` in that folder, as docs/capture.md installs; from
    a wheel file, that file with ``[models]``; else (an index) by name. (Issue 50: the hint said
    ``'attn-tui[models]'`` to a teacher who had installed from a clone, which pip cannot find.)"""
    from pathlib import Path

    import attn_tui
    from attn_tui.core.text import visible  # (a folder's name is outside text: shown, never obeyed)

    for folder in map(Path, attn_tui.__path__):
        if _is_checkout(folder.parent):
            return f"python -m pip install '.[{extra}]' (in {visible(str(folder.parent))})"
    source = installed_from()
    if source is not None and _is_checkout(source):
        return f"python -m pip install '.[{extra}]' (in {visible(str(source))})"
    if source is not None and source.suffix == ".whl" and source.is_file():
        return f"python -m pip install {visible(shlex.quote(f'{source}[{extra}]'))}"
    return f"python -m pip install 'attn-tui[{extra}]'"


def installed_from():
    """The local folder or file pip installed attn-tui from (PEP 610's direct_url.json), if any."""
    import json
    from importlib import metadata
    from pathlib import Path
    from urllib.parse import unquote, urlparse

    try:
        recorded = metadata.distribution("attn-tui").read_text("direct_url.json")
        url = urlparse(json.loads(recorded)["url"]) if recorded else None
    except (metadata.PackageNotFoundError, ValueError, KeyError, TypeError, OSError):
        return None
    return Path(unquote(url.path)) if url is not None and url.scheme == "file" else None


def _is_checkout(folder) -> bool:
    project = folder / "pyproject.toml"
    return project.is_file() and 'name = "attn-tui"' in project.read_text(
        encoding="utf-8", errors="replace"
    )
