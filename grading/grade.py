"""``attn-tui grade FOLDER_OR_FILES…``: every submission (a .py file or a notebook; an LMS's
export found by grading/submissions.py) checked on the same cases, each in its own worker (one
bad submission never stops the others), into one record per student (grading/record.py): a line
per student (cases passed, the first mistake named) and a class summary (how many made each
mistake), as text, ``--json`` or ``--markdown``, and the gradebooks --csv, --junit and
--gradescope write (grading/gradebook.py). A progress line on a terminal's standard error once it
takes over a second."""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
import sys
import tempfile
import time
from pathlib import Path

from attn_tui.core.text import visible
from attn_tui.grading import cases as battery
from attn_tui.grading import gradebook
from attn_tui.grading.check import (
    EXIT_DIFFERS,
    EXIT_OK,
    UsageError,
    counted,
    run_cases,
    submission_of,
)
from attn_tui.grading.failures import SubmissionFailed
from attn_tui.grading.notebook_code import MAX_NOTEBOOK, NotANotebook, code_cells
from attn_tui.grading.record import Check, Diagnosis, Graded, Note, Outcome
from attn_tui.grading.report import case_line
from attn_tui.grading.submissions import Found, discover


def grade_one(args, found: Found, cases: list) -> Graded:
    """One student's record: how their code was read, and each case."""
    started = time.monotonic()
    base = {
        "student": found.student,
        "file": str(found.file) if found.file is not None else "",
        "folder": str(found.folder) if found.folder is not None else None,
        "export": found.export,
        "cases": counted([], cases).of,  # the same however it fails
    }
    if found.file is None:
        words = {
            "empty": "nothing handed in",
            "ambiguous": "two files define it",
            "unreadable": "not read",  # (a link out or in a loop, too many files: the verdict)
        }
        return Graded(
            **base,
            status=found.status,
            words=words.get(found.status, "no attention function"),
            verdict=found.problem,
        )
    path = found.file
    base["kind"] = "ipynb" if path.suffix.lower() == ".ipynb" else "py"
    if not path.is_file():
        return Graded(
            **base,
            status="unreadable",
            words="not a regular file",
            verdict=f"{visible(path.name)}: not a regular file "
            "(a FIFO or a device is not a student's code)",
        )
    if base["kind"] == "ipynb":
        problem = notebook_problem(path)
        if problem:
            return Graded(**base, status="unreadable", words="not a notebook", verdict=problem)
    # a file named alone is seen alone: `grade *.py` names a whole class in one folder
    folder = found.folder
    with contextlib.ExitStack() as stack:
        if found.helpers:
            folder = stack.enter_context(helpers_folder(found.helpers))
        return _graded(args, path, folder, cases, base, started)


@contextlib.contextmanager
def helpers_folder(helpers: tuple[Path, ...]):
    """A Canvas student's other files under the names they gave them, in a folder of their own
    (Canvas renamed utils.py lovelaceada_111_902_utils.py: ``from utils import softmax`` found
    nothing), readable by the worker's user; removed afterwards."""
    from attn_tui.grading.student_code import MAX_SOURCE
    from attn_tui.grading.submissions import canvas_name

    with tempfile.TemporaryDirectory(prefix="attn-tui-helpers-") as folder:
        os.chmod(folder, 0o755)
        for helper in helpers:
            given = canvas_name(helper)
            if given.startswith(".") or os.path.exists(os.path.join(folder, given)):
                continue
            with contextlib.suppress(OSError), open(helper, "rb") as source:
                data = source.read(MAX_SOURCE + 1)
                if len(data) <= MAX_SOURCE:
                    Path(folder, given).write_bytes(data)
                    os.chmod(os.path.join(folder, given), 0o644)
        yield folder


def _graded(args, path: Path, folder, cases: list, base: dict, started: float) -> Graded:
    """The submission run on every case, importing from ``folder``."""
    submission = submission_of(args, str(path), args.name, folder)
    printed = None
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
            return Graded(
                **base,
                **how_read(submission.info),
                status=failed.failure.kind,
                verdict=visible(failed.failure.verdict),
                words=_failure_words(failed.failure.kind),
                printed=submission.output() if args.verbose else None,
                seconds=time.monotonic() - started,
            )
        if args.verbose:
            printed = submission.output()
    count = counted(results, cases)
    backward_ok = backward is None or backward.ok
    # (cases not run after a memory bomb are not passed)
    softmax_ok = own_softmax is None or own_softmax[0]
    ok = count.ok and backward_ok and softmax_ok
    read = next((result for result in results if result.ok), None) or next(
        (result for result in results if result.way is not None), None
    )
    record = {
        **base,
        **how_read(submission.info),
        "ok": ok,
        "status": "ok" if ok else "differs",
        "passed": count.passed,
        "cases": count.of,
        "not_run": tuple(result.case.name for result in results if result.not_run is not None),
        "outcomes": tuple(outcome_of(result) for result in results),
        "softmax": None if own_softmax is None else Check(own_softmax[0], (own_softmax[1],)),
        "backward": None
        if backward is None
        else Check(backward.ok, tuple(backward.lines), tuple(backward.wrong.items())),
        "printed": printed,
        "convention": read.way.describe() if read is not None else "",
        "returns": read.returns if read is not None else "",
        "seconds": time.monotonic() - started,
    }
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
        return Graded(**record)
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
        record["diagnosis"] = Diagnosis(
            judged.mistake,
            judged.diagnosis.what,
            judged.diagnosis.fix,
            wrong.case.name,
            judged.stage,
        )
        record["words"] = judged.words
    else:
        record["words"] = "other"
    return Graded(**record)


