"""``attn-tui grade FOLDER_OR_FILES…``: every submission checked on the same cases, each in its
own worker (one bad submission never stops the others): a line per student (cases passed, the
first mistake named) and a class summary (how many made each mistake), as text, ``--json`` or
``--markdown``. A progress line on a terminal's standard error once it takes over a second."""

from __future__ import annotations

import json
import os
import sys
import time
from collections import Counter
from pathlib import Path

from attn_tui.core.text import visible
from attn_tui.grading import cases as battery
from attn_tui.grading.check import (
    EXIT_DIFFERS,
    EXIT_OK,
    UsageError,
    counted,
    run_cases,
    submission_of,
)
from attn_tui.grading.failures import SubmissionFailed
from attn_tui.grading.report import case_line, chosen_line

MAX_SUBMISSIONS = 2000


def submissions(given: list[str]) -> list[Path]:
    """The .py files named, and those in the folders named (sorted; not their sub-folders). One
    that is not a regular file (a FIFO, a link to a device) is kept, to be reported as such in
    its own line: a submission left out would be a student silently not graded."""
    found: list[Path] = []
    for name in given:
        path = Path(name)
        if path.is_dir():
            found += sorted(p for p in path.glob("*.py") if not p.is_dir())
        elif path.exists() or path.is_symlink():
            found.append(path)
        else:
            raise UsageError(f"{visible(name)}: no such file or folder")
    if not found:
        raise UsageError("no .py files in " + ", ".join(visible(name) for name in given))
    if len(found) > MAX_SUBMISSIONS:
        raise UsageError(f"{len(found)} files: at most {MAX_SUBMISSIONS} at once")
    return list(dict.fromkeys(found))


def grade_one(args, path: Path, cases: list) -> dict:
    """One submission's record: file, ok, status, passed, cases, diagnosis, and its case lines."""
    record = {
        "file": str(path),
        "ok": False,
        "status": "",
        "passed": 0,
        "cases": counted([], cases).of,  # the same however it fails
        "diagnosis": None,
        "words": "",
        "verdict": "",
        "results": [],
        "not_run": [],
        "softmax": None,
    }
    if not path.is_file():
        record.update(
            status="unreadable",
            words="not a regular file",
            verdict=f"{visible(path.name)}: not a regular file "
            "(a FIFO or a device is not a student's code)",
        )
        return record
    submission = submission_of(args, str(path), args.name)
    with submission:
        try:
            submission.start()
            results = run_cases(submission, cases)
            own_softmax = None
            if submission.info.get("softmax"):
                from attn_tui.grading.softmax_check import check_softmax

                own_softmax = check_softmax(submission)
            backward = None
            if submission.info.get("backward"):
                from attn_tui.grading.backward import check_backward

                backward = check_backward(submission, cases[0].scenario)
        except SubmissionFailed as failed:
            record.update(
                status=failed.failure.kind,
                verdict=visible(failed.failure.verdict),
                words=_failure_words(failed.failure.kind),
            )
            if args.verbose:
                record["printed"] = submission.output()
            return record
        if args.verbose:
            record["printed"] = submission.output()
    count = counted(results, cases)
    backward_ok = backward is None or backward.ok
    # (cases not run after a memory bomb are not passed)
    softmax_ok = own_softmax is None or own_softmax[0]
    ok = count.ok and backward_ok and softmax_ok
    record.update(
        passed=count.passed,
        ok=ok,
        status="ok" if ok else "differs",
        chosen=submission.info.get("chosen"),
        asked=args.name,
        not_run=[result.case.name for result in results if result.not_run is not None],
        results=[
            {"case": result.case.name, "ok": result.ok, "line": case_line(result)}
            for result in results
        ],
    )
    record["softmax"] = (
        None if own_softmax is None else {"ok": own_softmax[0], "line": own_softmax[1]}
    )
    if backward is not None:
        record["backward"] = {"ok": backward.ok, "wrong": backward.wrong, "lines": backward.lines}
    wrong = next((result for result in results if not result.ok and result.not_run is None), None)
    if wrong is None:
        record["words"] = (
            "right" if backward_ok else "backward: " + ", ".join(backward.wrong) + " wrong"
        )
        if not backward_ok:
            record["verdict"] = "; ".join(
                line.strip() for line in backward.lines[1:] if "✗" in line
            )
        elif not softmax_ok:
            record["words"], record["verdict"] = own_softmax[2], own_softmax[1]
        return record
    record["verdict"] = case_line(wrong)
    judged = wrong.first_wrong
    if wrong.error is not None:
        record["words"] = {
            "MemoryError": "over the memory limit",
            "too large": "returned an array far too large",
            "": "returned the wrong shapes",
        }.get(wrong.error_type, "an exception")
    elif wrong.masked_row is not None:
        record["words"] = "a fully masked row wrong"
    elif judged is not None and judged.diagnosis is not None:
        record["diagnosis"] = {
            "mistake": judged.mistake,
            "what": judged.diagnosis.what,
            "fix": judged.diagnosis.fix,
            "case": wrong.case.name,
            "stage": judged.stage,
        }
        record["words"] = judged.words
    else:
        record["words"] = "other"
    return record


