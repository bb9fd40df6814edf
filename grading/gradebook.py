"""The views of graded submissions (grading/record.py): the table a teacher reads, ``--json``,
``--markdown``, and the files gradebooks read: CSV (a row per student), JUnit XML (a testsuite per
student, a testcase per case: CI dashboards, CodeGrade) and Gradescope's results.json (one
submission: a test per case). Functions of records and nothing else; the command writes them."""

from __future__ import annotations

import csv
import io
import json
import math
import re
from collections import Counter
from pathlib import Path
from xml.etree import ElementTree

from attn_tui.core.text import visible
from attn_tui.grading.record import Graded

NOTES_SHOWN = 3  # a student's notes in the table (all of them in --json)


def summary(records: list[Graded]) -> dict[str, int]:
    """How many students made each first mistake (the class tally)."""
    return dict(Counter(record.words for record in records).most_common())


# ---- the table, JSON and Markdown ----------------------------------------------------------


def text(records: list[Graded], passed_over: list[tuple[str, str]] = ()) -> str:
    width = max(len(visible(record.student)) for record in records)
    lines = []
    for record in records:
        name = visible(record.student)
        mark = "✓" if record.ok else "✗"
        lines.append(
            f"{mark} {name:<{width}}  {record.passed:>2}/{record.cases}  {visible(record.words)}"
        )
        if record.verdict and record.verdict != record.words:
            lines.append(f"    {visible(record.verdict)}")
        if record.chosen:
            lines.append(
                f"    graded {visible(record.chosen)}, the one function that takes (Q, K, V) "
                "(--name NAME chooses another)"
            )
        own = record.softmax
        if own and not own.ok and own.lines[0] != record.verdict:
            lines.append(f"    {visible(own.lines[0])}")
        lines += [f"    note: {note.text()}" for note in record.notes[:NOTES_SHOWN]]
        if len(record.notes) > NOTES_SHOWN:
            lines.append(f"    note: and {len(record.notes) - NOTES_SHOWN} more (--json has all)")
        if record.printed:
            lines.append("    printed: " + visible(record.printed[:500]))
    lines.append("")
    lines.append(f"Class: {sum(r.ok for r in records)} of {len(records)} pass every case")
    lines += [f"  {count:>3}  {visible(words)}" for words, count in summary(records).items()]
    lines += passed_over_lines(passed_over)
    return "\n".join(lines) + "\n"


def passed_over_lines(passed_over: list[tuple[str, str]], shown: int = 20) -> list[str]:
    """The files and folders not graded, counted and named (each with why)."""
    if not passed_over:
        return []
    lines = [f"Passed over: {len(passed_over)} (not students' code)"]
    lines += [f"  {visible(path)}: {visible(why)}" for path, why in passed_over[:shown]]
    if len(passed_over) > shown:
        lines.append(f"  and {len(passed_over) - shown} more (--json names them all)")
    return lines


def markdown(records: list[Graded], passed_over: list[tuple[str, str]] = ()) -> str:
    def cell(value: str) -> str:
        # a student's name, file or exception message is text, never markup: ``<!--`` would
        # hide every row after theirs, ``<img>`` or a link would reach out of the notes
        text = visible(value)
        for char in "\\`<>[]|":
            text = text.replace(char, "\\" + char)
        return text

    def softmax(record: Graded) -> str:
        own = record.softmax
        return "—" if not own else cell(own.lines[0].removeprefix("softmax: "))

    lines = [
        "| student | cases passed | first mistake | own softmax |",
        "| --- | --- | --- | --- |",
    ]
    lines += [
        f"| {cell(r.student)} | {r.passed}/{r.cases} | {cell(r.verdict or r.words)} "
        f"| {softmax(r)} |"
        for r in records
    ]
    lines += ["", "| mistake | students |", "| --- | --- |"]
    lines += [f"| {cell(words)} | {count} |" for words, count in summary(records).items()]
    if passed_over:
        lines += ["", f"Passed over ({len(passed_over)}):", ""]
        lines += [f"- {cell(path)}: {cell(why)}" for path, why in passed_over]
    return "\n".join(lines) + "\n"


def as_json(
    records: list[Graded],
    cases: list[str],
    passed_over: list[tuple[str, str]] = (),
    seed: int | None = None,
) -> str:
    """grade --json: ``cases``, ``seed`` (the random cases' numbers: ``--seed`` draws them
    again), ``submissions`` (as before, with how each was read added) and ``summary``;
    ``passed_over`` when something was."""
    found = {
        "cases": cases,
        "seed": seed,
        "submissions": [_submission(record) for record in records],
        "summary": summary(records),
    }
    if passed_over:
        found["passed_over"] = [{"path": path, "why": why} for path, why in passed_over]
    return json.dumps(found, indent=1, allow_nan=False, ensure_ascii=False) + "\n"


