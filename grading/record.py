"""One graded submission as a typed record: who handed it in, how it was read (the file, the
function, the convention, the notes its loading left) and what it got (each case, the first
mistake named). ``grade`` makes one per student; the table, --json, --markdown and the gradebooks
(grading/gradebook.py) are views of it, so they can never disagree."""

from __future__ import annotations

from dataclasses import dataclass

from attn_tui.core.text import visible


@dataclass(frozen=True)
class Note:
    """What happened while the student's code was loaded: a cell or statement that raised, IPython
    syntax passed over, a notebook cell that is not Python (``cell`` is a notebook's, from 1)."""

    cell: int | None
    line: int | None
    type: str
    message: str

    @classmethod
    def of(cls, reply: dict) -> Note:
        def number(value):
            return value if isinstance(value, int) and not isinstance(value, bool) else None

        return cls(
            number(reply.get("cell")),
            number(reply.get("line")),
            str(reply.get("type", ""))[:100],
            str(reply.get("message", ""))[:2000],
        )

    def text(self) -> str:
        """One line, made visible: ``cell 3, line 2: ModuleNotFoundError: …``."""
        place = ", ".join(
            part
            for part in (
                f"cell {self.cell}" if self.cell is not None else "",
                f"line {self.line}" if self.line is not None else "",
            )
            if part
        )
        kind = "" if self.type in ("IPython", "notes", "name") else f"{self.type}: "
        return visible(f"{place + ': ' if place else ''}{kind}{self.message}")


@dataclass(frozen=True)
class Outcome:
    """One case: its line (✓, ✗ with the first difference and the mistake, – not run), and for a
    wrong case the named mistake's words and fix when one matched."""

    case: str
    ok: bool
    line: str
    not_run: bool = False
    mistake: str | None = None
    what: str = ""
    fix: str = ""


@dataclass(frozen=True)
class Diagnosis:
    mistake: str
    what: str
    fix: str
    case: str
    stage: str


@dataclass(frozen=True)
class Check:
    """A further check beside the cases (the student's own softmax, their backward pass)."""

    ok: bool
    lines: tuple[str, ...]
    wrong: tuple[tuple[str, str], ...] = ()  # (gradient, the mistake it matches)


@dataclass(frozen=True)
class Graded:
    """One student's submission, graded."""

    student: str  # the row's label: the export's name for them, else their folder or file
    file: str  # the file graded ("" when nothing was handed in)
    cases: int  # the cases counted (those the code could be given)
    folder: str | None = None  # the student's own folder, when the export gives one
    export: str = ""  # how it was found: gradescope, canvas, moodle, github-classroom, folder, file
    ok: bool = False
    status: str = ""  # ok, differs, syntax, exception, timeout, memory, …, empty, unreadable
    passed: int = 0
    words: str = ""  # the class tally's words ("right", "forgot to divide by √d_k", …)
    verdict: str = ""  # the first wrong case's line, or why it could not run
    diagnosis: Diagnosis | None = None
    outcomes: tuple[Outcome, ...] = ()
    not_run: tuple[str, ...] = ()
    softmax: Check | None = None
    backward: Check | None = None
    printed: str | None = None  # what the code printed (--verbose)
    kind: str = ""  # py or ipynb
    function: str = ""  # what the function was found as (attention, Attention().forward, …)
    chosen: str | None = None  # the one (Q, K, V) function taken when the name was not there
    convention: str = ""  # how it was called ("NumPy arrays (T, d), causal=… as a keyword")
    returns: str = ""  # "(out, weights)", "out", "(weights, out)"
    notes: tuple[Note, ...] = ()
    seconds: float = 0.0

    def score(self, points: float | None = None) -> float:
        """Cases passed, scaled so that every counted case passed is ``points`` (default: a point
        a case). A submission that could run no case scores 0."""
        if not self.cases:
            return 0.0
        return self.passed * (self.cases if points is None else points) / self.cases
