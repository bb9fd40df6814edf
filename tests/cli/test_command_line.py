"""The command line is read once: ``read`` says which command a line asks for and
the words its parser gets, before NumPy loads for an app's line, and building the parser fills
no table of the module's.

The expected commands are the ones docs/cli.md gives each line."""

from __future__ import annotations

import copy
import os
import subprocess
import sys

import pytest

from attn_tui.tui.cli import parser as command_line
from attn_tui.tui.cli.parser import build_parser, read
from tests.conftest import ROOT

# (a line as docs/cli.md writes it, the command it says the line is)
LINES = [
    ([], "open"),
    (["scenarios/cat_sat.yaml"], "open"),
    (["cat_sat", "--present"], "open"),
    (["cat_sat_lesson", "--join", "--name", "Ada"], "open"),
    (["open", "cat_sat"], "open"),
    (["print", "cat_sat", "--row", "sat"], "print"),
    (["--print", "cat_sat", "--row", "sat"], "print"),
    (["cat_sat", "--print"], "print"),
    (["json", "cat_sat"], "json"),
    (["--json", "cat_sat"], "json"),
    (["--js", "cat_sat"], "json"),
    (["cat_sat", "--mark"], "markdown"),
    (["--markdown", "--worksheet", "--answers", "cat_sat"], "markdown"),
    (["--check", "mine.yaml"], "check"),
    (["check", "cat_sat", "--impl", "mine.py"], "check"),
    (["--list"], "list"),
    (["list"], "list"),
    (["serve", "cat_sat", "--port", "8000"], "serve"),
    (["--serve", "cat_sat_lesson", "--lesson"], "serve"),
    (["responses", "cat_sat_lesson", "class.jsonl", "--json"], "responses"),  # (its own --json)
    (["grade", "work", "--markdown"], "grade"),
    (["heads", "m_layers.yaml", "--json"], "heads"),
    (["figure", "cat_sat", "--stage", "weights"], "figure"),
    (["capture", "gpt2", "--text", "hi", "--layer", "0"], "capture"),
    (["new", "mine.yaml", "--tokens", "a b", "--d-k", "2"], "new"),
    (["cat_sat", "--version"], None),
    (["--help"], None),
]


@pytest.mark.parametrize("argv, command", LINES)
def test_the_line_read_names_its_command(argv, command):
    line = read(argv)
    assert line.command == command
    assert line.opens_the_app == (command in ("open", "serve"))


def test_a_modes_flag_is_taken_out_of_the_words_and_debug_goes_last():
    assert read(["cat_sat", "--print", "--row", "sat"]).words == ("cat_sat", "--row", "sat")
    assert read(["--debug", "--json", "cat_sat", "--", "--print"]).words == (
        "cat_sat",
        "--debug",
        "--",
        "--print",
    )
    assert read(["print", "cat_sat", "--row", "--json"]).words == (
        "cat_sat",
        "--row",
        "--json",
    )  # (--row's value)


def test_building_the_parser_fills_no_table_of_the_module():
    """Two lines read one after the other cannot see each other's options through the module."""

    def tables():
        return {
            name: copy.deepcopy(value)
            for name, value in vars(command_line).items()
            if isinstance(value, (dict, set, list)) and not name.startswith("__")
        }

    before = tables()
    build_parser()
    read(["--json", "cat_sat", "--tiles", "2,2"])
    assert tables() == before
    # nor had one been filled before (by an earlier test's line): new's --tokens is in no table
    # the module declares, only in the parser it builds
    assert not [name for name, value in before.items() if "--tokens" in repr(value)]


@pytest.mark.parametrize(
    "argv",
    [
        ["cat_sat"],
        ["--serve", "cat_sat", "--port", "8000"],
        ["cat_sat", "--present", "--debug"],
        ["open", "--join", "cat_sat_lesson"],
    ],
)
def test_reading_an_apps_line_loads_no_numpy(argv):
    """The app asks for one BLAS thread once the line is read, before NumPy loads."""
    code = (
        "import sys\nfrom attn_tui.tui.cli.parser import read\n"
        f"line = read({argv!r})\nprint(line.opens_the_app, 'numpy' in sys.modules)"
    )
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, env=env, check=True
    )
    assert done.stdout.split() == ["True", "False"]


def test_argparse_takes_no_prefix_of_a_subcommand():
    """Why the modes' flags' prefixes are matched by parser._mode_flag: argparse (3.10-3.13)
    finds a subcommand by its whole name only, allow_abbrev or not."""
    with pytest.raises(SystemExit):
        build_parser().parse_args(["mark", "cat_sat"])
