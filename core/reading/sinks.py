"""The Softmax stage's key ``sinks:`` (gpt-oss's learned attention sinks): one logit s_h per
head, softmaxed with the row's scores as one more column and then dropped, so that a row's
weights sum to less than 1. ``sinks: [0.5, -1.0]`` gives each head its own; ``sinks: 0.5`` one
for every head. A logit is a finite number within ±``LARGEST``."""

from __future__ import annotations

from dataclasses import dataclass

from attn_tui.core.files.yaml_numbers import count, located, number
from attn_tui.core.files.yaml_source import Sequence, deref
from attn_tui.core.files.yaml_text import yaml_number
from attn_tui.core.reading.keys import Entry

KEYS = ("sinks",)
LARGEST = 1e4  # |s_h| at most: exp(s_h − the row's largest) stays a number a reader can follow


@dataclass(frozen=True)
class SinksSetting:
    """Each head's sink logit, in head order."""

    logits: tuple[float, ...]

    def describe(self) -> str:
        return "learned sinks"

    def yaml(self, matrix) -> str:
        return "sinks: [" + ", ".join(yaml_number(float(s)) for s in self.logits) + "]\n"

    def of_head(self, h: int, heads: int) -> SinksSetting:
        return SinksSetting((self.logits[h],))  # head h's own, for the head taken alone


def read(files, top: dict[str, Entry], plan) -> SinksSetting | None:
    if "sinks" not in top:
        return None
    node = top["sinks"].value
    listed = deref(node)
    if isinstance(listed, Sequence):
        if len(listed.items) != plan.heads:
            raise located(
                listed,
                f"sinks has {count(len(listed.items), 'logit')} but the scenario has "
                f"{count(plan.heads, 'head')}: one sink logit per head",
            )
        items = listed.items
        logits = [number(item, f"sink logit {h}") for h, item in enumerate(items, 1)]
    else:
        items = [node]
        logits = [number(node, "sinks")] * plan.heads
    for item, logit in zip(items, logits):
        if not abs(logit) <= LARGEST:
            raise located(item, f"a sink logit must be a number within ±{LARGEST:g}, not {logit:g}")
    for key, what in (("tiles", "the online softmax (tiles:)"), ("decode", "decoding")):
        if key in top:
            raise located(
                top[key].key,
                f"sinks: and {what} do not go together yet: the online softmax and the decoder "
                "here have no sink column",
            )
    return SinksSetting(tuple(float(logit) for logit in logits))
