"""What each command of the command line takes: its arguments and options, with their help, for
:func:`~attn_tui.tui.cli.parser.build_parser`, which makes a subcommand of each command (the
parser reads the line; this module only declares). Nothing here loads NumPy but the stages' own
options (:func:`add_toggles`), which the parser adds only when it is asked for them.
"""

from __future__ import annotations

import argparse

DEFAULT_HOST, DEFAULT_PORT = "127.0.0.1", 8000
# A served app is a process of about 60 MB (40 MB counting shared pages once; docs, performance):
# 40 of them take 1.6-2.4 GB, what a lecturer's laptop can spare, and cover a class of 30 with
# room for reloaded pages, whose old app lingers until its connection times out. Without a cap,
# a page reloaded in a loop (or one script) starts apps until the machine runs out of memory.
DEFAULT_MAX_APPS = 40

# how --serve starts each browser's app: saving only inside DIR (see core.editing.save_root),
# following the teacher's beats on the channel at PATH (see tui.follow), and keeping its
# recovery copies in its browser's folder (see core.editing.recovery_slots)
HIDDEN = ("--save-root", "--follow-from", "--recovery-dir", "--ask-name")


def add_toggles(parser: argparse.ArgumentParser) -> None:
    """The options that turn a stage on (each stage's ``toggle``: --tiles, --decode)."""
    from attn_tui.core.engine.stages import toggled

    for stage in toggled():
        toggle = stage.turned_on.toggle
        if toggle.value is None:
            parser.add_argument(toggle.option, action="store_true", help=toggle.help)
        else:
            parser.add_argument(toggle.option, metavar=toggle.value, help=toggle.help)


def add_scenario(parser: argparse.ArgumentParser, optional: bool = False, what: str = "") -> None:
    parser.add_argument(
        "scenario",
        nargs="?" if optional else None,
        help="a scenario file (YAML), or the name of a built-in such as cat_sat" + what,
    )


def add_row(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--row",
        metavar="ROW",
        help="the query row(s) to explain: a token, a 1-based number, "
        "or 'all' (default: the scenario's focus)",
    )


def add_student_code(parser: argparse.ArgumentParser) -> None:
    """The options of running students' code (check --impl, grade): limits, modules hidden."""
    parser.add_argument(
        "--backward",
        metavar="NAME",
        help="the student's backward function (default attention_backward, when defined)",
    )
    parser.add_argument(
        "--timeout", type=float, metavar="SECONDS", help="time limit a submission (default 10)"
    )
    parser.add_argument(
        "--memory", type=float, metavar="GB", help="memory limit a submission (default 2)"
    )
    parser.add_argument(
        "--verbose", action="store_true", help="show what the student's code printed (escaped)"
    )
    parser.add_argument(
        "--forbid",
        action="append",
        metavar="MODULE",
        help="a module the student's code may not import (repeatable; e.g. torch): hidden in the "
        "sandbox, as attn-tui is",
    )


def add_open_arguments(app: argparse.ArgumentParser, toggles: bool) -> None:
    """open's: the app in this terminal (the stages' options with ``toggles``), and the options
    --serve starts each browser's app with (``HIDDEN``)."""
    add_scenario(app, optional=True, what=" (none: the app offers the built-ins)")
    app.add_argument(
        "--lesson",
        action="store_true",
        help="the scenario's lesson (the app opens at its beat 1 anyway; this checks there is one)",
    )
    app.add_argument(
        "--present",
        action="store_true",
        help="start in projector mode: the focus row large, for a class",
    )
    app.add_argument(
        "--join",
        nargs="?",
        const="",
        metavar="CHANNEL",
        help="follow the class a teacher leads on this machine (serve LESSON --follow), in this "
        "terminal: its beats, and your answers to it (CHANNEL: when it leads more than one)",
    )
    app.add_argument(
        "--name", help="with --join, in a class with --names: the first name the teacher sees"
    )
    if toggles:
        add_toggles(app)
    for option in HIDDEN:
        app.add_argument(option, help=argparse.SUPPRESS)


def add_markdown_arguments(handout: argparse.ArgumentParser) -> None:
    """markdown's: the walk-through, a worksheet, its answers, or the lesson, as a handout."""
    add_scenario(handout)
    add_row(handout)
    handout.add_argument(
        "--worksheet",
        action="store_true",
        help="a worksheet: the predicted stages (or all after Score) left as blanks to fill in",
    )
    handout.add_argument(
        "--answers",
        action="store_true",
        help="the worksheet's answer key (with --worksheet or not)",
    )
    handout.add_argument(
        "--no-extras",
        action="store_true",
        help="leave out the columns beside a stage's table (softmax's max and entropy): "
        "a worksheet that asks for the weights alone",
    )
    handout.add_argument(
        "--lesson",
        action="store_true",
        help="the scenario's lesson as a handout (--answers: filled in)",
    )


def add_check_arguments(checking: argparse.ArgumentParser) -> None:
    """check's: the scenario, and the student's own code to compare with it."""
    add_scenario(checking)
    add_student_code(checking)
    checking.add_argument(
        "--impl",
        metavar="FILE.py[:NAME]",
        help="run the student's own attention (NAME, default attention) on the scenario "
        "and compare it stage by stage (docs/classroom.md: students' own code)",
    )
    checking.add_argument(
        "--cases", action="store_true", help="with --impl: the whole battery of cases too"
    )
    checking.add_argument(
        "--open",
        action="store_true",
        help="with --impl: open the app with the student's numbers as expect:, at the first "
        "wrong stage, row and cell",
    )


