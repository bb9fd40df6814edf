"""A new scenario file, commented key by key, for a teacher to fill in: what ``attn-tui new``
writes.

The text loads as it stands (zeros, or rounded random numbers), so a teacher can open it at
once and edit the numbers in the app or in an editor. Every top-level key carries a comment
saying what it means and which values it takes, in the tone of the built-in scenarios.
"""

from __future__ import annotations

import re

import yaml

from attn_tui.core.files.yaml_text import yaml_decimal, yaml_quoted
from attn_tui.core.limits import MAX_DIM, MAX_NUMBERS, MAX_T, MAX_TOKEN_LENGTH, MAX_YAML_NODES

RANDOM_DECIMALS = 2
_OTHER_VALUES = 64  # keys and options beside the tokens and the matrices, with room to spare
MAX_SEED = 2**32 - 1  # what np.random.seed accepts

# A token written bare in a flow list only if it is a word: letters, digits, "_", "." and "-",
# starting with a letter, digit or "_". Anything else (":", "#", "[", quotes, spaces, …) is quoted.
_BARE_TOKEN = re.compile(r"\w[\w.-]*")
# What some YAML reader could take for a number although YAML 1.1 does not: 1e9, 1_000, 0b1.
_NUMBER_LIKE = re.compile(r"[0-9][0-9_]*(?:\.[0-9_]*)?(?:[eE][+-]?[0-9]+)?|0[bBoOxX][0-9a-fA-F_]+")
# YAML 1.1 booleans PyYAML reads as text but other readers (and YAML's own spec) do not.
_OTHER_BOOLEANS = {"y", "Y", "n", "N"}


def scenario_template(
    tokens: list[str], d_k: int, d_v: int | None = None, seed: int | None = None
) -> str:
    """The text of a new scenario file over ``tokens`` with Q, K (T × d_k) and V (T × d_v).

    Without ``seed`` every number is 0; with one they are
    ``np.random.seed(seed); Q = randn(T, d_k); K = randn(T, d_k); V = randn(T, d_v)`` rounded
    to 2 decimals. ``d_v`` defaults to ``d_k``. Tokens come back from the file as the very same
    strings (those YAML would misread, such as ``on``, ``1`` or ``a: b``, are quoted).
    ``ValueError`` says what is wrong with an argument: no tokens, an empty token, a width or
    a count beyond the limits a scenario file has.
    """
    tokens = _checked_tokens(tokens)
    d_k = _checked_width(d_k, "d_k")
    d_v = d_k if d_v is None else _checked_width(d_v, "d_v")
    T = len(tokens)
    total = T * (2 * d_k + d_v)
    if total > MAX_NUMBERS:
        raise ValueError(
            f"too many numbers: T × (2·d_k + d_v) = {total:,}; a scenario holds at "
            f"most {MAX_NUMBERS:,}"
        )
    if total + 4 * T + _OTHER_VALUES > MAX_YAML_NODES:  # what the YAML file writes out
        raise ValueError(
            f"too many numbers for a scenario written in YAML: T × (2·d_k + d_v) = "
            f"{total:,}; a YAML file holds at most {MAX_YAML_NODES:,} values "
            "(larger matrices go in .npy files: Q: {npy: q.npy})"
        )
    if seed is not None and (
        isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED
    ):
        raise ValueError(f"seed must be a whole number from 0 to {MAX_SEED}, not {seed!r}")

    written = [_yaml_token(token) for token in tokens]
    matrices = _numbers(T, d_k, d_v, seed)
    shape = f"d_k = {d_k}, d_v = {d_v}"
    how = f"random numbers from seed {seed}" if seed is not None else "zeros to fill in"
    focus = written[-1] if tokens.count(tokens[-1]) == 1 else str(T)
    out = [
        f"# A new attention scenario: {T} token{'s' if T != 1 else ''}, {shape}, {how}.",
        "# Written by `attn-tui new`. Edit it here or in the app, then open it with",
        "#     attn-tui THIS_FILE.yaml",
        "# (`attn-tui --check THIS_FILE.yaml` checks it without opening the app).",
        "",
        "title: New scenario   # one line, shown at the top of the app",
        "description: >-       # what the student should predict or see; free text",
        "  Say here what to look for before stepping through: which token should",
        "  attend to which, and why.",
        "",
        "# One token per row of Q, K and V; a list, or one string split at spaces",
        '# ("the cat sat"). Quotes keep a token YAML would misread: "on", "1", "a: b".',
        f"tokens: [{', '.join(written)}]",
        "",
    ]
    if seed is not None:
        out += [
            f"# The numbers below are np.random.seed({seed}); Q = randn({T}, {d_k});",
            f"# K = randn({T}, {d_k}); V = randn({T}, {d_v}), "
            f"rounded to {RANDOM_DECIMALS} decimals. For the",
            "# unrounded numbers replace Q, K and V by: "
            f"random: {{seed: {seed}, T: {T}, d_k: {d_k}, d_v: {d_v}}}",
            "",
        ]
    roles = {
        "Q": f"# Queries (T × d_k = {T} × {d_k}): what each token is looking for.",
        "K": f"# Keys (T × d_k = {T} × {d_k}): what each token offers to be matched against.",
        "V": f"# Values (T × d_v = {T} × {d_v}): what each token hands over when attended to.",
    }
    for name in ("Q", "K", "V"):
        out += [roles[name], f"{name}:", *_rows(matrices[name], written)]
    out += [
        "",
        "causal: true      # true (default): a token never sees the tokens after it, "
        "as in a language",
        "                  # model; false: every token sees every token (bidirectional, like BERT)",
        "scale: true       # true (default): divide the scores by sqrt(d_k); false: no scaling;",
        "                  # a positive number such as 4: divide by that",
        "mask_value: -.inf # what a hidden score becomes: -.inf (default), or a finite negative",
        "                  # number such as -1e9 (the article's); too small a one leaks weight",
        f"{'focus: ' + focus:<17} # the query row shown first: a token or a 1-based row number"
        " (default: the last)",
        "precision: 3      # decimals shown, 0 to 12 (default 3)",
        "",
        "# Variants compute the same inputs under other options and show them side by side",
        "# (each row's largest weight). Uncomment to compare scaled with unscaled:",
        "# variants:",
        "#   - name: scaled",
        "#     scale: true",
        "#   - name: unscaled",
        "#     scale: false",
        "",
        "# Predict, then reveal: the app hides these stages' cells until the student has",
        "# guessed them (any of scores, scaled, weights, output). Uncomment to use:",
        "# predict: [weights]",
    ]
    return "\n".join(out) + "\n"


