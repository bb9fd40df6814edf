"""The labels of rows and columns, the same in the app, ``--print``, ``--markdown`` and errors.

Tokens label the query rows and the key columns; dimensions are numbered from 1 with a letter
that says which space they belong to: ``d`` for a head's query/key/value dimensions, ``m`` for
the model's (X's columns and the rows of the projection weights), ``h2·d1`` for dimension 1 of
head 2 in the concatenation, ``o`` for the output projection's.
"""

from __future__ import annotations

from functools import lru_cache

from attn_tui.core.text import visible

ROLES = {
    "Q": "queries",
    "K": "keys",
    "V": "values",
    "X": "embeddings",
    "X_q": "query embeddings",
    "Wq": "query weights",
    "Wk": "key weights",
    "Wv": "value weights",
    "Wo": "output weights",
    "bo": "output bias",
    "bias": "added to the scaled scores",
}

_SUBSCRIPTS = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")


def token_labels(tokens: tuple[str, ...] | list[str]) -> tuple[str, ...]:
    """Each token as a label: made visible, and numbered by its position where the same token
    occurs more than once (``the₁`` … ``the₅``), so no label is ambiguous."""
    return _token_labels(tuple(tokens))


@lru_cache(maxsize=16)
def _token_labels(tokens: tuple[str, ...]) -> tuple[str, ...]:
    counts: dict[str, int] = {}
    for token in tokens:
        counts[token] = counts.get(token, 0) + 1
    return tuple(
        visible(token) + (str(i + 1).translate(_SUBSCRIPTS) if counts[token] > 1 else "")
        for i, token in enumerate(tokens)
    )


@lru_cache(maxsize=64)  # (the same tuple each time: a view measures labels it has not seen)
def dims(count: int, letter: str = "d") -> tuple[str, ...]:
    """``d1``, ``d2``, … (or another letter)."""
    return tuple(f"{letter}{j + 1}" for j in range(count))


@lru_cache(maxsize=64)
def concat_dims(heads: int, width: int) -> tuple[str, ...]:
    """The concatenation's columns: ``h1·d1 … h1·dN, h2·d1 …``."""
    return tuple(f"h{h + 1}·d{j + 1}" for h in range(heads) for j in range(width))


def input_labels(scenario, name: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Row and column labels of an input matrix (one head's, for a 3-D input)."""
    values = scenario.inputs[name]
    rows, columns = values.shape[-2:]
    if name in ("Q", "X_q", "bias") or (name == "X" and not scenario.cross):
        row_labels = token_labels(scenario.row_tokens)
    elif name in ("K", "V", "X"):
        row_labels = token_labels(scenario.tokens)
    elif name == "Wo":
        row_labels = concat_dims(scenario.heads, scenario.d_v)
    elif name == "bo":
        row_labels = ("bo",)
    else:  # Wq, Wk, Wv: one row per model dimension
        row_labels = dims(rows, "m")
    if name == "bias":  # a number per score: queries × keys
        column_labels = token_labels(scenario.tokens)
    elif name in ("X", "X_q"):
        column_labels = dims(columns, "m")
    elif name in ("Wo", "bo"):
        column_labels = dims(columns, "o")
    elif name in ("Wq", "Wk", "Wv") and scenario.heads > 1:
        groups = scenario.heads if name == "Wq" else scenario.kv_heads
        column_labels = concat_dims(groups, columns // groups)
    else:
        column_labels = dims(columns)
    return row_labels, column_labels
