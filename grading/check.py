"""``attn-tui check SCENARIO --impl FILE.py[:NAME]``: the student's own attention run on the
scenario (and with ``--cases`` on the battery), and reported as ``check`` reports ``expect:``:
the first stage that differs, its cells, and the named mistake with its fix. Exit status 0
every case matches, 1 something differs or the code fails, 2 a usage or scenario error."""

from __future__ import annotations

import dataclasses
import os
import re
from dataclasses import dataclass
from pathlib import Path

from attn_tui.core.model.scenario import Scenario
from attn_tui.core.text import visible
from attn_tui.grading import cases as battery
from attn_tui.grading.calling import CaseResult, run_case
from attn_tui.grading.failures import SubmissionFailed
from attn_tui.grading.report import (
    case_line,
    chosen_line,
    first_wrong_place,
    read_as,
    with_expect,
)
from attn_tui.grading.runner import Submission
from attn_tui.grading.worker_limits import DEFAULT_MEMORY, DEFAULT_TIMEOUT

EXIT_OK, EXIT_DIFFERS, EXIT_USAGE = 0, 1, 2
NAME = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)?")


class UsageError(Exception):
    pass


def split_impl(given: str, default: str = "attention") -> tuple[str, str]:
    """``FILE.py[:NAME]`` as the file and the name (``Class.method`` too); a file whose own name
    holds a colon (``hw:2.ipynb``, ``a:b.py``, which reads as FILE:Class.method) is that file."""
    path, colon, name = given.rpartition(":")
    if colon and NAME.fullmatch(name) and path and not os.path.isfile(given):
        return path, name
    return given, default


def check_file(path: str) -> None:
    if not os.path.exists(path):
        raise UsageError(f"{visible(path)}: no such file")
    if os.path.isdir(path):
        raise UsageError(
            f"{visible(path)}: is a folder; give the student's .py file "
            "(attn-tui grade takes folders)"
        )
    if not os.path.isfile(path):
        raise UsageError(
            f"{visible(path)}: not a regular file (a FIFO or a device is not a student's code)"
        )


def submission_of(args, path: str, name: str, folder: str | os.PathLike | None = "") -> Submission:
    """The submission of ``path``, importing from ``folder`` (default: the file's own; None:
    the file alone, as in a flat export of a whole class)."""
    timeout = DEFAULT_TIMEOUT if args.timeout is None else args.timeout
    memory = DEFAULT_MEMORY if args.memory is None else int(args.memory * 2**30)
    if not timeout > 0 or not memory > 0:
        raise UsageError("--timeout and --memory must be positive")
    return Submission(
        path,
        name,
        backward=args.backward or "attention_backward",
        folder=os.path.dirname(os.path.abspath(path)) if folder == "" else folder,
        timeout=timeout,
        memory=memory,
        forbid=tuple(getattr(args, "forbid", None) or ()),
    )


def run_cases(submission: Submission, cases: list) -> list[CaseResult]:
    """Every case, reusing the convention the first agreeing case was read in."""
    results, preferred = [], None
    for case in cases:
        result = run_case(submission, case, preferred)
        if result.ok:
            preferred = result.way
        results.append(result)
        if result.error_type == "MemoryError":
            break
    return results


@dataclass(frozen=True)
class Count:
    """A submission's cases counted: ``passed`` of ``of``, where ``of`` is the same for every
    submission of a run whatever it wrote and however it failed (an import failure, a wrong
    answer, a time out): the cases any attention can be given. A case with a mask of its own
    (a fully masked row) can be given only to a function that takes a mask; it is told on its
    own line, like the own softmax, and a wrong answer there fails the submission, but it is
    not in the count, so that a causal flag is never counted down for its convention."""

    passed: int
    of: int
    masked: tuple[CaseResult, ...] = ()  # the cases with a mask of their own, as given (or not)

    @property
    def masked_ok(self) -> bool:
        return all(result.ok or result.not_run is not None for result in self.masked)

    @property
    def ok(self) -> bool:
        return self.passed == self.of and self.masked_ok

    def line(self) -> str:
        """``Cases: 17 of 17 pass`` and what became of the cases beyond the count."""
        text = f"Cases: {self.passed} of {self.of} pass"
        if self.masked:
            given = [result for result in self.masked if result.not_run is None]
            n = len(self.masked)
            what = (
                f"{n} case{'s' if n > 1 else ''} with a mask of {'their' if n > 1 else 'its'} own"
            )
            if not given:
                text += f" ({what}: not run, the function takes no mask)"
            else:
                wrong = sum(not result.ok for result in given)
                text += f" ({what}: " + (f"{wrong} wrong" if wrong else "right") + ")"
        return text


def counted(results: list[CaseResult], cases: list) -> Count:
    """``results`` (those run: the first cases, when a memory bomb stopped it) of ``cases``."""
    return Count(
        sum(result.ok for result in results if not result.case.explicit),
        sum(not case.explicit for case in cases),
        tuple(result for result in results if result.case.explicit),
    )


