"""Each head's queries, keys and values, as attention reads them, kept up to date cell by cell.

A scenario gives Q, K, V directly (one head as matrices, several as 3-D arrays: query head
``h`` reads key/value head ``h // (heads / kv_heads)``, Hugging Face's ``repeat_kv``), or gives
X with projections (head ``h`` uses columns ``h·d_k … (h+1)·d_k − 1`` of ``X·Wq``, PyTorch's
split), optionally normed (QK-norm: ``core.model.qk_norm``) and rotated by RoPE. Projections
are computed in tiles of ``ROWS`` rows × one head's columns, always the same tiles, so an edit
recomputes only the tiles it touches and the result is bit for bit what a fresh computation
gives.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field

import numpy as np

from attn_tui.core.model import qk_norm
from attn_tui.core.model.scenario import Scenario

ROWS = 32  # rows per projection tile (an X edit recomputes one tile of every head's Q, K, V)


@dataclass
class Changed:
    """What an edit changed in one head's inputs: query rows, key rows and value rows
    (``None`` rows mean all of them)."""

    q_rows: np.ndarray | None = field(default_factory=lambda: np.zeros(0, np.intp))
    k_rows: np.ndarray | None = field(default_factory=lambda: np.zeros(0, np.intp))
    v_rows: np.ndarray | None = field(default_factory=lambda: np.zeros(0, np.intp))

    @property
    def q(self) -> bool:
        """Whether Q moved."""
        return _some(self.q_rows)

    @property
    def k(self) -> bool:
        """Whether K moved."""
        return _some(self.k_rows)

    @property
    def v(self) -> bool:
        """Whether V moved."""
        return _some(self.v_rows)

    @property
    def anything(self) -> bool:
        return self.q or self.k or self.v


class HeadInputs:
    """Q (normed and rotated, if the scenario norms and rotates), K (likewise) and V of every
    head; and Q and K as projected (``Q_projected``) and as normed, before the rotation."""

    def __init__(self, scenario: Scenario) -> None:
        self.scenario = scenario
        self.heads = scenario.heads
        self.group = scenario.heads // scenario.kv_heads  # query heads per key/value head
        self._columns: dict[
            tuple[str, int], np.ndarray
        ] = {}  # (kind, head) → its columns of W, kept
        with np.errstate(over="ignore", invalid="ignore"):
            self.q_raw = [_read_only(self._project("q", h)) for h in range(self.heads)]
            self.k_raw = [_read_only(self._project("k", g)) for g in range(scenario.kv_heads)]
            self.v = [_read_only(self._project("v", g)) for g in range(scenario.kv_heads)]
        # QK-norm's setting (core.reading.qk_norm), or None: Q and K as projected are the normed
        # ones, the same list
        self.norm = scenario.stage_settings.get("qk_norm")
        self.q_normed = self._normed_heads("q")
        self.k_normed = self._normed_heads("k")
        self.q = [self._rotate(q) for q in self.q_normed]
        self.k = [self._rotate(k) for k in self.k_normed]
        # each row's largest |value| of a head's Q, K or V, kept up to date row by row: the
        # range checks of an edit read the largest of a 16,384-row matrix in O(T), not O(T·d)
        self._row_largest: dict[tuple[str, int], np.ndarray] = {}

    # ---- reading ------------------------------------------------------------------------------

    def kv(self, head: int) -> int:
        """The key/value head that query head ``head`` reads."""
        return head // self.group

    def Q(self, head: int) -> np.ndarray:
        return self.q[head]

    def K(self, head: int) -> np.ndarray:
        return self.k[self.kv(head)]

    def V(self, head: int) -> np.ndarray:
        return self.v[self.kv(head)]

    def largest(self, name: str, head: int) -> float:
        """The largest |value| of query head ``head``'s Q (as rotated), K or V."""
        which = head if name == "Q" else self.kv(head)
        return float(self._largest_rows(name, which).max(initial=0.0))

    def _largest_rows(self, name: str, which: int) -> np.ndarray:
        rows = self._row_largest.get((name, which))
        if rows is None:
            values = {"Q": self.q, "K": self.k, "V": self.v}[name][which]
            with np.errstate(invalid="ignore"):
                rows = self._row_largest[name, which] = np.abs(values).max(axis=1, initial=0.0)
        return rows

    def Q_projected(self, head: int) -> np.ndarray:
        """Q as the scenario gives it or X·Wq makes it: before the norm and the rotation."""
        return self.q_raw[head]

    def K_projected(self, head: int) -> np.ndarray:
        return self.k_raw[self.kv(head)]

    def Q_before_rotation(self, head: int) -> np.ndarray:
        """Q normed (QK-norm), not yet rotated: what RoPE turns."""
        return self.q_normed[head]

    def K_before_rotation(self, head: int) -> np.ndarray:
        return self.k_normed[self.kv(head)]

    # ---- updating -----------------------------------------------------------------------------

    def update(
        self, scenario: Scenario, matrix: str, row: int, col: int, head: int | None
    ) -> list[Changed]:
        """Take one changed input cell into account; returns, per query head, what changed."""
        self.scenario = scenario
        changes = [Changed() for _ in range(self.heads)]
        row_array = np.array([row])
        kind = _KIND.get(matrix)
        if kind is None:  # Wo or bo: nothing before the heads' outputs changes
            return changes
        if matrix in ("Q", "K", "V"):  # given directly: one head (or the only one) changed
            which = 0 if head is None else head
            self._set(kind, which, slice(row, row + 1))
            for h in self._readers(kind, which):
                self._mark(changes[h], kind, row_array)
            return changes
        if matrix in ("X", "X_q"):  # a token's embedding: its row of every projection it feeds
            kinds = ("q",) if matrix == "X_q" else ("k", "v") if scenario.cross else ("q", "k", "v")
            tile = slice(row - row % ROWS, row - row % ROWS + ROWS)
            for kind in kinds:
                for which in range(self.heads if kind == "q" else scenario.kv_heads):
                    self._set(kind, which, tile)
                    for h in self._readers(kind, which):
                        self._mark(changes[h], kind, row_array)
            return changes
        # a weight: one column of one head's projection, every row
        width = self._width(kind)
        which = col // width
        self._columns.pop((kind, which), None)
        self._set(kind, which, slice(None))
        for h in self._readers(kind, which):
            self._mark(changes[h], kind, None)
        return changes

    def _readers(self, kind: str, which: int) -> range:
        """The query heads that read head ``which`` of Q (itself) or of K, V (its group); every
        head, for Q or K normed over the whole projection."""
        if kind in ("q", "k") and self._whole_norm:
            return range(self.heads)
        return (
            range(which, which + 1)
            if kind == "q"
            else range(which * self.group, (which + 1) * self.group)
        )

    @staticmethod
    def _mark(change: Changed, kind: str, rows: np.ndarray | None) -> None:
        if kind == "v":
            change.v_rows = _union(change.v_rows, rows)
        elif kind == "q":
            change.q_rows = _union(change.q_rows, rows)
        else:
            change.k_rows = _union(change.k_rows, rows)

    def _set(self, kind: str, which: int, rows: slice) -> None:
        """Recompute rows of one head's Q, K or V (whole tiles), and their rotation."""
        target = {"q": self.q_raw, "k": self.k_raw, "v": self.v}[kind]
        if self.scenario.kind == "qkv":  # given directly: the scenario's own (read-only) array
            array = self.scenario.inputs[kind.upper()]
            target[which] = array[which] if array.ndim == 3 else array
            fresh = target[which][rows]
        else:
            with np.errstate(over="ignore", invalid="ignore"):
                fresh = self._project(kind, which, rows)
            # self.q holds q_raw's arrays too
            aliased = kind in ("q", "k") and self.scenario.rope is None and self.norm is None
            _write_rows(target, which, rows, fresh, aliases=int(aliased))
        changed = [which]
        if kind in ("q", "k"):
            changed = self._renorm(kind, which, rows)
        for which in changed:
            kept = self._row_largest.get((kind.upper(), which))
            if kept is not None:  # the rows set, measured again
                values = {"q": self.q, "k": self.k, "v": self.v}[kind][which]
                kept = kept.copy()
                with np.errstate(invalid="ignore"):
                    kept[rows] = np.abs(values[rows]).max(axis=1, initial=0.0)
                self._row_largest[kind.upper(), which] = kept

    def _renorm(self, kind: str, which: int, rows: slice) -> list[int]:
        """Norm and rotate again ``rows`` of head ``which``'s Q or K (of every head, when the
        norm is over the whole projection); returns the heads changed."""
        normed = self.q_normed if kind == "q" else self.k_normed
        rotated = self.q if kind == "q" else self.k
        rope = self.scenario.rope
        changed = list(range(len(normed))) if self._whole_norm else [which]
        for head in changed:
            if self.norm is not None:  # (else normed is the projections' list itself)
                fresh = self._norm_rows(kind, head, rows)
                _write_rows(normed, head, rows, fresh, aliases=int(rope is None))
            if rope is not None:
                _write_rows(rotated, head, rows, self._rotate(normed[head][rows], rows.start or 0))
            else:
                rotated[head] = normed[head]
        return changed

    # ---- computing ----------------------------------------------------------------------------

    def _width(self, kind: str) -> int:
        scenario = self.scenario
        return scenario.d_v if kind == "v" else scenario.d_k

    def _project(self, kind: str, which: int, rows: slice = slice(None)) -> np.ndarray:
        """Rows of head ``which`` of Q, K or V: read directly, or ``X·W`` tile by tile."""
        scenario = self.scenario
        name = kind.upper()
        if scenario.kind == "qkv":  # the scenario's own read-only float64 array: a view, no copy
            array = scenario.inputs[name]
            values = array[which] if array.ndim == 3 else array
            return values[rows]
        X = scenario.inputs["X_q" if kind == "q" and scenario.cross else "X"]
        W = scenario.inputs["W" + kind]
        width = self._width(kind)
        columns = self._columns.get((kind, which))
        if columns is None:  # one head's columns, contiguous: multiplied 2.5× faster
            columns = self._columns[kind, which] = np.ascontiguousarray(
                W[:, which * width : (which + 1) * width]
            )
        start, stop, _ = rows.indices(len(X))
        tiles = [X[first : first + ROWS] @ columns for first in range(start, stop, ROWS)]
        return np.vstack(tiles) if tiles else np.zeros((0, width))

    @property
    def _whole_norm(self) -> bool:
        return self.norm is not None and self.norm.whole

    def _normed_heads(self, kind: str) -> list:
        """Every head's Q or K normed: the projections' own list when nothing norms them."""
        raw = self.q_raw if kind == "q" else self.k_raw
        if self.norm is None:
            return raw
        return [_read_only(self._norm_rows(kind, which, slice(None))) for which in range(len(raw))]

    def _norm_rows(self, kind: str, which: int, rows: slice) -> np.ndarray:
        """Rows of head ``which``'s Q or K normed: over the head's own columns, or over every
        head's at once (then cut to the head's)."""
        raw = self.q_raw if kind == "q" else self.k_raw
        norm, d_k = self.norm, self.scenario.d_k
        with np.errstate(over="ignore", invalid="ignore"):
            if norm.whole:
                whole = np.hstack([values[rows] for values in raw])
                found = qk_norm.normed(whole, norm.gain(kind, whole.shape[1]), norm.eps)
                return np.ascontiguousarray(found[:, which * d_k : (which + 1) * d_k])
            return qk_norm.normed(raw[which][rows], norm.gain(kind, d_k), norm.eps)

    def _rotate(self, values: np.ndarray, first: int = 0) -> np.ndarray:
        """``values`` (rows at positions ``first``, ``first + 1``, …) turned by RoPE, if any."""
        rope = self.scenario.rope
        if rope is None:
            return values
        rotated = rope.rotate(values, np.arange(first, first + len(values)))
        rotated.flags.writeable = False
        return rotated


