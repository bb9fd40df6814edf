"""The five stages of attention, in the order the app steps through them."""

STAGES = ("score", "scale", "mask", "softmax", "output")
STAGE_TITLES = {
    "score": "Score",
    "scale": "Scale",
    "mask": "Mask",
    "softmax": "Softmax",
    "output": "Weighted sum",
}
