"""``rope: {base, pairs, dims}``: rotary position embeddings, turning Q and K (all their
dimensions, or the first ``dims``) before the scores."""

from __future__ import annotations

from typing import TYPE_CHECKING

from attn_tui.core.files.yaml_numbers import located, named, number, scalar_text, whole_number
from attn_tui.core.reading.keys import Entry, check_keys, entries

if TYPE_CHECKING:
    from attn_tui.core.model.rope import Rope

ROPE_KEYS = ("base", "pairs", "dims")


def rope(entry: Entry | None, layout: dict[str, int]) -> Rope | None:
    if entry is None:
        return None
    from attn_tui.core.model.rope import HALF, INTERLEAVED, Rope

    found = entries(entry.value, "rope")
    check_keys(found, ROPE_KEYS, "rope")
    base = number(found["base"].value, "rope base") if "base" in found else 10000.0
    if base <= 1:
        raise located(
            found["base"].value, f"rope base must be more than 1 (10000 is usual), not {base:g}"
        )
    pairs = scalar_text(found["pairs"].value, "rope pairs") if "pairs" in found else HALF
    if pairs not in (HALF, INTERLEAVED):
        raise located(
            found["pairs"].value,
            f"rope pairs must be {HALF!r} (dimension j with j + d/2, as "
            f"Llama) or {INTERLEAVED!r} (j with j + 1), not {named(pairs)}",
        )
    dims = None
    if "dims" in found:
        dims = whole_number(found["dims"].value, "rope dims", 2, layout["d_k"])
        if dims % 2:
            raise located(
                found["dims"].value,
                f"rope dims turns pairs of dimensions: it must be even, not {dims}",
            )
    elif layout["d_k"] % 2:
        raise located(
            entry.key,
            f"rope turns pairs of dimensions: d_k must be even, not {layout['d_k']} "
            "(or turn only some: rope: {dims: N})",
        )
    return Rope(base, pairs, dims)
