"""The five stages of attention, in the order the app steps through them, and what each shows."""

from __future__ import annotations

from attn_tui.core.numbers import mask_text
from attn_tui.core.options import Options

STAGES = ("score", "scale", "mask", "softmax", "output")
STAGE_TITLES = {
    "score": "Score",
    "scale": "Scale",
    "mask": "Mask",
    "softmax": "Softmax",
    "output": "Weighted sum",
}


def stage_heading(stage: str, options: Options, d_k: int) -> str:
    """What a stage's matrix holds, under the options in force: ``scores ÷√2 = 1.414``,
    ``no causal mask: every key visible``… (the app, --print and --markdown all say this)."""
    if stage == "scale":
        scale = options.scale_text(d_k)
        return "scaling is off: scaled = scores" if scale == "none" else f"scores {scale}"
    if stage == "mask":
        if not options.causal:
            return "no causal mask: every key visible"
        return f"future keys set to {mask_text(options.mask_value)}"
    return {"score": "Q·Kᵀ (row = query, column = key)", "softmax": "weights, each row sums to 1",
            "output": "output = weights·V"}[stage]
