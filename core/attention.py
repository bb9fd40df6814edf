"""Scaled dot-product attention for a scenario, computed for what someone looks at.

Nothing here holds a T×T array for long. A view asks a head for a window of a stage (some rows,
some columns); the head computes the scores of the blocks of ``BLOCK`` query rows that window
touches — each block always the same rows against every key, so a value is the same whatever
asked for it — keeps each row's statistics (largest score, sum of exps) and caches the blocks
until an edit invalidates them. Scaling, masking and softmax are then elementwise on the
window; the weighted sum needs the whole row of weights and is cached per block too.

:class:`Attention` is one scenario under one set of options (the scenario's own, or a
variant's); variants share one :class:`~attn_tui.core.heads.HeadInputs` and its scores.
:func:`compute` assembles every stage of one head as dense arrays, for small scenarios and tests.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass

import numpy as np

from attn_tui.core.errors import NumericError
from attn_tui.core.heads import Changed, HeadInputs
from attn_tui.core.masks import Visibility
from attn_tui.core.numbers import decimals_needed
from attn_tui.core.options import Options
from attn_tui.core.scenario import Scenario
from attn_tui.core.softmax import entropy_rows

BLOCK = 16              # query rows per block
CACHE_BYTES = 256 << 20  # the blocks one Attention keeps, at most (least recently used go)
V_LIMIT = 1e307          # a weighted average of values this large could round past float64


class Attention:
    """A scenario's attention under one set of options, computed on demand, block by block."""

    def __init__(self, scenario: Scenario, options: Options | None = None,
                 inputs: HeadInputs | None = None, visibility: Visibility | None = None) -> None:
        self.scenario = scenario
        self.options = options or scenario.options
        self.inputs = inputs or HeadInputs(scenario)
        self.visibility = visibility or scenario.visibility(self.options)
        self.divisor = self.options.divisor(scenario.d_k)
        self.heads = [Head(self, h) for h in range(scenario.heads)]
        self._blocks: OrderedDict[tuple, Block] = OrderedDict()
        self._bytes = 0
        self._projected: dict[int, np.ndarray] = {}
        self._decimals: dict[tuple[str, int], int] = {}

    @property
    def T(self) -> int:
        return self.scenario.T

    def head(self, h: int = 0) -> Head:
        return self.heads[h]

    def decimals(self, name: str, h: int = 0) -> int:
        """The fewest decimals that show head ``h``'s Q, K or V (or an input such as Wo) as
        precisely as the scenario's precision: integers as integers, like the chapter."""
        key = (name, h)
        if key not in self._decimals:
            head = self.heads[h]
            values = {"Q": head.Q, "K": head.K, "V": head.V}.get(name)
            if values is None:
                values = self.scenario.inputs[name]
            self._decimals[key] = decimals_needed(values, self.scenario.precision)
        return self._decimals[key]

    # ---- after an edit --------------------------------------------------------------------------

    def invalidate(self, scenario: Scenario, changes: list[Changed]) -> None:
        """Forget what the changes make stale (the inputs are already up to date)."""
        self.scenario = scenario
        for name, h in list(self._decimals):  # (measuring a 16,384-row K again costs a V edit 1 ms)
            change = changes[h]
            if {"Q": change.q, "K": change.k, "V": change.v}.get(name, True):
                del self._decimals[name, h]
        for h, change in enumerate(changes):
            if change.k or change.q_rows is None:
                self._forget(lambda key, h=h: key[0] == h)
            elif len(change.q_rows):
                blocks = set((change.q_rows // BLOCK).tolist())
                self._forget(lambda key, h=h, blocks=blocks: key[0] == h and key[1] in blocks)
            if change.v:
                for key, block in self._blocks.items():
                    if key[0] == h:
                        block.output = block.entropy = None
        if any(change.anything for change in changes) or "Wo" in scenario.inputs:
            self._projected.clear()

    def _forget(self, stale) -> None:
        for key in [key for key in self._blocks if stale(key)]:
            self._bytes -= self._blocks.pop(key).nbytes
        self._projected.clear()

    # ---- blocks -------------------------------------------------------------------------------

    def block(self, h: int, b: int) -> Block:
        """Block ``b`` of head ``h``: its rows' scores and softmax statistics."""
        key = (h, b)
        found = self._blocks.get(key)
        if found is not None:
            self._blocks.move_to_end(key)
            return found
        block = self._compute_block(h, b)
        self._blocks[key] = block
        self._bytes += block.nbytes
        while self._bytes > CACHE_BYTES and len(self._blocks) > 1:
            _, old = self._blocks.popitem(last=False)
            self._bytes -= old.nbytes
        return block

    def _compute_block(self, h: int, b: int) -> Block:
        inputs = self.inputs
        start, stop = b * BLOCK, min((b + 1) * BLOCK, self.T)
        Q, K = inputs.Q(h), inputs.K(h)
        with np.errstate(over="ignore", invalid="ignore"):
            scores = Q[start:stop] @ K.T
        block = Block(start, scores, self)
        block.settle()
        return block

    def rows_of(self, rows: range) -> list[tuple[int, slice, slice]]:
        """The blocks a run of rows touches: (block, slice in the block, slice in the run)."""
        pieces = []
        b = rows.start // BLOCK
        while b * BLOCK < rows.stop:
            lo, hi = max(rows.start, b * BLOCK), min(rows.stop, (b + 1) * BLOCK)
            pieces.append((b, slice(lo - b * BLOCK, hi - b * BLOCK), slice(lo - rows.start, hi - rows.start)))
            b += 1
        return pieces

    # ---- after every head: concat and the output projection ----------------------------------

    def concat(self, rows: range) -> np.ndarray:
        """The heads' outputs side by side, rows × (heads · d_v)."""
        return np.hstack([head.output(rows, range(self.scenario.d_v)) for head in self.heads])

    def projected(self, rows: range) -> np.ndarray:
        """concat · Wo (+ bo), rows × d_out; the concatenation itself without Wo."""
        if "Wo" not in self.scenario.inputs:
            return self.concat(rows)
        out = np.empty((len(rows), self.scenario.d_out))
        for b, inside, part in self.rows_of(rows):
            block = self._projected.get(b)
            if block is None:
                block_rows = range(b * BLOCK, min((b + 1) * BLOCK, self.T))
                with np.errstate(over="ignore", invalid="ignore"):
                    block = self.concat(block_rows) @ self.scenario.inputs["Wo"]
                    if "bo" in self.scenario.inputs:
                        block = block + self.scenario.inputs["bo"][0]
                self._projected[b] = block
            out[part] = block[inside]
        return out

    def empty(self, rows: range) -> np.ndarray:
        """Per row: True when no key is visible to it in any head ("nothing to attend to")."""
        return np.logical_and.reduce([head.empty(rows) for head in self.heads])


class Block:
    """The scores of up to ``BLOCK`` query rows against every key, and what softmax needs of
    them: each row's largest masked score and the sum of ``exp(masked − largest)``."""

    def __init__(self, start: int, scores: np.ndarray, attention: Attention) -> None:
        self.start = start
        self.scores = scores
        self.attention = attention
        self.rows = np.arange(start, start + len(scores))
        self.row_max = self.row_sum = self.empty = None
        self.output: np.ndarray | None = None
        self.entropy: np.ndarray | None = None

    @property
    def nbytes(self) -> int:
        return self.scores.nbytes + (self.output.nbytes if self.output is not None else 0)

    def masked(self) -> np.ndarray:
        a = self.attention
        blocked = a.visibility.blocked(self.rows, np.arange(self.scores.shape[1]))
        return np.where(blocked, a.options.mask_value, self.scores / a.divisor), blocked

    def settle(self) -> None:
        masked, blocked = self.masked()
        self.empty = blocked.all(axis=1)
        safe = np.where(self.empty[:, None], 0.0, masked)  # a row seeing nothing: no NaN
        self.row_max = safe.max(axis=1)
        with np.errstate(over="ignore"):  # a mask value near −1.8e308 minus a positive max: −∞, weight 0
            self.row_sum = np.exp(safe - self.row_max[:, None]).sum(axis=1)

    def weights(self) -> np.ndarray:
        """Every weight of the block's rows (0 in a row that sees nothing)."""
        masked, _ = self.masked()
        with np.errstate(over="ignore", invalid="ignore"):
            weights = np.exp(masked - self.row_max[:, None]) / self.row_sum[:, None]
        weights[self.empty] = 0.0
        return weights

    def outputs(self, V: np.ndarray) -> np.ndarray:
        if self.output is None:
            weights = self.weights()
            # A weight below the smallest normal float64 (exp of a score far below the row's
            # largest) adds nothing an output can show, but subnormal operands make the matrix
            # product 200× slower; they are multiplied as 0 (the weights themselves are kept).
            normal = np.where(weights < np.finfo(np.float64).tiny, 0.0, weights)
            with np.errstate(over="ignore", invalid="ignore"):
                self.output = normal @ V
            self.entropy = entropy_rows(weights)
        return self.output


class Head:
    """One head's stages, as windows of rows × columns (``range`` objects)."""

    def __init__(self, attention: Attention, h: int) -> None:
        self.attention = attention
        self.h = h

    @property
    def Q(self) -> np.ndarray:
        return self.attention.inputs.Q(self.h)

    @property
    def K(self) -> np.ndarray:
        return self.attention.inputs.K(self.h)

    @property
    def V(self) -> np.ndarray:
        return self.attention.inputs.V(self.h)

    @property
    def options(self) -> Options:
        return self.attention.options

    @property
    def divisor(self) -> float:
        return self.attention.divisor

    def _gather(self, rows: range, width: int, piece) -> np.ndarray:
        out = np.empty((len(rows), width))
        a = self.attention
        for b, inside, part in a.rows_of(rows):
            out[part] = piece(a.block(self.h, b), inside)
        return out

    def scores(self, rows: range, cols: range) -> np.ndarray:
        c = slice(cols.start, cols.stop)
        return self._gather(rows, len(cols), lambda block, r: block.scores[r, c])

    def scaled(self, rows: range, cols: range) -> np.ndarray:
        return self.scores(rows, cols) / self.divisor

    def blocked(self, rows: range, cols: range) -> np.ndarray:
        return self.attention.visibility.blocked(np.arange(rows.start, rows.stop),
                                                 np.arange(cols.start, cols.stop))

    def masked(self, rows: range, cols: range) -> np.ndarray:
        return np.where(self.blocked(rows, cols), self.options.mask_value, self.scaled(rows, cols))

    def row_max(self, rows: range) -> np.ndarray:
        return self._gather(rows, 1, lambda block, r: block.row_max[r, None])[:, 0]

    def row_sum(self, rows: range) -> np.ndarray:
        return self._gather(rows, 1, lambda block, r: block.row_sum[r, None])[:, 0]

    def empty(self, rows: range) -> np.ndarray:
        return self._gather(rows, 1, lambda block, r: block.empty[r, None])[:, 0].astype(bool)

    def exp(self, rows: range, cols: range) -> np.ndarray:
        """``exp(masked − row_max)``: the numerators of the weights."""
        masked = self.masked(rows, cols)
        with np.errstate(over="ignore", invalid="ignore"):
            exp = np.exp(masked - self.row_max(rows)[:, None])
        exp[self.empty(rows)] = 0.0
        return exp

    def weights(self, rows: range, cols: range) -> np.ndarray:
        masked = self.masked(rows, cols)
        with np.errstate(over="ignore", invalid="ignore"):
            weights = np.exp(masked - self.row_max(rows)[:, None]) / self.row_sum(rows)[:, None]
        weights[self.empty(rows)] = 0.0
        return weights

    def output(self, rows: range, cols: range) -> np.ndarray:
        c = slice(cols.start, cols.stop)
        return self._gather(rows, len(cols), lambda block, r: block.outputs(self.V)[r, c])

    def max_weight(self, rows: range) -> np.ndarray:
        """Each row's largest weight, 1 / Σexp (the largest exp is exp(0) = 1); 0 if empty."""
        with np.errstate(divide="ignore"):
            return np.where(self.empty(rows), 0.0, 1.0 / self.row_sum(rows))

    def entropy(self, rows: range) -> np.ndarray:
        """Each row's entropy in nats (0 for one-hot, ln T for uniform)."""
        def piece(block: Block, r: slice) -> np.ndarray:
            block.outputs(self.V)
            return block.entropy[r, None]
        return self._gather(rows, 1, piece)[:, 0]


@dataclass(eq=False)
class Trace:
    """Every stage of one head as dense arrays (T = query rows; for small scenarios and tests).

    ``blocked`` is True where a mask hides a key from a query; ``exp`` holds
    ``exp(masked − row_max)``, the numerically stable form the weights are computed from.
    """

    tokens: tuple[str, ...]
    options: Options
    precision: int
    divisor: float
    Q: np.ndarray
    K: np.ndarray
    V: np.ndarray
    scores: np.ndarray
    scaled: np.ndarray
    blocked: np.ndarray
    masked: np.ndarray
    row_max: np.ndarray
    exp: np.ndarray
    row_sum: np.ndarray
    weights: np.ndarray
    output: np.ndarray
    max_weight: np.ndarray
    entropy: np.ndarray
    empty: np.ndarray

    @property
    def T(self) -> int:
        return len(self.tokens)

    @property
    def d_k(self) -> int:
        return self.Q.shape[1]

    @property
    def d_v(self) -> int:
        return self.V.shape[1]

    def stage(self, name: str) -> np.ndarray:
        """The matrix a stage produces: scores, scaled, masked, weights or output."""
        return {"score": self.scores, "scale": self.scaled, "mask": self.masked,
                "softmax": self.weights, "output": self.output}[name]


def trace(attention: Attention, h: int = 0) -> Trace:
    """Head ``h`` of ``attention`` as dense arrays, assembled from the same blocks a view reads."""
    head = attention.head(h)
    rows, keys = range(attention.T), range(attention.scenario.T_k)
    values = range(attention.scenario.d_v)
    return Trace(
        tokens=attention.scenario.row_tokens, options=attention.options,
        precision=attention.scenario.precision, divisor=attention.divisor,
        Q=head.Q, K=head.K, V=head.V, scores=head.scores(rows, keys), scaled=head.scaled(rows, keys),
        blocked=head.blocked(rows, keys), masked=head.masked(rows, keys), row_max=head.row_max(rows),
        exp=head.exp(rows, keys), row_sum=head.row_sum(rows), weights=head.weights(rows, keys),
        output=head.output(rows, values), max_weight=head.max_weight(rows),
        entropy=head.entropy(rows), empty=head.empty(rows))


def compute(scenario: Scenario, options: Options | None = None, causal_offset: int = 1) -> Trace:
    """Every stage of ``scenario``'s first head (under other ``options``, for a variant).

    ``causal_offset`` is where the causal mask starts: 1, the future, for attention itself; the
    diagnosis of a student's off-by-one mask recomputes with 0 or 2.
    """
    options = options or scenario.options
    attention = Attention(scenario, options, visibility=scenario.visibility(options, causal_offset))
    return trace(attention)


def compute_all(scenario: Scenario) -> dict[str, Trace]:
    """The scenario's own trace under ``""``, and one per variant under its name."""
    traces = {"": compute(scenario)}
    for variant in scenario.variants:
        traces[variant.name] = compute(scenario, variant.options(scenario.options))
    return traces


def require_finite(attention: Attention, changes: list[Changed], option_sets: list[Options]) -> None:
    """``NumericError`` if an edit made some score, scaled score or value leave float64's range.

    Only what the edit changed is checked (a row of scores for a query, a column for a key),
    so the check costs O(T·d) however large the scenario.
    """
    scenario = attention.scenario
    inputs = attention.inputs
    keys, queries = scenario.tokens, scenario.row_tokens
    d_k = scenario.d_k
    for h, change in enumerate(changes):
        Q, K, V = inputs.Q(h), inputs.K(h), inputs.V(h)
        for name, values, rows in (("Q", Q, change.q_rows), ("K", K, change.k_rows),
                                   ("V", V, change.v_rows)):
            if rows is not None and not len(rows):
                continue
            if not np.isfinite(values if rows is None else values[rows]).all():
                raise NumericError(f"{name} overflows float64 ({scenario.head_names[h]}); use smaller numbers")
        if change.v:  # the rows that changed (the others were checked when they did)
            moved = V if change.v_rows is None else V[change.v_rows]
            largest = max(float(moved.max()), -float(moved.min()))  # (no |V| the size of V)
            if largest >= V_LIMIT:
                raise NumericError(f"V holds {largest:.3e}: the weighted sum of such values can round "
                                   f"past float64's largest number; keep V below {V_LIMIT:.0e}")
        pieces = []
        if change.q_rows is None or change.k_rows is None:
            bound = float(np.abs(Q).max()) * float(np.abs(K).max()) * d_k
            if bound < 1e300:
                continue
            pieces = [(np.arange(i, min(i + 256, len(Q))), None) for i in range(0, len(Q), 256)]
        else:
            if len(change.q_rows):
                pieces.append((change.q_rows, None))
            if len(change.k_rows):
                pieces.append((None, change.k_rows))
        for rows, cols in pieces:
            with np.errstate(over="ignore", invalid="ignore"):
                block = (Q[rows] if rows is not None else Q) @ (K[cols] if cols is not None else K).T
            scaled = [block / options.divisor(d_k) for options in option_sets]
            for values, what in [(block, "score")] + [(s, "scaled score") for s in scaled]:
                if np.isfinite(values).all():
                    continue
                bad = np.argwhere(~np.isfinite(values))
                if len(bad):
                    i, j = bad[0]
                    i = rows[i] if rows is not None else i
                    j = cols[j] if cols is not None else j
                    raise NumericError(f"the {what} ({queries[i]}, {keys[j]}) overflows float64 "
                                       f"({values[bad[0][0], bad[0][1]]}); use smaller numbers")
