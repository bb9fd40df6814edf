"""The Decode stage's key: ``decode: true`` — replay the sequence as a decoder generates it,
one query at a time against a growing KV cache (``--decode`` on the command line; ``d`` in the
app). A decoder generates its own sequence: self-attention under a causal mask (or a window)."""

from __future__ import annotations

from dataclasses import dataclass

from attn_tui.core.files.yaml_numbers import boolean, located, named
from attn_tui.core.reading.keys import Entry

KEYS = ("decode",)


@dataclass(frozen=True)
class DecodeSetting:
    def describe(self) -> str:
        return "decoding with a KV cache"

    def yaml(self, matrix) -> str:
        return "decode: true\n"

    def of_head(self, h: int, heads: int) -> DecodeSetting:
        return self


def refusal(cross: bool, T: int, T_k: int, causal: bool, window: int | None) -> str | None:
    """Why a scenario cannot be decoded token by token, or None."""
    if cross or T != T_k:
        return (
            "decoding replays one sequence as a decoder generates it, a query and its key at "
            "each step: it needs self-attention, not cross-attention"
        )
    if not causal and window is None:
        return (
            "a decoder never sees the tokens after the one it generates: decoding needs the "
            "causal mask (causal: true) or a window"
        )
    return None


def read(files, top: dict[str, Entry], plan) -> DecodeSetting | None:
    if not boolean(top["decode"].value, "decode"):
        return None
    problem = refusal(plan.cross, plan.T, plan.T_k, plan.causal, plan.window)
    if problem:
        raise located(top["decode"].key, f"decode: {problem}")
    for variant, node in plan.variants:
        problem = refusal(plan.cross, plan.T, plan.T_k, variant.causal is not False, plan.window)
        if problem:
            raise located(
                node,
                f"variant {named(variant.name)}: the scenario decodes (decode: true): {problem}",
            )
    return DecodeSetting()
