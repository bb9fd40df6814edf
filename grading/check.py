"""``attn-tui check SCENARIO --impl FILE.py[:NAME]``: the student's own attention run on the
scenario (and with ``--cases`` on the battery), and reported as ``check`` reports ``expect:``:
the first stage that differs, its cells, and the named mistake with its fix. Exit status 0
every case matches, 1 something differs or the code fails, 2 a usage or scenario error."""

from __future__ import annotations

import dataclasses
import os
import re

from attn_tui.core.text import visible
from attn_tui.grading import cases as battery
from attn_tui.grading.calling import CaseResult, run_case
from attn_tui.grading.failures import SubmissionFailed
from attn_tui.grading.report import case_line, first_wrong_place, read_as, with_expect
from attn_tui.grading.runner import Submission
from attn_tui.grading.worker_limits import DEFAULT_MEMORY, DEFAULT_TIMEOUT

EXIT_OK, EXIT_DIFFERS, EXIT_USAGE = 0, 1, 2
NAME = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)?")


class UsageError(Exception):
    pass


def split_impl(given: str, default: str = "attention") -> tuple[str, str]:
    """``FILE.py[:NAME]`` as the file and the name (``Class.method`` too)."""
    path, colon, name = given.rpartition(":")
    if colon and NAME.fullmatch(name) and path:
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


def submission_of(args, path: str, name: str) -> Submission:
    timeout = DEFAULT_TIMEOUT if args.timeout is None else args.timeout
    memory = DEFAULT_MEMORY if args.memory is None else int(args.memory * 2**30)
    if not timeout > 0 or not memory > 0:
        raise UsageError("--timeout and --memory must be positive")
    return Submission(
        path,
        name,
        backward=args.backward or "attention_backward",
        folder=os.path.dirname(os.path.abspath(path)),
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


def counted(results: list[CaseResult]) -> tuple[int, int]:
    """How many cases passed, and how many could not be given to the code (not counted)."""
    return sum(result.ok for result in results), sum(
        result.not_run is not None for result in results
    )


def check_impl(args, scenario, write, say) -> int:
    """The command's work: ``write`` takes the report, ``say`` the usage errors."""
    from attn_tui.core.teaching.compare import compare
    from attn_tui.core.teaching.comparison_report import summary

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
    with submission:
        try:
            submission.start()
            main = run_case(submission, battery.of_scenario(scenario))
            cases = battery.battery() if args.cases else []
            results = run_cases(submission, cases) if cases else []
            own_softmax = None
            if submission.info.get("softmax"):
                from attn_tui.grading.softmax_check import check_softmax

                own_softmax = check_softmax(submission)
            backward = None
            if submission.info.get("backward"):
                from attn_tui.grading.backward import check_backward

                backward = check_backward(submission, scenario)
        except SubmissionFailed as failed:
            write(f"{shown}: ✗ {visible(failed.failure.verdict)}\n")
            _printed(args, submission, write)
            return EXIT_DIFFERS
        _printed(args, submission, write)
    status = EXIT_OK if main.ok else EXIT_DIFFERS
    if main.error is not None:
        write(f"{shown} on {visible(scenario.display_name)}: ✗ {visible(main.error)}\n")
    else:
        judged = with_expect(main)
        comparison = compare(judged)
        verdict = "your values match" if comparison.ok else "your values differ"
        write(f"{shown} on {visible(scenario.display_name)}: {verdict} ({read_as(main)})\n")
        write(summary(comparison, judged) + "\n")
        if comparison.ok and not args.cases:  # (a softmax that overflows matches at small scores)
            write(
                "That is this scenario only: --cases also tries T = 1, d_k = 1, random T up to 64, "
                "scores of ~1,000 and a fully masked row.\n"
            )
        if getattr(args, "open", False):  # the app opens at the first wrong stage, row and cell
            args.opened_at = first_wrong_place(comparison)
            args.opened = (
                judged
                if args.opened_at is None
                else dataclasses.replace(judged, focus=args.opened_at.row)
            )
    if results:
        passed, not_run = counted(results)
        run = len(cases) - not_run
        write(
            f"Cases: {passed} of {run} pass" + (f" ({not_run} not run)" if not_run else "") + "\n"
        )
        for result in results:
            write(case_line(result) + "\n")
        if len(results) < len(cases):
            write(
                f"(the other {len(cases) - len(results)} not run: "
                "the code went over the memory limit)\n"
            )
        status = status if passed == run else EXIT_DIFFERS
    if own_softmax is not None:
        write(own_softmax[1] + "\n")
        status = status if own_softmax[0] else EXIT_DIFFERS
    if backward is not None:
        for line in backward.lines:
            write(line + "\n")
        status = status if backward.ok else EXIT_DIFFERS
    return status


def _printed(args, submission: Submission, write) -> None:
    if getattr(args, "verbose", False):
        text = submission.output()
        if text:
            write(
                "What the code printed (made visible):\n"
                + visible(text, multiline=True)
                + ("" if text.endswith("\n") else "\n")
            )