def _submission(record: Graded) -> dict:
    diagnosis = record.diagnosis
    found = {
        "file": record.file,
        "ok": record.ok,
        "status": record.status,
        "passed": record.passed,
        "cases": record.cases,
        "diagnosis": None
        if diagnosis is None
        else {
            "mistake": diagnosis.mistake,
            "what": diagnosis.what,
            "fix": diagnosis.fix,
            "case": diagnosis.case,
            "stage": diagnosis.stage,
        },
        "words": record.words,
        "verdict": record.verdict,
        "results": [
            {"case": outcome.case, "ok": outcome.ok, "line": outcome.line}
            for outcome in record.outcomes
        ],
        "not_run": list(record.not_run),
        "softmax": None
        if record.softmax is None
        else {"ok": record.softmax.ok, "line": record.softmax.lines[0]},
        # how it was read
        "student": record.student,
        "folder": record.folder,
        "export": record.export,
        "kind": record.kind,
        "function": record.function,
        "chosen": record.chosen,
        "convention": record.convention,
        "returns": record.returns,
        "notes": [
            {"cell": note.cell, "line": note.line, "type": note.type, "message": note.message}
            for note in record.notes
        ],
    }
    if record.backward is not None:
        found["backward"] = {
            "ok": record.backward.ok,
            "wrong": dict(record.backward.wrong),
            "lines": list(record.backward.lines),
        }
    if record.printed is not None:
        found["printed"] = record.printed
    return found


# ---- gradebooks ----------------------------------------------------------------------------

CSV_COLUMNS = ("student", "file", "passed", "of", "score", "first_mistake", "status")


def as_csv(records: list[Graded], points: float | None = None) -> str:
    """A row per submission: student, folder or file, cases passed, of, score, first mistake."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for record in records:
        writer.writerow(
            [
                _plain(record.student),
                _plain(record.file or record.folder or ""),
                record.passed,
                record.cases,
                _number(record.score(points)),
                "" if record.ok else _plain(record.words),
                record.status,
            ]
        )
    return out.getvalue()


def _plain(value: str) -> str:
    """Text for a spreadsheet: control characters visible, and a formula's first character
    quoted (a student's name or file '=HYPERLINK(…)' must stay text)."""
    value = visible(str(value))
    return "'" + value if value[:1] in ("=", "+", "-", "@") else value


def _number(value: float) -> str:
    return f"{value:.10g}"


def as_junit(records: list[Graded], cases: list[str]) -> str:
    """JUnit XML: a testsuite per submission, a testcase per case (failure: the case's line and
    the named mistake's fix; error: why the code could not run; skipped: a case not run)."""
    suites = ElementTree.Element("testsuites", name="attn-tui grade")
    totals = Counter()
    for record in records:
        suite = ElementTree.SubElement(suites, "testsuite", name=_xml(record.student))
        counts = Counter()
        for case, outcome in _per_case(record, cases):
            test = ElementTree.SubElement(
                suite, "testcase", classname=_xml(record.student), name=_xml(case)
            )
            counts["tests"] += 1
            if outcome is None:
                why = record.verdict or record.words
                ElementTree.SubElement(test, "error", message=_xml(why)).text = _xml(why)
                counts["errors"] += 1
            elif outcome.not_run:
                ElementTree.SubElement(test, "skipped", message=_xml(outcome.line))
                counts["skipped"] += 1
            elif not outcome.ok:
                failure = ElementTree.SubElement(test, "failure", message=_xml(outcome.line))
                failure.text = _xml(_diagnosis_text(outcome))
                counts["failures"] += 1
        for check_name, check in (("own softmax", record.softmax), ("backward", record.backward)):
            if check is None:
                continue
            test = ElementTree.SubElement(
                suite, "testcase", classname=_xml(record.student), name=check_name
            )
            counts["tests"] += 1
            if not check.ok:
                failure = ElementTree.SubElement(test, "failure", message=_xml(check.lines[0]))
                failure.text = _xml("\n".join(check.lines))
                counts["failures"] += 1
        if record.notes:
            ElementTree.SubElement(suite, "system-out").text = _xml(
                "\n".join("note: " + note.text() for note in record.notes)
            )
        for key in ("tests", "failures", "errors", "skipped"):
            suite.set(key, str(counts[key]))
        suite.set("time", f"{record.seconds:.3f}")
        totals.update(counts)
    for key in ("tests", "failures", "errors", "skipped"):
        suites.set(key, str(totals[key]))
    ElementTree.indent(suites)
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        + ElementTree.tostring(suites, encoding="unicode")
        + "\n"
    )


