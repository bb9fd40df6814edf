"""The Softcap stage's key: ``softcap: c`` (Gemma 2's attention-logit softcapping), a positive
number: every score before the mask becomes c·tanh(score / c), so none exceeds ±c."""

from __future__ import annotations

import math
from dataclasses import dataclass

from attn_tui.core.files.yaml_numbers import located, number
from attn_tui.core.files.yaml_text import yaml_number
from attn_tui.core.reading.keys import Entry

KEYS = ("softcap",)


@dataclass(frozen=True)
class SoftcapSetting:
    """The cap c."""

    cap: float

    def describe(self) -> str:
        return f"softcap {self.cap:g}"

    def yaml(self, matrix) -> str:
        return f"softcap: {yaml_number(float(self.cap))}\n"

    def of_head(self, h: int, heads: int) -> SoftcapSetting:
        return self  # the same cap for every head


def read(files, top: dict[str, Entry], plan) -> SoftcapSetting | None:
    if "softcap" not in top:  # an npz: member named softcap: the cap is a key of the file alone
        return None
    node = top["softcap"].value
    cap = number(node, "softcap")
    if not (cap > 0 and math.isfinite(cap)):
        raise located(node, f"softcap must be a positive number (Gemma 2 uses 50), not {cap:g}")
    return SoftcapSetting(cap)