def add_serve_arguments(serving: argparse.ArgumentParser) -> None:
    """serve's: what every browser gets, where the server listens and saves, and a class led
    from this terminal (--follow)."""
    add_scenario(
        serving, optional=True, what=" (none: every browser gets the chooser of built-ins)"
    )
    serving.add_argument(
        "--lesson", action="store_true", help="every browser plays the scenario's lesson"
    )
    serving.add_argument(
        "--follow",
        action="store_true",
        help="this terminal plays the lesson and leads, and every browser moves to its beat "
        "(f in a browser leaves and rejoins)",
    )
    serving.add_argument(
        "--host",
        help=f"the address to listen on (default {DEFAULT_HOST}: this "
        "machine only; any other lets every machine that reaches it in)",
    )
    serving.add_argument("--port", type=int, help=f"the port to listen on (default {DEFAULT_PORT})")
    serving.add_argument(
        "--serve-dir",
        metavar="DIR",
        help="the one folder served apps save in (default: a new temporary folder)",
    )
    # (the server a teacher's terminal starts, attn-tui serve FILE --follow: see tui.lead)
    serving.add_argument("--follow-from", help=argparse.SUPPRESS)
    serving.add_argument(
        "--responses",
        metavar="FILE.jsonl",
        help="with --follow: append every student's answer at a predict beat to FILE, a JSON "
        "object a line (attn-tui responses sums it up)",
    )
    serving.add_argument(
        "--names",
        action="store_true",
        help="with --follow: each student may type a first name, shown on this terminal only "
        "(default: anonymous, a random id per browser)",
    )
    serving.add_argument(
        "--record-names",
        action="store_true",
        help="with --names and --responses: write each student's first name into FILE.jsonl "
        "beside their answers, to credit participation (off by default: names are shown on this "
        "terminal only; each student's name box says which)",
    )
    serving.add_argument(
        "--max-apps",
        type=int,
        metavar="N",
        help=f"at most N apps at once, one per browser (default {DEFAULT_MAX_APPS}); "
        "the next browser is told the class is full",
    )


def add_responses_arguments(answers: argparse.ArgumentParser) -> None:
    """responses': the scenario and the log of a class's answers, summed up as text, JSON or
    Markdown."""
    add_scenario(answers)
    answers.add_argument("log", metavar="FILE.jsonl", help="the log --responses wrote")
    answers.add_argument("--json", action="store_true", help="as one JSON object")
    answers.add_argument(
        "--markdown", action="store_true", help="as Markdown, for the course notes"
    )


def add_new_arguments(new: argparse.ArgumentParser) -> None:
    """new's: the file to write and the shape of the scenario in it."""
    new.add_argument("file", help="the scenario file to write")
    new.add_argument("--tokens", required=True, help='the tokens, e.g. "the cat sat on the mat"')
    new.add_argument("--d-k", type=int, required=True, help="the width of the queries and keys")
    new.add_argument("--d-v", type=int, help="the width of the values (default: d_k)")
    new.add_argument(
        "--random",
        type=int,
        metavar="SEED",
        help="fill Q, K, V from np.random.seed(SEED) instead of zeros",
    )
    new.add_argument("--force", action="store_true", help="replace the file if it exists")


def add_grade_arguments(grading: argparse.ArgumentParser) -> None:
    """grade's: the students' files, the cases to check them on, and the report's form."""
    grading.add_argument(
        "submissions",
        nargs="+",
        metavar="FOLDER_OR_FILE",
        help="the students' .py files or notebooks, folders of them, or an LMS's export "
        "(Gradescope, Canvas, Moodle, GitHub Classroom: a folder per student)",
    )
    grading.add_argument(
        "--scenario",
        action="append",
        metavar="S",
        help="a scenario to check on as well as the default cases (again for more)",
    )
    grading.add_argument(
        "--name", default="attention", help="the function to call (default attention)"
    )
    grading.add_argument("--json", action="store_true", help="the results as one JSON object")
    grading.add_argument(
        "--markdown", action="store_true", help="the results as Markdown, for the course page"
    )
    grading.add_argument(
        "--csv", metavar="FILE", help="write a gradebook's CSV: a row per student, with a score"
    )
    grading.add_argument(
        "--junit", metavar="FILE", help="write JUnit XML: a testsuite per student, a test a case"
    )
    grading.add_argument(
        "--gradescope",
        metavar="FILE",
        help="write Gradescope's results.json for the one submission graded",
    )
    grading.add_argument(
        "--points",
        type=float,
        metavar="N",
        help="what every case passed is worth in --csv and --gradescope (default: a point a case)",
    )
    grading.add_argument(
        "--seed",
        type=int,
        metavar="N",
        help="draw the random cases' numbers from N, to grade again on the same numbers "
        "(default: new numbers each run, told in --json)",
    )
    add_student_code(grading)


def add_autograder_arguments(autograder: argparse.ArgumentParser) -> None:
    """autograder's: the platform, the zip to write, and what its grading checks."""
    autograder.add_argument("platform", choices=["gradescope"], help="where it is uploaded")
    autograder.add_argument(
        "-o", "--output", required=True, metavar="ZIP", help="the zip to write (autograder.zip)"
    )
    autograder.add_argument(
        "--scenario",
        action="append",
        metavar="S",
        help="a scenario to check on as well as the default cases (again for more; a file is "
        "put in the zip)",
    )
    autograder.add_argument(
        "--points",
        type=float,
        metavar="N",
        help="what every case passed is worth in all (default: a point a case)",
    )
    autograder.add_argument(
        "--name", default="attention", help="the function to call (default attention)"
    )
    autograder.add_argument(
        "--torch",
        action="store_true",
        help="the students write PyTorch: setup.sh installs its CPU build too",
    )
