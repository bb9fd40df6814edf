"""The arithmetic behind every number, in the chapter's words, with the real numbers.

An Explanation is structured text: lines of spans, each span tagged with a role (a token, a
number, the result, a masked value, a note, a bar) so a view can colour it, and lines tagged
``selected`` when they explain the cell under the cursor. ``plain()`` gives the text itself.
Each stage writes its own lines (``explain`` in its module under ``core/engine/stages/``); this
module holds what they share: the row being explained, folding of long sums, vectors, bars,
percents.

Long sums and rows are folded to ``fold`` terms ("… 60 more terms …"); ``fold=None`` shows all.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np

from attn_tui.core.model.labels import token_labels as labels
from attn_tui.core.numbers import fixed, fixed_row, mask_text
from attn_tui.core.text import fit, visible

if TYPE_CHECKING:
    from attn_tui.core.engine.attention import Attention

FOLD = 8
BAR_WIDTH = 24
_BAR_EIGHTHS = " ▏▎▍▌▋▊▉"


@dataclass(frozen=True)
class Span:
    text: str
    role: str = "text"  # text · token · number · result · masked · note · bar


@dataclass(frozen=True)
class Line:
    spans: tuple[Span, ...]
    selected: bool = False

    def plain(self) -> str:
        return "".join(span.text for span in self.spans)


@dataclass(frozen=True)
class Explanation:
    stage: str
    title: str
    lines: tuple[Line, ...]

    def plain(self) -> str:
        return "\n".join([self.title, *(line.plain() for line in self.lines)])


def explain(
    attention: Attention,
    stage: str,
    row: int,
    col: int | None = None,
    fold: int | None = FOLD,
    head: int = 0,
) -> Explanation:
    """How ``stage`` computes query ``row`` of ``head`` (and, where it matters, column ``col``)."""
    described = attention.stage(stage)
    writer = Writer(attention, head, row, col, fold, stage)
    title = described.display.explain(writer)
    number = attention.steps.index(described) + 1
    return Explanation(stage, f"Step {number} — {described.title}: {title}", tuple(writer.lines))


class RowData:
    """One query row of one head, as the stage being explained sees it: its own values, those
    of the stage before it and of any other stage, each computed once, whole."""

    def __init__(self, attention: Attention, h: int, row: int, stage: str) -> None:
        self.attention = attention
        self.head = attention.head(h)
        self.h = h
        self.i = row
        self.stage = stage
        self._rows = range(row, row + 1)
        self._found: dict[str, np.ndarray] = {}

    def of(self, name: str) -> np.ndarray:
        """The whole row of stage ``name``."""
        if name not in self._found:
            columns = range(self.attention.stage(name).column_count(self.attention.scenario))
            self._found[name] = self.attention.values(name, self.h, self._rows, columns)[0]
        return self._found[name]

    @property
    def own(self) -> np.ndarray:
        return self.of(self.stage)

    @property
    def previous(self) -> np.ndarray:
        return self.of(self.attention.previous(self.stage))

    def statistics(self, name: str | None = None) -> dict[str, float]:
        """A stage's per-row statistics (this one's by default), for this row."""
        found = self.attention.statistics(name or self.stage, self.h, self._rows)
        return {key: float(value[0]) for key, value in found.items()}

    @cached_property
    def blocked(self) -> np.ndarray:
        return self.attention.blocked(self._rows, range(self.attention.scenario.T_k))[0]

    @cached_property
    def empty(self) -> bool:
        return bool(self.attention.empty(self._rows)[0])


class Writer:
    """What a stage's ``explain`` is given: one row of one head, its numbers, and ways to write
    the lines of its arithmetic. ``explain(w)`` adds lines and returns the title.

    ``attention``, ``scenario``, ``options``  what is explained, under which options
    ``h``, ``row``, ``col``   the head, the query row (a key row for dK, dV), the column under the
                              cursor (None: none; the lines of that column are ``selected``)
    ``stage``                 the stage's name; ``previous_name`` the one it reads as before it
    ``r``                     the row's numbers (:class:`RowData`): ``r.own``, ``r.previous``,
                              ``r.of(name)``, ``r.blocked``, ``r.empty``, ``r.statistics()``
    ``p``                     the scenario's precision; ``decimals(name)`` a stage's own
    ``query``, ``query_quoted``, ``keys_labels``, ``query_labels``   the tokens as labels
    ``fold``                  how many terms a long sum shows (None: all)

    Lines: ``add(*(text, role), selected=…)``, ``note(text)``; windows of what to show:
    ``keys()``, ``fold_pairs``, ``fold_around``, ``fold_lazy``; numbers: ``vector``,
    ``masked_text``, ``weight_bars``, ``projected_query()``.
    """

    def __init__(
        self, attention: Attention, h: int, row: int, col: int | None, fold: int | None, stage: str
    ) -> None:
        scenario = attention.scenario
        self.attention = attention
        self.scenario = scenario
        self.options = attention.options
        self.h = h
        self.row = row
        self.col = col
        self.fold = fold
        self.stage = stage
        self.p = scenario.precision
        self.lines: list[Line] = []
        self.keys_labels = labels(scenario.tokens)
        self.query_labels = labels(scenario.row_tokens)
        self.query = self.query_labels[
            min(row, len(self.query_labels) - 1)
        ]  # (a key row may lie past them)
        self.r = RowData(attention, h, row, stage)

    @property
    def previous_name(self) -> str:
        """The stage this one reads as the one before it."""
        return self.attention.previous(self.stage)

    def decimals(self, name: str | None = None) -> int:
        """The decimals a stage (this one by default) shows its numbers with."""
        return self.attention.stage_decimals(name or self.stage, self.h)

    # ---- words -------------------------------------------------------------------------------

    def quoted(self, k: int) -> str:
        """A key's label in quotes ("cat"), or "itself" for the query's own position."""
        return "itself" if self.is_self(k) else f'"{self.keys_labels[k]}"'

    def is_self(self, k: int) -> bool:
        return not self.scenario.cross and k == self.row

    @property
    def query_quoted(self) -> str:
        return f'"{self.query}"'

    # ---- lines -------------------------------------------------------------------------------

    def add(self, *spans: tuple[str, str], selected: bool = False) -> None:
        self.lines.append(Line(tuple(Span(text, role or "text") for text, role in spans), selected))

    def note(self, text: str) -> None:
        self.add((text, "note"))

    def projected_query(self) -> None:
        """Where the query came from, when the scenario projects X: ``q = x·Wq`` (this head's
        columns), with the arithmetic of its first entry."""
        scenario, attention, h, i = self.scenario, self.attention, self.h, self.row
        if scenario.kind != "projection":
            return
        source = "X_q" if scenario.cross else "X"
        x = scenario.inputs[source][i]
        first = h * scenario.d_k  # this head's first column of Wq
        column = scenario.inputs["Wq"][:, first]
        entry = attention.inputs.Q_projected(h)[i, 0]
        x_dec, w_dec = attention.decimals(source), attention.decimals("Wq")
        terms = self.fold_lazy(
            len(x),
            lambda m: f"({fixed(x[m], x_dec, True)} × {fixed(column[m], w_dec, True)})",
            " + ",
        )
        columns = (
            "Wq"
            if scenario.heads == 1
            else f"column {first + 1} of Wq"
            if scenario.d_k == 1
            else f"columns {first + 1}…{first + scenario.d_k} of Wq"
        )
        self.add(
            (f"q{i + 1} = x{i + 1}·{columns}, where x{i + 1} = ", ""),
            (self.vector(x, x_dec, True), "number"),
            (f"   (row {self.query_quoted} of {source})", "note"),
        )
        self.add(
            (f"  its first entry = x{i + 1} · column {first + 1} of Wq = ", ""),
            (terms, "number"),
            (" = ", ""),
            (fixed(entry, attention.decimals("Q", h), True), "result"),
        )
        self.note(
            f"  (each entry of q{i + 1}: x{i + 1} times one "
            "column of Wq; k and v come from Wk, Wv alike)"
        )

    def weight_bars(self, weights: np.ndarray) -> None:
        """The row's weights as bars, one key a line: the picture that says it fastest."""
        for k in self.keys():
            if isinstance(k, int):
                self.add(
                    (f"{fit(self.keys_labels[k], 10)} ", "token"),
                    (bar(weights[k]), "bar"),
                    (f" {fixed(weights[k], self.p, tiny=False)}", "number"),
                    selected=k == self.col,
                )

    def keys(self) -> list[int | str]:
        """The key indices to show one line each: all of them, or a window around the cursor
        (with a note for what lies before and after)."""
        T = self.scenario.T_k
        centre = self.col if self.col is not None else min(self.row, T - 1)
        return self._window(T, centre, "key")

    def fold_pairs(self, count: int) -> list[int | str]:
        """The pairs of dimensions to show one line each (RoPE)."""
        return self._window(count, 0, "pair")

    def fold_around(self, count: int, centre: int, noun: str) -> list[int | str]:
        """Which of ``count`` items (tiles, say) to show one line each: all, or a window
        around ``centre``, with a note for what lies before and after."""
        return self._window(count, centre, noun)

    def _window(self, count: int, centre: int, noun: str) -> list[int | str]:
        if self.fold is None or count <= self.fold:
            return list(range(count))
        start = max(0, min(centre - self.fold // 2, count - self.fold))
        end = start + self.fold
        shown: list[int | str] = list(range(start, end))
        if start:
            shown.insert(0, f"… {start} earlier {noun}{'s' if start > 1 else ''} …")
        if end < count:
            shown.append(f"… {count - end} later {noun}{'s' if count - end > 1 else ''} …")
        return shown

    def fold_lazy(self, count: int, term, joiner: str) -> str:
        """``term(0) joiner term(1) …``, folded to ``fold`` terms; ``term`` is called only for
        the terms shown."""
        if self.fold is None or count <= self.fold:
            return joiner.join(term(k) for k in range(count))
        shown = [term(k) for k in range(self.fold - 2)]
        hidden = count - (self.fold - 2) - 1
        return joiner.join(shown + [f"… {hidden} more terms …", term(count - 1)])

    def vector(
        self, values: np.ndarray, decimals: int, tiny: bool = True, nested: bool = False
    ) -> str:
        """``[1, 0.5, …]``, formatting only the entries a folded vector shows; a vector inside
        a folded sum (``nested``) folds tighter, to its first two and last entries."""

        def text(k: int) -> str:
            value = float(values[k])
            return self.masked_text(value) if math.isinf(value) else fixed(value, decimals, tiny)

        if nested and self.fold is not None and len(values) > 4:
            hidden = len(values) - 3
            return f"[{text(0)}, {text(1)}, … {hidden} more …, {text(len(values) - 1)}]"
        if self.fold is None or len(values) <= self.fold:  # every entry: formatted in one pass
            texts = fixed_row(values, decimals, tiny)
            for k in np.flatnonzero(np.isinf(values)):
                texts[k] = self.masked_text(float(values[k]))
            return "[" + ", ".join(texts) + "]"
        return "[" + self.fold_lazy(len(values), text, ", ") + "]"

    def masked_text(self, value: float) -> str:
        mask_value = self.options.mask_value
        return (
            mask_text(value) if math.isinf(value) or value == mask_value else fixed(value, self.p)
        )


def bar(value: float, width: int = BAR_WIDTH) -> str:
    """A horizontal bar for a value in [0, 1], in eighths of a character."""
    eighths = int(round(max(0.0, min(1.0, value)) * width * 8))
    full, part = divmod(eighths, 8)
    return ("█" * full + (_BAR_EIGHTHS[part] if part else "")).ljust(width)


def percent(weight: float) -> str:
    """A weight as a percentage a reader can trust: whole percents from 10% to 99.5%, one
    decimal below 10% ("1.4%") and near 100% ("99.7%"), and "< 0.1%" or "> 99.9%" rather
    than a 0% or 100% that is not exactly so. The same weight always reads the same."""
    if weight == 0:
        return "0%"
    if weight == 1:
        return "100%"
    value = weight * 100
    if value < 0.1:
        return "< 0.1%"
    if value > 99.9:
        return "> 99.9%"
    if 10 <= value < 99.5:
        return f"{value:.0f}%"
    text = f"{value:.1f}"
    return (text[:-2] if text.endswith(".0") else text) + "%"


def quoted_key(scenario, k: int, row: int) -> str:
    """A key as a sentence names it: "itself" for the query's own position, else its label."""
    return "itself" if not scenario.cross and k == row else f'"{labels(scenario.tokens)[k]}"'


def quoted(text: str) -> str:
    return f'"{visible(text)}"'
