"""Getting a model into this process for ``attn-tui capture``: PyTorch and transformers (the
models extra) imported, or one line saying what to install; a configuration, tokenizer or model
loaded with ``from_pretrained``, a failure as one line; the libraries' progress bars off."""

from __future__ import annotations

import importlib.util

from attn_tui.capture.errors import CaptureError
from attn_tui.capture.install import install_command
from attn_tui.core.text import visible

INSTALL = install_command()


def import_models_extra():
    """torch and transformers, or a one-line :class:`CaptureError` saying what to install.

    Both are looked for before either is imported, so a missing one is named at once rather
    than after the seconds PyTorch takes to import.
    """
    missing = [name for name in ("torch", "transformers") if not _installed(name)]
    try:
        if not missing:
            import torch
            import transformers

            return torch, transformers
    except ImportError as exc:
        missing = [exc.name or "torch or transformers"]
    raise CaptureError(
        f"capture needs PyTorch and transformers ({' and '.join(missing)} "
        f"{'is' if len(missing) == 1 else 'are'} not installed): {INSTALL}"
    )


def _installed(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def load_pretrained(failure: str, loader, location: str, **kwargs):
    """``loader.from_pretrained``; a failure (a missing or broken file) as one line."""
    try:
        return loader.from_pretrained(location, **kwargs)
    except Exception as exc:  # whatever a broken model folder raises, the user can fix it
        reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise CaptureError(f"{failure}: {visible(reason)}") from None


def quiet_transformers(transformers) -> None:
    """No progress bars or load reports: the command's output is its one line."""
    transformers.utils.logging.set_verbosity_error()
    transformers.utils.logging.disable_progress_bar()
    from huggingface_hub.utils import disable_progress_bars

    disable_progress_bars()
