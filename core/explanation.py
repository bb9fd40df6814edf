"""The arithmetic behind every number, in the chapter's words, with the real numbers.

An Explanation is structured text: lines of spans, each span tagged with a role (a token, a
number, the result, a masked value, a note, a bar) so a view can colour it, and lines tagged
``selected`` when they explain the cell under the cursor. ``plain()`` gives the text itself.

Long sums and rows are folded to ``fold`` terms ("… 60 more terms …"); ``fold=None`` shows all.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from attn_tui.core.attention import STAGE_TITLES, STAGES, Trace
from attn_tui.core.numbers import decimals_needed, fixed, mask_text

FOLD = 8
BAR_WIDTH = 24
_BAR_EIGHTHS = " ▏▎▍▌▋▊▉"
_READABLE_EXP = 30.0  # up to here exp(score) prints readably; beyond, show exp(score − max)


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


def explain(trace: Trace, stage: str, row: int, col: int | None = None,
            fold: int | None = FOLD) -> Explanation:
    """How ``stage`` computes query ``row`` (and, where it matters, the key ``col``)."""
    if stage not in STAGES:
        raise ValueError(f"unknown stage {stage!r}; stages are {', '.join(STAGES)}")
    writer = _Writer(trace, row, col, fold)
    title = getattr(writer, stage)()
    number = STAGES.index(stage) + 1
    return Explanation(stage, f"Step {number} — {STAGE_TITLES[stage]}: {title}", tuple(writer.lines))


def sentence(trace: Trace, row: int) -> str:
    """Where query ``row`` looks, in percent: '"sat" pays 25% attention to "the", …'."""
    weights, blocked = trace.weights[row], trace.blocked[row]
    visible = [k for k in range(trace.T) if not blocked[k]]
    shown = visible if len(visible) <= FOLD else sorted(visible, key=lambda k: -weights[k])[:3]
    percents = _whole_percents([weights[k] for k in shown], complete=len(shown) == len(visible))
    phrases = [(f"{percent}%", "itself" if k == row else _quoted(trace.tokens[k]))
               for k, percent in zip(shown, percents)]
    first = f"{phrases[0][0]} attention to {phrases[0][1]}"
    rest = [f"{percent} to {name}" for percent, name in phrases[1:]]
    if len(visible) > len(shown):
        others = 100 - sum(percents)
        text = ", ".join([first, *rest]) + f" (its {len(shown)} largest), and {others}% " \
            f"to the other {len(visible) - len(shown)} tokens"
    elif not rest:
        text = first
    elif len(rest) == 1:
        text = f"{first} and {rest[0]}"
    else:
        text = ", ".join([first, *rest[:-1]]) + f", and {rest[-1]}"
    if blocked.any():
        text += ", and 0% to the future"
    return f"{_quoted(trace.tokens[row])} pays {text}."


def _whole_percents(weights: list[float], complete: bool) -> list[int]:
    """Weights as whole percents; a complete row's add up to 100 (largest remainders round
    up), so 0.248, 0.248, 0.503 read 25%, 25%, 50%, as the chapter has them."""
    exact = [w * 100 for w in weights]
    if not complete:
        return [int(round(x)) for x in exact]
    percents = [int(x) for x in exact]
    by_remainder = sorted(range(len(exact)), key=lambda k: exact[k] - percents[k], reverse=True)
    for k in by_remainder[: 100 - sum(percents)]:
        percents[k] += 1
    return percents


def bar(value: float, width: int = BAR_WIDTH) -> str:
    """A horizontal bar for a value in [0, 1], in eighths of a character."""
    eighths = int(round(max(0.0, min(1.0, value)) * width * 8))
    full, part = divmod(eighths, 8)
    return ("█" * full + (_BAR_EIGHTHS[part] if part else "")).ljust(width)


class _Writer:
    """Builds the lines of one explanation; one method per stage returns the title."""

    def __init__(self, trace: Trace, row: int, col: int | None, fold: int | None) -> None:
        self.t = trace
        self.row = row
        self.col = col
        self.fold = fold
        self.p = trace.precision
        self.lines: list[Line] = []
        self.query = trace.tokens[row]

    # ---- the stages ---------------------------------------------------------------------

    def score(self) -> str:
        t, i = self.t, self.row
        q_dec, k_dec = decimals_needed(t.Q, self.p), decimals_needed(t.K, self.p)
        s_dec = decimals_needed(t.scores, self.p)
        self.add(("q", ""), (f"{i + 1} = ", ""), (self.vector(t.Q[i], q_dec, True), "number"),
                 ("   the query of ", ""), (_quoted(self.query), "token"))
        for k in self.keys():
            if k is None or isinstance(k, str):
                self.add((k or "", "note"))
                continue
            terms = self.fold_lazy(t.d_k, lambda c, k=k: f"({fixed(t.Q[i, c], q_dec, True)} × "
                                                         f"{fixed(t.K[k, c], k_dec, True)})", " + ")
            self.add((f"q{i + 1} · k{k + 1} = ", ""), (terms, "number"),
                     (" = ", ""), (fixed(t.scores[i, k], s_dec, True), "result"),
                     (f"    how relevant is {self.relation(k)}?", "note"), selected=k == self.col)
        self.add(("raw scores: ", ""), (self.vector(t.scores[i], s_dec, True), "result"))
        return f"how well does {_quoted(self.query)} match each key?"

    def scale(self) -> str:
        t, i = self.t, self.row
        s_dec = decimals_needed(t.scores, self.p)
        divisor = fixed(t.divisor, self.p)
        scale = t.options.scale
        if scale is True:
            self.add(("√d_k = √", ""), (str(t.d_k), "number"), (" = ", ""), (divisor, "result"))
            title = "divide by √d_k"
        elif scale is False:
            self.add(("scaling is off: every score is divided by 1, i.e. left as it is", "note"))
            title = "none (scaling is off)"
        else:
            self.add(("the scenario divides by ", ""), (f"{scale:g}", "result"))
            title = f"divide by {scale:g}"
        for k in self.keys():
            if k is None or isinstance(k, str):
                self.add((k or "", "note"))
                continue
            score = fixed(t.scores[i, k], s_dec, True)
            if scale is True:
                formula = f"{score} / √{t.d_k} = {score}/{divisor}"
            else:
                formula = f"{score} / {t.divisor:g}"
            self.add((f"({self.query}, {t.tokens[k]}): ", "token"), (formula, "number"),
                     (" = ", ""), (fixed(t.scaled[i, k], self.p), "result"), selected=k == self.col)
        shown_divisor = divisor if scale is True else f"{t.divisor:g}"
        fractions = self.fold_lazy(t.T, lambda k: f"{fixed(t.scores[i, k], s_dec, True)}/{shown_divisor}", ", ")
        self.add(("scaled scores: ", ""), ("[" + fractions + "]", "number"),
                 (" = ", ""), (self.vector(t.scaled[i], self.p), "result"))
        if scale is True:
            self.add(("Why divide? With larger d_k, dot products grow just from having more terms; "
                      "big scores make softmax spiky. Dividing by √d_k keeps them well-behaved.", "note"))
        return title

    def mask(self) -> str:
        t, i = self.t, self.row
        if not t.options.causal:
            self.add(("no causal mask: every token sees every other token, the future included "
                      "(bidirectional, like BERT)", "note"))
        for k in self.keys():
            if k is None or isinstance(k, str):
                self.add((k or "", "note"))
                continue
            cell = f"({self.query}, {t.tokens[k]})"
            if t.blocked[i, k]:
                self.add((cell, "token"), (" is in the future: ", ""),
                         (mask_text(t.options.mask_value), "masked"), selected=k == self.col)
            else:
                where = "is itself, visible" if k == i else "is visible"
                self.add((cell, "token"), (f" {where}: ", ""), (fixed(t.masked[i, k], self.p), "result"),
                         selected=k == self.col)
        self.add(("masked row: ", ""), (self.vector(t.masked[i], self.p), "result"))
        if t.options.causal:
            blocked = int(t.blocked[i].sum())
            future = "nothing is" if blocked == 0 else f"{blocked} future token{'s are' if blocked > 1 else ' is'}"
            sees = "only itself" if i == 0 else "itself and what came before"
            self.add((f"{_quoted(self.query)} sees {sees}; {future} hidden.", "note"))
            leak = t.weights[t.blocked].max(initial=0.0)
            if leak > 0:
                self.add((f"mask_value {mask_text(t.options.mask_value)} is not negative enough: a masked "
                          f"key still gets weight up to {leak:.3g}. Use -.inf or -1e9.", "masked"))
            else:
                self.add(("Softmax turns a masked score into exactly 0 weight.", "note"))
            return f"{_quoted(self.query)} may not look at the future"
        return "none (every key is visible)"

    def softmax(self) -> str:
        t, i, p = self.t, self.row, self.p
        masked = t.masked[i]
        row_max = t.row_max[i]
        raw = abs(row_max) <= _READABLE_EXP
        if raw:
            exps = np.exp(masked)
            total = exps.sum()
        else:
            exps, total = t.exp[i], t.row_sum[i]

        def label(k: int) -> str:
            shift = "" if raw else f" − {fixed(row_max, p)}"
            return f"exp({self.masked_text(masked[k])}{shift})"

        keys = self.keys()
        width = max(len(label(k)) for k in keys if isinstance(k, int))
        value_width = max(len(fixed(exps[k], p)) for k in keys if isinstance(k, int))
        for k in keys:
            if k is None or isinstance(k, str):
                self.add((k or "", "note"))
                continue
            self.add((label(k).ljust(width), "number"), (" = ", ""),
                     (fixed(exps[k], p).rjust(value_width), "masked" if t.blocked[i, k] else "result"),
                     (f"   {t.tokens[k]}", "token"), selected=k == self.col)
        self.add((" " * (width + 3) + "-" * value_width, ""))
        self.add(("sum".ljust(width), ""), (" = ", ""), (fixed(total, p), "result"))
        quotients = self.fold_lazy(t.T, lambda k: f"{fixed(exps[k], p)}/{fixed(total, p)}", ", ")
        self.add(("weights = ", ""), ("[" + quotients + "]", "number"))
        self.add(("        = ", ""), (self.vector(t.weights[i], p), "result"),
                 (f"  (sums to {t.weights[i].sum():.1f})", "note"))
        self.add((sentence(t, i), "token"))
        self.weight_bars()
        if raw:
            self.add((f"For stability the code computes exp(x − {fixed(row_max, p)}), subtracting the "
                      f"row's largest score: every exp and the sum shrink by the same factor "
                      f"e^{fixed(row_max, p)}, so the weights are the same.", "note"))
        else:
            self.add((f"The row's largest score, {fixed(row_max, p)}, is subtracted before exp: "
                      "exp of the raw scores would overflow, and the weights do not change.", "note"))
        return f"turn {_quoted(self.query)}'s scores into percentages"

    def output(self) -> str:
        t, i, p = self.t, self.row, self.p
        v_dec = decimals_needed(t.V, p)
        weights = t.weights[i]
        symbolic = self.fold_lazy(t.T, lambda k: f"{fixed(weights[k], p)} × v{k + 1}", " + ")
        self.add((f"output for {_quoted(self.query)} = ", ""), (symbolic, "number"))
        terms = self.fold_lazy(t.T, lambda k: f"{fixed(weights[k], p)} × "
                                              f"{self.vector(t.V[k], v_dec, True, nested=True)}", " + ")
        self.add((terms, "number"), (" = ", ""), (self.vector(t.output[i], p), "result"))
        products = self.fold_lazy(t.T, lambda k: self.vector(weights[k] * t.V[k], p, nested=True), " + ")
        self.add(("  terms: ", "note"), (products, "number"))
        self.add((f"The new representation of {_quoted(self.query)} is {self.vector(t.output[i], p)}: "
                  "a blend of the values, weighted by relevance.", "note"))
        self.weight_bars()
        return "blend the values by the weights"

    # ---- pieces ---------------------------------------------------------------------------

    def add(self, *spans: tuple[str, str], selected: bool = False) -> None:
        self.lines.append(Line(tuple(Span(text, role or "text") for text, role in spans), selected))

    def weight_bars(self) -> None:
        """The row's weights as bars, one key a line: the picture that says it fastest."""
        t, i = self.t, self.row
        for k in self.keys():
            if isinstance(k, int):
                self.add((f"{t.tokens[k][:10]:>10} ", "token"), (bar(t.weights[i, k]), "bar"),
                         (f" {fixed(t.weights[i, k], self.p)}", "number"), selected=k == self.col)

    def keys(self) -> list[int | str | None]:
        """The key indices to show one line each: all of them, or a window around the cursor."""
        T = self.t.T
        if self.fold is None or T <= self.fold:
            return list(range(T))
        centre = self.col if self.col is not None else self.row
        start = max(0, min(centre - self.fold // 2, T - self.fold))
        end = start + self.fold
        shown: list[int | str | None] = list(range(start, end))
        if start:
            shown.insert(0, f"… {start} earlier key{'s' if start > 1 else ''} …")
        if end < T:
            shown.append(f"… {T - end} later key{'s' if T - end > 1 else ''} …")
        return shown

    def fold_terms(self, terms: list[str], joiner: str) -> str:
        shown = self.shown(len(terms))
        return self.fold_shown([terms[k] if k is not None else "" for k in shown], shown, joiner)

    def fold_lazy(self, count: int, term, joiner: str) -> str:
        """Like fold_terms, but ``term(k)`` is only called for the terms shown."""
        shown = self.shown(count)
        return self.fold_shown([term(k) if k is not None else "" for k in shown], shown, joiner)

    def vector(self, values: np.ndarray, decimals: int, tiny: bool = False, nested: bool = False) -> str:
        """``[1, 0.5, …]``, formatting only the entries a folded vector shows; a vector inside
        a folded sum (``nested``) folds tighter, to its first two and last entries."""
        def text(k: int) -> str:
            value = values[k]
            return self.masked_text(value) if math.isinf(value) else fixed(value, decimals, tiny)

        if nested and self.fold is not None and len(values) > 4:
            hidden = len(values) - 3
            return f"[{text(0)}, {text(1)}, … {hidden} more …, {text(len(values) - 1)}]"
        return "[" + self.fold_lazy(len(values), text, ", ") + "]"

    def shown(self, count: int) -> list[int | None]:
        """Which of ``count`` terms a folded sum shows (None marks the fold)."""
        if self.fold is None or count <= self.fold:
            return list(range(count))
        return list(range(self.fold - 2)) + [None, count - 1]

    def fold_shown(self, texts: list[str], shown: list[int | None], joiner: str) -> str:
        if None not in shown:
            return joiner.join(texts)
        hidden = shown[-1] + 2 - len(shown)  # all but the shown ones and the fold
        return joiner.join(texts[:-2] + [f"… {hidden} more terms …", texts[-1]])

    def masked_text(self, value: float) -> str:
        return mask_text(value) if math.isinf(value) or value == self.t.options.mask_value \
            else fixed(value, self.p)

    def relation(self, k: int) -> str:
        key = "itself" if k == self.row else _quoted(self.t.tokens[k])
        return f"{key} to {_quoted(self.query)}" if k != self.row else f"{_quoted(self.query)} to itself"


def _quoted(token: str) -> str:
    return f'"{token}"'
