"""ClassAnswers: a class's answers at a predict beat, on the teacher's screen (and, without
names, on the projector): how many answered of how many follow, how many are right, the wrong
ones grouped by the mistake they match, and each column's spread of guesses as a small
histogram, the bin of the correct value in brackets. Every text from outside (tokens, names)
is shown literally (made visible, never markup)."""

from __future__ import annotations

from textual.content import Content
from textual.widgets import Static

from attn_tui.core.classroom.judging import TOLERANCE
from attn_tui.core.classroom.tally import Counts
from attn_tui.core.numbers import fixed
from attn_tui.core.text import clip, fit, visible

MAX_COLUMNS_SHOWN = 6  # a wider row: its first columns, and how many more
MAX_NAMES_SHOWN = 12


def answer_lines(
    counts: Counts,
    following: int,
    what: str,
    columns: list[str],
    precision: int,
    mark_correct: bool = True,
    named: list[tuple[str, str]] | None = None,
    notes: tuple[str, ...] = (),
) -> list[list[tuple[str, str]]]:
    """The lines, each a list of (kind, text): kinds title, count, right, mistake, other, bars,
    correct, note."""
    lines: list[list[tuple[str, str]]] = [
        [
            ("title", f"The class, beat {counts.beat} ({visible(what)}): "),
            ("count", f"{counts.answered} answered of {following} following"),
            ("note", " · "),
            ("right", f"{counts.right} right"),
            ("note", f" (within {TOLERANCE:g})"),
        ]
    ]
    if counts.mistakes:
        groups: list[tuple[str, str]] = [("note", "  ")]
        for index, (key, words, count) in enumerate(counts.mistakes):
            groups += [("note", " · ")] * bool(index) + [
                ("other" if key == "other" else "mistake", f"{count} {visible(words)}")
            ]
        lines.append(groups)
    elif not counts.answered:
        lines.append([("note", "  no answer yet: they come as each student reveals (r)")])
    shown = counts.spreads[:MAX_COLUMNS_SHOWN]
    for name, spread in zip(columns, shown):
        bars = spread.bars()
        line = [
            ("note", "  "),
            ("title", fit(clip(visible(name), 8), 8)),
            ("note", f" {_n(spread.low, precision)} "),
        ]
        if mark_correct:
            line += [
                ("bars", bars[: spread.correct_bin]),
                ("note", "["),
                ("correct", bars[spread.correct_bin]),
                ("note", "]"),
                ("bars", bars[spread.correct_bin + 1 :]),
            ]
        else:
            line += [("bars", bars)]
        line.append(("note", f" {_n(spread.high, precision)}"))
        if mark_correct:
            line += [("note", "  correct "), ("correct", _n(spread.correct, precision))]
        line.append(
            ("note", "  median " + ("—" if spread.median is None else _n(spread.median, precision)))
        )
        lines.append(line)
    if len(counts.spreads) > len(shown):
        lines.append(
            [
                (
                    "note",
                    f"  … and {len(counts.spreads) - len(shown)} more columns "
                    "(attn-tui responses has them all)",
                )
            ]
        )
    if named:
        listed = ", ".join(
            f"{visible(name)} ({visible(words)})" for name, words in named[:MAX_NAMES_SHOWN]
        )
        more = f", and {len(named) - MAX_NAMES_SHOWN} more" if len(named) > MAX_NAMES_SHOWN else ""
        lines.append([("note", "  named (only you see these): "), ("count", listed + more)])
    lines += [[("note", f"  {visible(note)}")] for note in notes]
    return lines


def _n(value: float, precision: int) -> str:
    return fixed(float(value), precision)


class ClassAnswers(Static):
    COMPONENT_CLASSES = {
        "class-answers--title",
        "class-answers--count",
        "class-answers--right",
        "class-answers--mistake",
        "class-answers--other",
        "class-answers--bars",
        "class-answers--correct",
        "class-answers--note",
    }

    DEFAULT_CSS = """
    ClassAnswers {
        height: auto;
        max-height: 12;
        padding: 0 1;
        background: $boost;
        display: none;
    }
    ClassAnswers.-shown { display: block; }
    ClassAnswers > .class-answers--title { color: $text-accent; text-style: bold; }
    ClassAnswers > .class-answers--count { color: $text; text-style: bold; }
    ClassAnswers > .class-answers--right { color: $text-success; text-style: bold; }
    ClassAnswers > .class-answers--mistake { color: $text-warning; }
    ClassAnswers > .class-answers--other { color: $text-muted; }
    ClassAnswers > .class-answers--bars { color: $text-primary; }
    ClassAnswers > .class-answers--correct { color: $text-success; text-style: bold underline; }
    ClassAnswers > .class-answers--note { color: $text-muted; }
    """

    def show(self, lines: list[list[tuple[str, str]]] | None) -> None:
        """The lines of :func:`answer_lines`, or None: hidden (not a predict beat)."""
        if lines == getattr(self, "_lines", None):
            return
        self._lines = lines
        self.set_class(bool(lines), "-shown")
        parts: list = []
        for number, line in enumerate(lines or ()):
            if number:
                parts.append("\n")
            parts += [
                (text, self.get_visual_style(f"class-answers--{kind}", partial=True))
                for kind, text in line
            ]
        self.update(Content.assemble(*parts))

    @property
    def text(self) -> str:
        """What it shows, as plain text (for tests and the screen reader of a person)."""
        return "\n".join(
            "".join(text for _, text in line) for line in getattr(self, "_lines", None) or ()
        )
