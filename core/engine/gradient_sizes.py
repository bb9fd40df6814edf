"""How much gradient reaches each variant's scores, in words with the numbers (the Train view and
the report): the seeds' point that, without ÷√d_k, a peaky softmax passes almost none.
"""

from __future__ import annotations

import math

import numpy as np

from attn_tui.core.engine import backward


def sizes_compared(attentions: dict, names: list[str], h: int = 0, p: int = 3) -> str:
    """In words, with the numbers: how much gradient reaches each variant's scores (‖dS‖ over
    every row), and, when one gets far less, why (its softmax is near one-hot)."""
    from attn_tui.core.engine.stages import summary
    from attn_tui.core.numbers import fixed
    from attn_tui.core.text import visible

    total = {name: float(np.linalg.norm(backward.row_sizes(attentions[name], h))) for name in names}
    told = ", ".join(f"{visible(name)} {fixed(total[name], p, True)}" for name in names)
    most, least = max(names, key=total.get), min(names, key=total.get)
    if len(names) < 2 or total[least] * 10 > total[most]:
        return f"‖dS‖ over every row: {told}."
    rows = range(attentions[least].T)
    peak = float(np.max(summary("max_weight").values(attentions[least].head(h), rows)))
    ratio = total[most] / total[least] if total[least] > 0 else math.inf
    # 1.717e33×, not 33 digits
    times = "no" if math.isinf(ratio) else f"{fixed(ratio, 0, True)}× less"
    return (
        f"‖dS‖ over every row: {told}. {times} gradient reaches {visible(least)}'s "
        f"scores: its softmax is near one-hot (largest weight {fixed(peak, p)}), "
        "so every p(1 − p) is near 0 — near-zero gradients, learning stalls."
    )