def _some(rows: np.ndarray | None) -> bool:
    """Whether changed ``rows`` hold any row (``None``: all of them)."""
    return rows is None or bool(len(rows))


def _union(rows: np.ndarray | None, more: np.ndarray | None) -> np.ndarray | None:
    """Rows changed so far and ``more`` (``None``: all of them)."""
    if rows is None or more is None:
        return None
    return more if not len(rows) else np.union1d(rows, more)


def _read_only(array: np.ndarray) -> np.ndarray:
    array.flags.writeable = False
    return array


def _write_rows(
    holder: list, which: int, rows: slice, values: np.ndarray, aliases: int = 0
) -> None:
    """Set ``rows`` of ``holder[which]``: in a copy if anything else holds the array (a view, a
    thread, a test — an array handed out never changes under whoever holds it), else in place.
    An X edit at 8 heads would otherwise copy 24 arrays of 512 KB on every key."""
    array = holder[which]
    # held by: ``holder``, ``aliases`` more lists of this object, ``array``, getrefcount's argument
    if sys.getrefcount(array) <= 3 + aliases and array.flags.owndata:
        array.flags.writeable = True
        array[rows] = values
        array.flags.writeable = False
    else:
        fresh = array.copy()
        fresh[rows] = values
        fresh.flags.writeable = False
        holder[which] = fresh


# the inputs each head's Q, K, V are made from: an edit of one is told as the Changed rows
_KIND = {"Q": "q", "K": "k", "V": "v", "X": "x", "X_q": "x", "Wq": "q", "Wk": "k", "Wv": "v"}
HEAD_INPUTS = frozenset(_KIND)
