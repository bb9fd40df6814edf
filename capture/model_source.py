"""Where a model's files are: a local folder, or a name in the local Hugging Face cache.

A name that is neither is downloaded from the Hugging Face Hub as ``from_pretrained`` would,
unless the machine is offline (``HF_HUB_OFFLINE`` or ``TRANSFORMERS_OFFLINE``) or the Hub does
not answer within 2 s, in which case the capture stops with one line saying so (the libraries'
own retries printed ~26 s of warnings first). Decided before any model code is imported, so a
mistyped name costs nothing.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from attn_tui.capture.errors import CaptureError
from attn_tui.core.text import quoted

_TRUE = {"1", "on", "yes", "true"}


@dataclass(frozen=True)
class ModelSource:
    """What to give ``from_pretrained``: a folder or a Hub name, and whether it may download."""

    location: str
    local_files_only: bool
    label: str  # the model's name for the title and description: the folder's or the Hub's

    @property
    def kwargs(self) -> dict:
        return {"local_files_only": self.local_files_only}


def locate(model: str) -> ModelSource:
    """The source of ``model`` (a folder path or a Hub name); :class:`CaptureError` if there is
    none that can be used."""
    if os.path.isdir(model):
        if not os.path.isfile(os.path.join(model, "config.json")):
            raise CaptureError(
                f"{quoted(model)} is a folder but not a Hugging Face model: it has no config.json"
            )
        label = os.path.basename(os.path.normpath(os.path.abspath(model)))
        return ModelSource(model, local_files_only=True, label=label)
    if os.path.exists(model):
        raise CaptureError(
            f"{quoted(model)} is a file; give a model folder (with config.json) "
            "or a model name such as openai-community/gpt2"
        )
    from huggingface_hub import try_to_load_from_cache
    from huggingface_hub.utils import HFValidationError, validate_repo_id

    try:
        validate_repo_id(model)
    except HFValidationError:
        raise CaptureError(f"{quoted(model)}: no such model folder") from None
    if isinstance(try_to_load_from_cache(model, "config.json"), str):
        return ModelSource(model, local_files_only=True, label=model)
    if offline():
        raise CaptureError(
            f"{quoted(model)}: no such model folder, and no model of that name in "
            "the local Hugging Face cache; this machine is offline "
            "(HF_HUB_OFFLINE), so it cannot be downloaded"
        )
    problem = hub_unreachable()
    if problem is not None:
        from huggingface_hub import constants

        raise CaptureError(
            f"{quoted(model)}: not in the local Hugging Face cache, and the Hub "
            f"({constants.ENDPOINT}) cannot be reached ({problem}); give a model folder "
            "(with config.json), or download the model once where the Hub can be "
            "reached, then capture with HF_HUB_OFFLINE=1 to use the cache alone"
        )
    return ModelSource(model, local_files_only=False, label=model)


HUB_TIMEOUT = 2.0  # seconds: the Hub answers a HEAD in well under one wherever it can be reached


def hub_unreachable(timeout: float = HUB_TIMEOUT) -> str | None:
    """Why the Hugging Face Hub cannot be reached now, or None if it answers (any HTTP answer
    will do). Asked as the libraries would (``HF_ENDPOINT``, the proxy settings), in a thread
    of its own, so that a name lookup that hangs is bounded too."""
    import threading
    import urllib.error
    import urllib.request

    from huggingface_hub import constants

    outcome: list[str | None] = []

    def ask() -> None:
        try:
            urllib.request.urlopen(
                urllib.request.Request(constants.ENDPOINT, method="HEAD"), timeout=timeout
            ).close()
            outcome.append(None)
        except urllib.error.HTTPError:
            outcome.append(None)  # it answered
        except urllib.error.URLError as error:
            reason = error.reason
            outcome.append(getattr(reason, "strerror", None) or str(reason))
        except (OSError, ValueError) as error:  # a timeout, a reset, a malformed endpoint
            outcome.append(getattr(error, "strerror", None) or str(error) or type(error).__name__)

    asking = threading.Thread(target=ask, daemon=True)
    asking.start()
    asking.join(timeout)
    return outcome[0] if outcome else f"no answer within {timeout:g} s"


def offline() -> bool:
    """Whether the Hugging Face libraries are told not to use the network (read now, not at
    their import)."""
    from huggingface_hub import constants

    settings = (os.environ.get("HF_HUB_OFFLINE"), os.environ.get("TRANSFORMERS_OFFLINE"))
    return constants.HF_HUB_OFFLINE or any(
        (value or "").strip().lower() in _TRUE for value in settings
    )
