"""Scaled dot-product attention for a scenario, computed for what someone looks at.

The arithmetic of each stage lives in its module (``core/engine/stages/``); this is the engine that
runs them in the registry's order for a window of rows × columns. A stage computed cell by
cell (scale, a bias, the mask, softmax) computes just the window asked for, from the same
window of the stage before it. A stage that needs whole rows (the scores ``Q·Kᵀ``, the weighted
sum, the output projection) is computed a block of ``BLOCK`` query rows at a time over every
column — each block always the same rows, so a value has the same bits whatever asked for it —
and kept, as are the per-row statistics a stage needs of whole rows (softmax's largest score
and sum of exps), until an edit makes them stale. Nothing here holds a T×T array for long.

:class:`Attention` is one scenario under one set of options (the scenario's own, or a
variant's); variants share one :class:`~attn_tui.core.model.heads.HeadInputs`.
``core.engine.trace`` assembles every stage of one head as dense arrays, for small scenarios and
tests.
"""

from __future__ import annotations

from collections import OrderedDict
from functools import lru_cache

import numpy as np

from attn_tui.core.engine.stages import Stage, inputs_read, reads, stages_for, upstream
from attn_tui.core.engine.stages.contract import Adds
from attn_tui.core.model.heads import HEAD_INPUTS, Changed, HeadInputs
from attn_tui.core.model.masks import Visibility
from attn_tui.core.model.options import Options
from attn_tui.core.model.scenario import Scenario
from attn_tui.core.numbers import decimals_needed

BLOCK = 16  # query rows per block
CACHE_BYTES = 256 << 20  # what one Attention keeps, at most (least recently used goes first)