def _failure_words(kind: str) -> str:
    return {
        "syntax": "a syntax error",
        "exception": "an exception",
        "timeout": "timed out",
        "memory": "over the memory limit",
        "exit": "exited",
        "processes": "too many processes (a fork bomb)",
        "missing": "no attention function",
        "output": "printed too much",
    }.get(kind, kind)


def grade(parser, args) -> int:
    try:
        files = submissions(args.submissions)
        if args.json and args.markdown:
            raise UsageError("give --json or --markdown, not both")
        cases = battery.battery() + [_scenario_case(name) for name in args.scenario or []]
    except UsageError as problem:
        parser.error(str(problem))
    records, started = [], time.monotonic()
    progress = sys.stderr is not None and sys.stderr.isatty()
    for i, path in enumerate(files):
        if progress and time.monotonic() - started > 1.0:
            _bar(i, len(files), path.name)
        try:
            records.append(grade_one(args, path, cases))
        except UsageError as problem:
            records.append(
                {
                    "file": str(path),
                    "ok": False,
                    "status": "usage",
                    "passed": 0,
                    "cases": counted([], cases).of,
                    "diagnosis": None,
                    "words": "could not run",
                    "verdict": str(problem),
                    "results": [],
                    "not_run": [],
                    "softmax": None,
                }
            )
    if progress and time.monotonic() - started > 1.0:
        sys.stderr.write("\r\x1b[K")
        sys.stderr.flush()
    summary = dict(Counter(record["words"] for record in records).most_common())
    from attn_tui.tui.cli.streams import write_out

    if args.json:
        write_out(
            json.dumps(
                {
                    "cases": [case.name for case in cases],
                    "submissions": records,
                    "summary": summary,
                },
                indent=1,
                allow_nan=False,
                ensure_ascii=False,
            )
            + "\n"
        )
    elif args.markdown:
        write_out(markdown(records, summary))
    else:
        write_out(text(records, summary))
    return EXIT_OK if all(record["ok"] for record in records) else EXIT_DIFFERS


def _scenario_case(name: str):
    from attn_tui.core import ScenarioError, load
    from attn_tui.tui.cli.views import scenario_path

    try:
        scenario = load(scenario_path(name))
    except ScenarioError as error:
        raise UsageError(visible(str(error))) from error
    if not battery.plain(scenario):
        raise UsageError(
            f"{visible(name)}: grading calls attention(Q, K, V, causal); this scenario has more"
        )
    return battery.of_scenario(scenario, os.path.basename(name))


def _bar(done: int, total: int, name: str) -> None:
    width = 24
    filled = width * done // total
    sys.stderr.write(
        f"\rgrading [{'█' * filled}{' ' * (width - filled)}] {done}/{total} "
        f"{visible(name)[:30]}\x1b[K"
    )
    sys.stderr.flush()


def text(records: list[dict], summary: dict) -> str:
    width = max(len(visible(Path(record["file"]).name)) for record in records)
    lines = []
    for record in records:
        name = visible(Path(record["file"]).name)
        mark = "✓" if record["ok"] else "✗"
        lines.append(
            f"{mark} {name:<{width}}  {record['passed']:>2}/{record['cases']}  "
            f"{visible(record['words'])}"
        )
        if record.get("chosen"):
            lines.append("    " + chosen_line(record, record.get("asked", ""), "--name NAME"))
        if record["verdict"]:
            lines.append(f"    {visible(record['verdict'])}")
        own = record.get("softmax")
        if own and not own["ok"] and own["line"] != record["verdict"]:
            lines.append(f"    {visible(own['line'])}")
        if record.get("printed"):
            lines.append("    printed: " + visible(record["printed"][:500]))
    lines.append("")
    lines.append(f"Class: {sum(r['ok'] for r in records)} of {len(records)} pass every case")
    lines += [f"  {count:>3}  {visible(words)}" for words, count in summary.items()]
    return "\n".join(lines) + "\n"


def markdown(records: list[dict], summary: dict) -> str:
    def cell(value: str) -> str:
        return visible(value).replace("|", "\\|")

    def softmax(record: dict) -> str:
        own = record.get("softmax")
        return "—" if not own else cell(own["line"].removeprefix("softmax: "))

    lines = [
        "| student | cases passed | first mistake | own softmax |",
        "| --- | --- | --- | --- |",
    ]
    lines += [
        f"| {cell(Path(r['file']).name)} | {r['passed']}/{r['cases']} "
        f"| {cell(r['verdict'] or r['words'])} | {softmax(r)} |"
        for r in records
    ]
    lines += ["", "| mistake | students |", "| --- | --- |"]
    lines += [f"| {cell(words)} | {count} |" for words, count in summary.items()]
    return "\n".join(lines) + "\n"
