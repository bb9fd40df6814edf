"""The check a save makes before it writes anything: the text, read back, gives exactly the
scenario being saved (every number bit for bit, and the tokens, heads, masks and lesson)."""

from __future__ import annotations

import numpy as np

from attn_tui.core.errors import NeedsRewrite, SaveError, ScenarioError
from attn_tui.core.loading.scenario_file import loads
from attn_tui.core.model.scenario import Scenario

# why an edit cannot be written into the author's own text
LAYOUT = (
    "this file's layout (anchors shared with other keys, tags, …) cannot take the edit in "
    "place; nothing was written. Saving it rewritten keeps every number but not its comments "
    "and layout"
)


def verify(text: str, scenario: Scenario, path: str | None = None, in_place: bool = True) -> None:
    """Unless ``text`` (saved at ``path``) loads back to exactly ``scenario``: ``NeedsRewrite``
    for the author's text with edits written in, ``SaveError`` for a rewritten file."""
    failed = NeedsRewrite if in_place else SaveError
    try:
        saved = loads(text, path or scenario.path or "<saved>")
    except ScenarioError as error:
        if in_place:
            raise NeedsRewrite(
                f"{LAYOUT} (with the edit in place it would not load: {error.message})"
            ) from None
        raise SaveError(f"the file would not load ({error.message}); nothing was written") from None
    if not (saved.same_numbers(scenario) and _same_layout(saved, scenario)):
        raise failed(
            LAYOUT if in_place else "the file would not give back every number; nothing was written"
        )


def _same_layout(a: Scenario, b: Scenario) -> bool:
    """Same tokens, heads, masks (what is not a number but changes every number) and lesson."""
    fields = (
        "tokens",
        "query_tokens",
        "heads",
        "kv_heads",
        "head_names",
        "window",
        "padding",
        "rope",
        "stage_settings",
        "heads_written",
        "lesson",
        "generated",
    )
    return all(getattr(a, name) == getattr(b, name) for name in fields) and (
        (a.mask is None and b.mask is None)
        or (a.mask is not None and b.mask is not None and np.array_equal(a.mask, b.mask))
    )