class Attention:
    """A scenario's attention under one set of options, computed on demand, block by block."""

    def __init__(
        self,
        scenario: Scenario,
        options: Options | None = None,
        inputs: HeadInputs | None = None,
        visibility: Visibility | None = None,
        block: int = BLOCK,
    ) -> None:
        self.scenario = scenario
        self.block = block  # query rows computed at a time (and kept): fewer, bigger steps for
        # a view that reads every row once (the model view's maps), the same numbers to ~1 ulp
        self.options = options or scenario.options
        self.inputs = inputs or HeadInputs(scenario)
        self.visibility = visibility or scenario.visibility(self.options)
        self.divisor = self.options.divisor(scenario.d_k)
        self.steps = stages_for(scenario)
        self._stages, self._reads, self._depends = _wiring(self.steps)
        self.heads = [Head(self, h) for h in range(scenario.heads)]
        # (head, block, stage, what) → values
        self._kept: OrderedDict[tuple, object] = OrderedDict()
        self._bytes = 0
        self._decimals: dict[tuple[str, int], int] = {}
        self._backward = None

    @property
    def backward(self):
        """The backward pass (``core.engine.backward``), for a scenario with a ``loss:``; an edit
        drops it."""
        if self._backward is None:
            from attn_tui.core.engine.backward import Backward

            self._backward = Backward(self)
        return self._backward

    @property
    def T(self) -> int:
        return self.scenario.T

    def head(self, h: int = 0) -> Head:
        return self.heads[h]

    def stage(self, name: str) -> Stage:
        """One of this scenario's steps, by name."""
        try:
            return self._stages[name]
        except KeyError:
            raise ValueError(
                f"this scenario has no stage {name!r}; its stages are {', '.join(self._stages)}"
            ) from None

    def previous(self, name: str) -> str:
        """The stage ``name`` reads as the one before it."""
        return next(read for read in self._reads[name] if read in self._stages)

    def decimals(self, name: str, h: int = 0) -> int:
        """The fewest decimals that show head ``h``'s Q, K or V (or an input such as Wo) as
        precisely as the scenario's precision: integers as integers, like the chapter."""
        key = (name, h)
        if key not in self._decimals:
            values = {"Q": self.inputs.Q, "K": self.inputs.K, "V": self.inputs.V}.get(name)
            values = values(h) if values is not None else self.scenario.inputs[name]
            self._decimals[key] = decimals_needed(values, self.scenario.precision)
        return self._decimals[key]

    def stage_decimals(self, name: str, h: int = 0) -> int:
        """The decimals a stage's numbers are shown with."""
        stage = self._stages[name]
        return (
            stage.display.decimals(self, h)
            if stage.display.decimals is not None
            else self.scenario.precision
        )

    # ---- computing ----------------------------------------------------------------------------

    def values(self, name: str, h: int | None, rows: range, cols: range, keep=True) -> np.ndarray:
        """A window of a stage: ``rows`` × ``cols`` of head ``h`` (None for a stage after the
        heads). ``keep=False`` computes without keeping anything; a dict keeps what the
        computation makes there instead (a thread beside the app: see ``_kept_or``)."""
        stage = self.stage(name)
        if not stage.arithmetic.per_head:
            h = None
        if not stage.arithmetic.whole_rows:
            return stage.arithmetic.compute(Window(self, stage, h, rows, cols, keep))
        every = range(stage.column_count(self.scenario))
        c = slice(cols.start, cols.stop)
        return self._gather(
            rows, len(cols), lambda b, inside: self._block(stage, h, b, every, keep)[inside, c]
        )

    def statistics(self, name: str, h: int, rows: range, keep=True) -> dict[str, np.ndarray]:
        """A stage's per-row statistics (its ``statistics``) for ``rows``."""
        stage = self.stage(name)
        pieces: dict[str, list[np.ndarray]] = {}
        every = range(stage.column_count(self.scenario))
        for b, inside, _ in self.rows_of(rows):
            found = self._kept_or(
                (h, b, name, "statistics"),
                keep,
                lambda b=b: stage.arithmetic.statistics(
                    Window(self, stage, h, self._block_rows(b), every, keep)
                ),
            )
            for key, value in found.items():
                pieces.setdefault(key, []).append(value[inside])
        return {key: np.concatenate(parts) for key, parts in pieces.items()}

    def blocked(self, rows: range, cols: range) -> np.ndarray:
        """True where a mask rule hides a key from a query."""
        return self.visibility.blocked(
            np.arange(rows.start, rows.stop), np.arange(cols.start, cols.stop)
        )

    def empty(self, rows: range, keep=True) -> np.ndarray:
        """Per row: True when every key is hidden from it ("nothing to attend to")."""
        every = range(self.scenario.T_k)
        return self._gather(
            rows,
            1,
            lambda b, inside: self._kept_or(
                (None, b, "", "empty"),
                keep,
                lambda: self.blocked(self._block_rows(b), every).all(axis=1)[:, None],
            )[inside],
        )[:, 0].astype(bool)

    def _block(self, stage: Stage, h: int | None, b: int, every: range, keep) -> np.ndarray:
        return self._kept_or(
            (h, b, stage.name, "values"),
            keep,
            lambda: stage.arithmetic.compute(
                Window(self, stage, h, self._block_rows(b), every, keep)
            ),
        )

    def _kept_or(self, key: tuple, keep, make):
        """What is kept under ``key``, or ``make()`` of it: kept (``keep=True``), not
        (``False``), or in ``keep`` itself, a dict of one computation's own (a thread beside the
        app computes each block's scores once, and keeps nothing of the app's)."""
        if isinstance(keep, dict):
            found = keep.get(key)
            if found is None:
                found = self._kept.get(key)
            if found is None:
                found = keep[key] = make()
            return found
        found = self._kept.get(key)
        if found is not None:
            if keep:
                self._kept.move_to_end(key)
            return found
        found = make()
        if keep:  # read-only: a window handed out may be a view of what is kept
            for array in found.values() if isinstance(found, dict) else (found,):
                array.flags.writeable = False
            self._kept[key] = found
            self._bytes += _nbytes(found)
            while self._bytes > CACHE_BYTES and len(self._kept) > 1:
                _, old = self._kept.popitem(last=False)
                self._bytes -= _nbytes(old)
        return found

    def _block_rows(self, b: int) -> range:
        return range(b * self.block, min((b + 1) * self.block, self.T))

    def rows_of(self, rows: range) -> list[tuple[int, slice, slice]]:
        """The blocks a run of rows touches: (block, slice in the block, slice in the run)."""
        pieces = []
        size = self.block
        b = rows.start // size
        while b * size < rows.stop:
            lo, hi = max(rows.start, b * size), min(rows.stop, (b + 1) * size)
            pieces.append(
                (b, slice(lo - b * size, hi - b * size), slice(lo - rows.start, hi - rows.start))
            )
            b += 1
        return pieces

    def _gather(self, rows: range, width: int, piece) -> np.ndarray:
        pieces = self.rows_of(rows)
        if len(pieces) == 1:
            b, inside, _ = pieces[0]
            return piece(b, inside)
        out = np.empty((len(rows), width))
        for b, inside, part in pieces:
            out[part] = piece(b, inside)
        return out

    # ---- after an edit ------------------------------------------------------------------------

    def invalidate(
        self, scenario: Scenario, changes: list[Changed], matrix: str | None = None
    ) -> None:
        """Forget what the changes make stale (the inputs are already up to date): a changed
        Q row its blocks, a changed K or V every block, of the stages that depend on them;
        ``matrix`` names an edited input read by a stage directly (Wo, bo)."""
        self.scenario = scenario
        self._backward = None  # (every gradient depends on every input)
        for name, h in list(self._decimals):  # (measuring a 16,384-row K again costs a V edit 1 ms)
            change = changes[h]
            if {"Q": change.q, "K": change.k, "V": change.v}.get(name, name == matrix):
                del self._decimals[name, h]
        for key in [key for key in self._kept if self._stale(key, changes, matrix)]:
            self._bytes -= _nbytes(self._kept.pop(key))

    def _stale(self, key: tuple, changes: list[Changed], matrix: str | None) -> bool:
        h, b, name, _ = key
        if not name:  # which rows see nothing: the mask's alone, no edit changes it
            return False
        depends = self._depends[name]
        if (
            matrix in depends and matrix not in HEAD_INPUTS
        ):  # (Q, K, V and what makes them: told by changes)
            return True
        for change in changes if h is None else [changes[h]]:
            if ("K" in depends and change.k) or ("V" in depends and change.v):
                return True
            if (
                "Q" in depends
                and change.q
                and (change.q_rows is None or np.any(change.q_rows // self.block == b))
            ):
                return True
        return False


@lru_cache(maxsize=64)
def _wiring(steps: tuple[Stage, ...]) -> tuple[dict, dict, dict]:
    """Each step by name, what it reads and the inputs it depends on: worked out once per list
    of steps (every Attention of a scenario has the same), not at every option change."""
    # (an input a stage adds, by its range rule: the explicit bias, is read by that stage, and so
    # by every stage after it)
    added = {
        stage.name: stage.score_range.input
        for stage in steps
        if isinstance(stage.score_range, Adds) and stage.score_range.input is not None
    }
    return (
        {stage.name: stage for stage in steps},
        {stage.name: reads(stage, steps) for stage in steps},
        {
            stage.name: inputs_read(stage.name, steps)
            | {
                name
                for adder, name in added.items()
                if adder == stage.name or adder in upstream(stage.name, steps)
            }
            for stage in steps
        },
    )


def _nbytes(kept) -> int:
    return sum(value.nbytes for value in kept.values()) if isinstance(kept, dict) else kept.nbytes


class Window:
    """What a stage's ``compute`` (and its ``statistics``, and its ChainRule's ``derivative``)
    is given: one head, some rows, some columns, and ways to read the inputs and the stages
    before it for the same rows. A stage reads nothing else.

    ``attention``  the :class:`Attention` (its ``scenario``, ``options``, ``divisor``, ``inputs``)
    ``stage``      the :class:`~attn_tui.core.engine.stages.Stage` being computed
    ``head``       the head, 0 … heads − 1 (None for a stage after the heads: concat, project)
    ``rows``       the query rows (or the key rows, for a stage whose rows are keys), a range
    ``cols``       its columns, a range (keys, dimensions, tiles: the stage's ``columns``)
    ``keep``       whether what it reads is kept (True), not (False), or kept in this dict (a
                   thread beside the app): pass it on, never look at it

    ``previous()`` and ``read(name)`` give the same rows of the stage before it or of any stage
    it reads, ``input(name)`` a whole input as this head sees it, ``blocked()`` and ``empty()``
    the mask for the window, ``statistics()`` this stage's per-row statistics for its rows.
    """

    def __init__(
        self,
        attention: Attention,
        stage: Stage,
        head: int | None,
        rows: range,
        cols: range,
        keep=True,
    ) -> None:
        self.attention = attention
        self.stage = stage
        self.head = head
        self.rows = rows
        self.cols = cols
        self.keep = keep

    @property
    def scenario(self) -> Scenario:
        return self.attention.scenario

    @property
    def options(self) -> Options:
        return self.attention.options

    def input(self, name: str) -> np.ndarray:
        """This head's Q (rotated, under RoPE), K or V, whole; another input (Wo, bo) as given."""
        inputs = self.attention.inputs
        reader = {"Q": inputs.Q, "K": inputs.K, "V": inputs.V}.get(name)
        return reader(self.head) if reader is not None else self.scenario.inputs[name]

    def previous(self, cols: range | None = None) -> np.ndarray:
        """The same rows of the stage before this one (its ``cols``, or these)."""
        return self.read(self.attention.previous(self.stage.name), cols)

    def read(self, name: str, cols: range | None = None, head: int | None = None) -> np.ndarray:
        """The same rows of a stage (of this head, or of ``head``)."""
        return self.attention.values(
            name,
            self.head if head is None else head,
            self.rows,
            self.cols if cols is None else cols,
            self.keep,
        )

    def blocked(self) -> np.ndarray:
        return self.attention.blocked(self.rows, self.cols)

    def empty(self) -> np.ndarray:
        return self.attention.empty(self.rows, self.keep)

    def statistics(self) -> dict[str, np.ndarray]:
        """This stage's per-row statistics, for these rows."""
        return self.attention.statistics(self.stage.name, self.head, self.rows, self.keep)


class Head:
    """One head of an attention: its inputs, and its stages as windows of rows × columns."""

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

    def values(self, name: str, rows: range, cols: range) -> np.ndarray:
        return self.attention.values(name, self.h, rows, cols)

    def statistics(self, name: str, rows: range) -> dict[str, np.ndarray]:
        return self.attention.statistics(name, self.h, rows)

    def blocked(self, rows: range, cols: range) -> np.ndarray:
        return self.attention.blocked(rows, cols)

    def empty(self, rows: range) -> np.ndarray:
        return self.attention.empty(rows)
