"""The Mask stage's key ``chunk: C`` (Llama 4's chunked attention): a token sees only the tokens
of its own block of C (positions 0 … C − 1, C … 2C − 1, …), and, under the causal mask, only
those up to itself. A whole number from 1 to the number of tokens; self-attention only."""

from __future__ import annotations

from dataclasses import dataclass

from attn_tui.core.files.yaml_numbers import located, whole_number
from attn_tui.core.limits import MAX_T
from attn_tui.core.reading.keys import Entry

KEYS = ("chunk",)


@dataclass(frozen=True)
class ChunkSetting:
    """The chunk size C."""

    size: int

    def describe(self) -> str:
        return f"chunks of {self.size}"

    def yaml(self, matrix) -> str:
        return f"chunk: {self.size}\n"

    def of_head(self, h: int, heads: int) -> ChunkSetting:
        return self  # every head's mask is the same


def read(files, top: dict[str, Entry], plan) -> ChunkSetting | None:
    if "chunk" not in top:
        return None
    if plan.cross or plan.T != plan.T_k:
        raise located(
            top["chunk"].key,
            f"chunk needs as many queries as keys ({plan.T} queries, {plan.T_k} keys): it cuts "
            "one sequence into blocks, so it needs self-attention",
        )
    if "decode" in top:
        raise located(
            top["decode"].key,
            "decode: and chunk: do not go together yet: the decoder here keeps one cache, not "
            "one a chunk",
        )
    return ChunkSetting(whole_number(top["chunk"].value, "chunk", 1, MAX_T))