@dataclass
class Checked:
    """What ``check --impl`` (and ``attn_tui.check`` in a notebook) found: the scenario's own
    result, the battery's (with ``--cases``), the own softmax's and the backward's."""

    scenario: Scenario
    main: CaseResult
    cases: list
    results: list[CaseResult]
    own_softmax: tuple[bool, str, str] | None
    backward: object | None  # grading.backward.BackwardResult
    label: str = ""  # the scenario as the user named it ("cat_sat"), else its file

    @property
    def scenario_name(self) -> str:
        return self.label or self.scenario.display_name

    @property
    def count(self) -> Count:
        return counted(self.results, self.cases)

    @property
    def ok(self) -> bool:
        return (
            self.main.ok
            and (not self.cases or self.count.ok)
            and (self.own_softmax is None or self.own_softmax[0])
            and (self.backward is None or self.backward.ok)
        )


def run_check(submission, scenario: Scenario, with_cases: bool) -> Checked:
    """Every check of a started submission (a worker's or one in this process). Raises
    SubmissionFailed when a worker cannot answer."""
    main = run_case(submission, battery.of_scenario(scenario))
    cases = battery.battery() if with_cases else []
    results = run_cases(submission, cases) if cases else []
    own_softmax = None
    if submission.info.get("softmax"):
        from attn_tui.grading.softmax_check import check_softmax

        own_softmax = check_softmax(submission)
    backward = None
    if submission.info.get("backward"):
        from attn_tui.grading.backward import check_backward

        backward = check_backward(submission, scenario)
    return Checked(scenario, main, cases, results, own_softmax, backward)


def told(checked: Checked, shown: str, more: str = "--cases") -> list[str]:
    """The report as lines: the scenario's verdict and stages, the cases, the softmax, the
    backward. ``shown`` names the code (its file, or the function), made visible; ``more`` how
    to ask for the battery."""
    from attn_tui.core.teaching.compare import compare
    from attn_tui.core.teaching.comparison_report import summary

    main = checked.main
    on = f"{shown} on {visible(checked.scenario_name)}"
    lines = []
    if main.error is not None:
        lines.append(f"{on}: ✗ {visible(main.error)}")
    else:
        judged = with_expect(main)
        comparison = compare(judged)
        verdict = "your values match" if comparison.ok else "your values differ"
        lines.append(f"{on}: {verdict} ({read_as(main)})")
        lines += summary(comparison, judged).splitlines()
        if comparison.ok and not checked.cases:  # (an overflowing softmax matches small scores)
            lines.append(
                f"That is this scenario only: {more} also tries T = 1, d_k = 1, random T up to "
                "64, scores of ~1,000 and a fully masked row."
            )
    if checked.results:
        lines.append(checked.count.line())
        lines += [case_line(result) for result in checked.results]
        if len(checked.results) < len(checked.cases):
            lines.append(
                f"(the other {len(checked.cases) - len(checked.results)} not run: "
                "the code went over the memory limit)"
            )
    if checked.own_softmax is not None:
        lines.append(checked.own_softmax[1])
    if checked.backward is not None:
        lines += checked.backward.lines
    return lines


def check_impl(args, scenario, write, say) -> int:
    """The command's work: ``write`` takes the report, ``say`` the usage errors."""
    try:
        path, name = split_impl(args.impl)
        check_file(path)
        if not battery.plain(scenario):
            raise UsageError(
                f"{visible(scenario.display_name)}: --impl checks attention(Q, K, V, causal); this "
                "scenario has more (heads, a bias, RoPE, a window or padding mask, or a scale "
                "of its own): give a plain one, such as cat_sat"
            )
        submission = submission_of(args, path, name)
    except UsageError as problem:
        say(f"attn-tui: {problem}")
        return EXIT_USAGE
    shown = visible(os.path.basename(path))
    if path.lower().endswith(".ipynb"):
        from attn_tui.grading.grade import notebook_problem

        problem = notebook_problem(Path(path))
        if problem:
            write(f"{shown}: ✗ {problem}\n")
            return EXIT_DIFFERS
    with submission:
        try:
            submission.start()
            checked = run_check(submission, scenario, args.cases)
        except SubmissionFailed as failed:
            write(f"{shown}: ✗ {visible(failed.failure.verdict)}\n")
            _notes(submission.info, write)
            _printed(args, submission, write)
            return EXIT_DIFFERS
        _printed(args, submission, write)
    chosen = chosen_line(submission.info, name)
    if chosen:
        write(chosen + "\n")
    lines = told(checked, shown)
    write(lines[0] + "\n")
    _notes(submission.info, write)  # how the code was read, under the verdict it explains
    write("".join(line + "\n" for line in lines[1:]))
    if getattr(args, "open", False) and checked.main.error is None:
        # the app opens at the first wrong stage, row and cell
        from attn_tui.core.teaching.compare import compare

        judged = with_expect(checked.main)
        args.opened_at = first_wrong_place(compare(judged))
        args.opened = (
            judged
            if args.opened_at is None
            else dataclasses.replace(judged, focus=args.opened_at.row)
        )
    return EXIT_OK if checked.ok else EXIT_DIFFERS


def _printed(args, submission: Submission, write) -> None:
    if getattr(args, "verbose", False):
        text = submission.output()
        if text:
            write(
                "What the code printed (made visible):\n"
                + visible(text, multiline=True)
                + ("" if text.endswith("\n") else "\n")
            )


def _notes(info: dict, write) -> None:
    """Each note the code's loading left (a cell that raised, IPython syntax passed over), a line
    each (the function taken in the asked one's place is chosen_line's)."""
    from attn_tui.grading.grade import how_read

    read = how_read(info)
    for note in read["notes"]:
        write(f"note: {note.text()}\n")