# what XML 1.0 cannot hold even as a character reference, once visible() has shown the controls:
# the noncharacters U+FFFE and U+FFFF and any surrogate (a parser rejects the whole file)
NOT_XML = re.compile("[\ufffe\uffff\ud800-\udfff]")


def _xml(value: str) -> str:
    """Text XML 1.0 can hold: a student's control characters made visible (XML has no way to
    write most of them at all), and the characters it forbids as their code points."""
    return NOT_XML.sub(lambda found: f"<U+{ord(found.group()):04X}>", visible(str(value)))


def _per_case(record: Graded, cases: list[str]):
    """Each case with its outcome; None for every case when the code could not run at all."""
    outcomes = {outcome.case: outcome for outcome in record.outcomes}
    if not outcomes:
        return [(case, None) for case in cases]
    return [(case, outcomes.get(case)) for case in cases if case in outcomes]


def _diagnosis_text(outcome) -> str:
    parts = [outcome.line]
    if outcome.what:
        parts.append(f"Likely bug: {outcome.what}")
    if outcome.fix:
        parts.append(f"Fix: {outcome.fix}")
    return "\n".join(parts)


def as_gradescope(
    record: Graded, cases: list[str], points: float | None = None, visibility: str = "visible"
) -> str:
    """Gradescope's results.json for one submission: a test per case (name, score, max_score,
    status, output in Markdown with the diagnosis and its fix, visibility), the total score and
    the execution time. A case not run is listed at 0 of 0 points, with why."""
    counted = [case for case, outcome in _per_case(record, cases) if not _not_run(outcome)]
    each = (len(counted) if points is None else points) / len(counted) if counted else 0.0
    tests = []
    for case, outcome in _per_case(record, cases):
        if _not_run(outcome):
            tests.append(_test(case, 0.0, 0.0, "passed", f"not run: {outcome.line}", visibility))
            continue
        ok = outcome is not None and outcome.ok
        if outcome is None:
            output = f"Your code could not be run: {_md(record.verdict or record.words)}"
        elif ok:
            output = _md(outcome.line)
        else:
            output = (
                _md(outcome.line)
                + (f"\n\n**Likely bug:** {_md(outcome.what)}" if outcome.what else "")
                + (f"\n\n**Fix:** {_md(outcome.fix)}" if outcome.fix else "")
            )
        tests.append(
            _test(case, each if ok else 0.0, each, "passed" if ok else "failed", output, visibility)
        )
    for name, check in (("own softmax", record.softmax), ("backward", record.backward)):
        if check is not None:
            tests.append(
                _test(
                    name,
                    0.0,
                    0.0,
                    "passed" if check.ok else "failed",
                    "\n\n".join(_md(line) for line in check.lines),
                    visibility,
                )
            )
    results = {
        "score": _rounded(
            each * sum(test["status"] == "passed" and test["max_score"] > 0 for test in tests)
        ),
        "execution_time": max(0, math.ceil(record.seconds)),
        "output": _overall(record),
        "output_format": "md",
        "visibility": visibility,
        "tests": tests,
    }
    return json.dumps(results, indent=1, allow_nan=False, ensure_ascii=False) + "\n"


def _not_run(outcome) -> bool:
    return outcome is not None and outcome.not_run


def _test(name, score, max_score, status, output, visibility) -> dict:
    return {
        "name": visible(name),
        "score": _rounded(score),
        "max_score": _rounded(max_score),
        "status": status,
        "output": output,
        "output_format": "md",
        "visibility": visibility,
    }


def _rounded(value: float) -> float:
    return round(float(value), 6)


def _overall(record: Graded) -> str:
    lines = [
        f"**{_md(record.student)}**: {record.passed} of {record.cases} cases pass"
        + (f" ({_md(record.words)})" if not record.ok and record.words else "")
    ]
    if record.function:
        lines.append(
            f"Graded `{_md(record.function)}` in {_md(Path(record.file).name)}"
            + (f"; read as {_md(record.convention)}" if record.convention else "")
            + (f"; returns {_md(record.returns)}" if record.returns else "")
        )
    if record.chosen:
        lines.append(f"No function had the name asked: `{_md(record.chosen)}` was graded.")
    if record.verdict and not record.outcomes:
        lines.append(_md(record.verdict))
    lines += [f"- note: {_md(note.text())}" for note in record.notes]
    return "\n\n".join(lines)


def _md(value: str) -> str:
    """A student's text inside Markdown: visible, and no markup of theirs (links, HTML)."""
    text = visible(str(value))
    for char in "\\`*_[]<>#|":
        text = text.replace(char, "\\" + char)
    return text