def how_read(info: dict) -> dict:
    """What the worker said of how it read the code: the function, the one chosen in its place,
    the kind of file and the notes its loading left."""
    notes = info.get("notes")
    return {
        "function": str(info.get("as") or ""),
        "chosen": info.get("chosen") if isinstance(info.get("chosen"), str) else None,
        "notes": tuple(Note.of(note) for note in notes if isinstance(note, dict))
        if isinstance(notes, list)
        else (),
    }


def outcome_of(result) -> Outcome:
    judged = result.first_wrong
    diagnosis = judged.diagnosis if judged is not None and not result.ok else None
    return Outcome(
        result.case.name,
        result.ok,
        case_line(result),
        not_run=result.not_run is not None,
        mistake=judged.mistake if diagnosis is not None else None,
        what=diagnosis.what if diagnosis is not None else "",
        fix=diagnosis.fix if diagnosis is not None else "",
    )


def notebook_problem(path: Path) -> str:
    """The one line saying why a file named .ipynb is not a notebook we read, or ""."""
    try:
        with open(path, "rb") as file:
            code_cells(file.read(MAX_NOTEBOOK + 1))
    except NotANotebook as problem:
        return f"{visible(path.name)}: {visible(str(problem))}"
    except OSError as problem:
        return f"{visible(path.name)}: could not be read ({visible(problem.strerror or '')})"
    return ""


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
        if args.json and args.markdown:
            raise UsageError("give --json or --markdown, not both")
        if args.points is not None and not (0 < args.points < 1e9):
            raise UsageError("--points must be a positive number")
        # a results.json is one submission's: a folder given with it is one student's
        discovery = discover(args.submissions, args.name, one=bool(args.gradescope))
        if args.gradescope and len(discovery.found) != 1:
            raise UsageError(
                f"--gradescope writes one submission's results.json; found "
                f"{len(discovery.found)}: grade one student's folder or file"
            )
        if args.seed is not None and not 0 <= args.seed < 2**32:
            raise UsageError("--seed must be a whole number from 0 to 4294967295")
        # new numbers each run unless asked: fixed ones could be looked up, not computed
        seed = args.seed if args.seed is not None else secrets.randbelow(2**32)
        cases = battery.battery(seed=seed)
        cases += [_scenario_case(name) for name in args.scenario or []]
    except UsageError as problem:
        parser.error(str(problem))
    records, started = [], time.monotonic()
    progress = sys.stderr is not None and sys.stderr.isatty()
    for i, found in enumerate(discovery.found):
        if progress and time.monotonic() - started > 1.0:
            _bar(i, len(discovery.found), found.student)
        try:
            records.append(grade_one(args, found, cases))
        except UsageError as problem:
            records.append(_not_graded(found, cases, "usage", "could not run", str(problem)))
        except Exception as problem:  # noqa: BLE001 (one student's row never ends the class's table)
            records.append(
                _not_graded(
                    found,
                    cases,
                    "error",
                    "could not be graded",
                    visible(f"attn-tui could not grade it: {type(problem).__name__}: {problem}")[
                        :500
                    ],
                )
            )
    if progress and time.monotonic() - started > 1.0:
        sys.stderr.write("\r\x1b[K")
        sys.stderr.flush()
    from attn_tui.tui.cli.streams import write_out

    names = [case.name for case in cases]
    passed_over = discovery.passed_over
    written = [
        (args.csv, lambda: gradebook.as_csv(records, args.points)),
        (args.junit, lambda: gradebook.as_junit(records, names)),
        (args.gradescope, lambda: gradebook.as_gradescope(records[0], names, args.points)),
    ]
    for target, view in written:
        if target:
            try:
                write_file(target, view())
            except OSError as problem:
                parser.error(f"{visible(target)}: could not be written ({problem.strerror})")
    if args.json:
        write_out(gradebook.as_json(records, names, passed_over, seed))
    elif args.markdown:
        write_out(gradebook.markdown(records, passed_over))
    else:
        write_out(gradebook.text(records, passed_over))
    return EXIT_OK if all(record.ok for record in records) else EXIT_DIFFERS


def write_file(target: str, content: str) -> None:
    """A gradebook file, written whole or not at all (a half-written results.json would be read
    as a grade): to a temporary file beside it, then renamed over it. A link is written through
    (the file it names is replaced, the link kept); a device or a pipe (``--csv /dev/stdout``)
    is written into, never renamed over (as root, that replaced /dev/stdout itself)."""
    try:
        mode = os.stat(target).st_mode
    except OSError:
        mode = None  # (not there yet: made below)
    if mode is not None and not stat.S_ISREG(mode):
        with open(target, "w", encoding="utf-8", newline="") as file:
            file.write(content)
        return
    target = os.path.realpath(target)
    folder = os.path.dirname(target)
    handle, temporary = tempfile.mkstemp(prefix=".attn-tui-", dir=folder)
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="") as file:
            file.write(content)
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


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


def _not_graded(found: Found, cases: list, status: str, words: str, verdict: str) -> Graded:
    return Graded(
        student=found.student,
        file=str(found.file or ""),
        cases=counted([], cases).of,
        folder=str(found.folder) if found.folder is not None else None,
        export=found.export,
        status=status,
        words=words,
        verdict=verdict,
    )


def _bar(done: int, total: int, name: str) -> None:
    width = 24
    filled = width * done // total
    sys.stderr.write(
        f"\rgrading [{'█' * filled}{' ' * (width - filled)}] {done}/{total} "
        f"{visible(name)[:30]}\x1b[K"
    )
    sys.stderr.flush()
