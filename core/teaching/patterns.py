"""Which heads do what: standard pattern scores of a head's attention weights.

Each score is a mean weight over the query rows, so 1 means "all of every row's attention goes
there" and 0 "none of it":

- ``previous``: the weight on the token just before (j = i − 1);
- ``first``: the weight on the first token (j = 0): an attention sink;
- ``self``: the weight on the token itself (j = i);
- ``local``: the weight within 3 positions (|i − j| ≤ 3; itself and the one before included);
- ``induction``: when the text repeats, the weight from a repeated token to the token that
  followed its previous occurrence (Olsson et al., "In-context Learning and Induction Heads"):
  for token i equal to an earlier token p (the most recent), the weight on p + 1, for the rows
  where p + 1 is before i (else it would be the previous token's). None when nothing repeats.

The first row is left out of previous, first, self and local: under a causal mask it can only
look at itself, so it would say nothing about the head. Cross-attention has no positions in
common between queries and keys: only ``first`` is scored there. Pure NumPy.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

PATTERNS = ("previous", "first", "self", "local", "induction")
DESCRIPTIONS = {
    "previous": "mean weight on the token before (j = i − 1)",
    "first": "mean weight on the first token (j = 0): an attention sink",
    "self": "mean weight on the token itself (j = i)",
    "local": "mean weight within 3 positions (|i − j| ≤ 3)",
    "induction": "mean weight from a repeated token to the token after its previous occurrence",
}
LOCAL = 3
ROWS_AT_A_TIME = 256


@dataclass(frozen=True)
class HeadScores:
    """One head's scores; ``layer`` is None for a scenario that is not part of an index."""

    layer: int | None
    head: int
    name: str
    scores: dict[str, float | None]


def induction_targets(tokens: Sequence[str]) -> list[tuple[int, int]]:
    """(row, key) pairs: each token that occurred before, and the token after its most recent
    previous occurrence, when that is not the token just before it."""
    last_seen: dict[str, int] = {}
    pairs = []
    for i, token in enumerate(tokens):
        p = last_seen.get(token)
        if p is not None and p + 1 < i:
            pairs.append((i, p + 1))
        last_seen[token] = i
    return pairs


class _Sums:
    """Running sums of each pattern's weights, fed a band of rows at a time."""

    def __init__(self, tokens: Sequence[str] | None, cross: bool, T_q: int) -> None:
        self.cross = cross
        self.T_q = T_q
        self.targets = np.array(
            induction_targets(tokens) if tokens is not None and not cross else [], dtype=int
        ).reshape(-1, 2)
        self.sums = dict.fromkeys(PATTERNS, 0.0)

    def add(self, start: int, weights: np.ndarray) -> None:
        rows = np.arange(start, start + weights.shape[0])
        inside = np.arange(len(rows))
        if self.cross:
            self.sums["first"] += float(weights[:, 0].sum())
            return
        later = rows >= 1
        self.sums["first"] += float(weights[later, 0].sum())
        self.sums["previous"] += float(weights[inside[later], rows[later] - 1].sum())
        self.sums["self"] += float(weights[inside[later], rows[later]].sum())
        columns = np.arange(weights.shape[1])
        near = np.abs(rows[:, None] - columns[None, :]) <= LOCAL
        self.sums["local"] += float((weights * near)[later].sum())
        chosen = self.targets[(self.targets[:, 0] >= rows[0]) & (self.targets[:, 0] <= rows[-1])]
        self.sums["induction"] += float(weights[chosen[:, 0] - start, chosen[:, 1]].sum())

    def means(self) -> dict[str, float | None]:
        if self.cross:
            return {
                name: (self.sums[name] / self.T_q if name == "first" else None) for name in PATTERNS
            }
        rows = self.T_q - 1
        means: dict[str, float | None] = {
            name: (self.sums[name] / rows if rows else None) for name in PATTERNS
        }
        means["induction"] = (
            self.sums["induction"] / len(self.targets) if len(self.targets) else None
        )
        return means


def pattern_scores(
    weights: np.ndarray, tokens: Sequence[str] | None = None, cross: bool = False
) -> dict[str, float | None]:
    """The scores of one head's weights (T_q × T_k; see the module's docstring)."""
    sums = _Sums(tokens, cross or weights.shape[0] != weights.shape[1], weights.shape[0])
    sums.add(0, np.asarray(weights, dtype=np.float64))
    return sums.means()


def scenario_scores(
    scenario, layer: int | None = None, attention=None, also=None
) -> list[HeadScores]:
    """Every head's scores, from the weights attention computes for ``scenario`` (a band of
    rows at a time, never a whole T × T at once). ``also(h, start, weights)`` is handed each
    band too, for other work on the same weights (the model view's thumbnails)."""
    from attn_tui.core.engine.attention import Attention

    attention = attention if attention is not None else Attention(scenario)
    cross = scenario.cross or scenario.T != scenario.T_k
    found = []
    for h in range(scenario.heads):
        sums = _Sums(scenario.tokens, cross, scenario.T)
        for start in range(0, scenario.T, ROWS_AT_A_TIME):
            rows = range(start, min(scenario.T, start + ROWS_AT_A_TIME))
            weights = attention.head(h).values("softmax", rows, range(scenario.T_k))
            sums.add(start, weights)
            if also is not None:
                also(h, start, weights)
        found.append(HeadScores(layer, h, scenario.head_names[h], sums.means()))
    return found