def _checked_tokens(tokens: list[str]) -> list[str]:
    if isinstance(tokens, str) or not hasattr(tokens, "__iter__"):
        raise ValueError("tokens must be a list of strings, such as ['the', 'cat', 'sat']")
    tokens = list(tokens)
    if not tokens:
        raise ValueError("at least one token is needed, such as ['the', 'cat', 'sat']")
    if len(tokens) > MAX_T:
        raise ValueError(f"{len(tokens):,} tokens; a scenario has at most {MAX_T:,}")
    for number, token in enumerate(tokens, 1):
        if not isinstance(token, str):
            raise ValueError(
                f"token {number} must be a string, not {type(token).__name__} {token!r}"
            )
        if not token.strip():
            raise ValueError(
                f"token {number} ({token!r}) is empty or only spaces; every row needs a "
                "token a reader can see"
            )
        if len(token) > MAX_TOKEN_LENGTH:
            raise ValueError(
                f"token {number} is {len(token):,} characters long; at most {MAX_TOKEN_LENGTH:,}"
            )
        try:
            token.encode("utf-8")
        except UnicodeEncodeError:
            raise ValueError(f"token {number} ({token!r}) cannot be written as UTF-8") from None
    return tokens


def _checked_width(value: int, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{name} must be a whole number from 1 to {MAX_DIM}, not {value!r}")
    if not 1 <= value <= MAX_DIM:
        raise ValueError(f"{name} must be from 1 to {MAX_DIM}, not {value}")
    return value


def _yaml_token(token: str) -> str:
    """The token as a YAML flow-list item that reads back as exactly ``token``."""
    if (
        _BARE_TOKEN.fullmatch(token)
        and token not in _OTHER_BOOLEANS
        and not _NUMBER_LIKE.fullmatch(token)
        and yaml.safe_load(token) == token
    ):
        return token
    return yaml_quoted(token)


def _numbers(T: int, d_k: int, d_v: int, seed: int | None) -> dict[str, list[list[str]]]:
    """Q, K and V as rows of number texts: zeros, or the seeded randn rounded."""
    shapes = {"Q": (T, d_k), "K": (T, d_k), "V": (T, d_v)}
    if seed is None:
        return {name: [["0"] * cols for _ in range(rows)] for name, (rows, cols) in shapes.items()}
    import numpy as np  # only here: a zero template needs no NumPy

    state = np.random.RandomState(seed)  # the legacy stream np.random.seed(seed) starts
    matrices = {
        name: np.round(state.randn(*shape), RANDOM_DECIMALS) for name, shape in shapes.items()
    }
    return {
        name: [[yaml_decimal(value, RANDOM_DECIMALS) for value in row] for row in matrix]
        for name, matrix in matrices.items()
    }


def _rows(rows: list[list[str]], tokens: list[str]) -> list[str]:
    """Block-style rows, numbers right-aligned in columns, each row's token in a comment."""
    width = max(len(text) for row in rows for text in row)
    lines = ["  - [" + ", ".join(text.rjust(width) for text in row) + "]" for row in rows]
    longest = max(len(line) for line in lines)
    return [f"{line.ljust(longest)}   # {token}" for line, token in zip(lines, tokens)]
