"""The modes' flags (--json, --print, ...) and their subcommands are the same command: what the
old command line read is read the same, or told better (an option of another mode names the mode
it goes with)."""

from __future__ import annotations

import pytest

from attn_tui.tui.cli import main


@pytest.mark.parametrize(
    "old, new",
    [
        (["--json", "cat_sat"], ["json", "cat_sat"]),
        (["cat_sat", "--print", "--row", "sat"], ["print", "cat_sat", "--row", "sat"]),
        (["--markdown", "--worksheet", "cat_sat"], ["markdown", "cat_sat", "--worksheet"]),
    ],
)
def test_the_modes_flags_and_their_subcommands_are_the_same_command(capsys, old, new):
    assert main(old) == 0
    before = capsys.readouterr()
    assert main(new) == 0
    assert capsys.readouterr() == before and before.out


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--json", "cat_sat", "--row", "sat"], "--row goes with --print or --markdown"),
        (["--check", "cat_sat", "--worksheet"], "--worksheet goes with --markdown"),
        (["--json", "--print", "cat_sat"], "give one mode: --json and --print are two"),
        (["cat_sat", "--tokens", "a"], "--tokens goes with attn-tui new"),
    ],
)
def test_an_option_of_another_mode_is_told_which_mode_it_goes_with(capsys, argv, message):
    with pytest.raises(SystemExit) as caught:
        main(argv)
    assert caught.value.code == 2 and message in capsys.readouterr().err


@pytest.mark.parametrize(
    "argv", [["cat_sat", "--version"], ["--debug", "--version"], ["--json", "--version"]]
)
def test_version_anywhere_on_the_line_as_before(capsys, argv):
    with pytest.raises(SystemExit) as caught:
        main(argv)
    assert caught.value.code == 0 and capsys.readouterr().out.startswith("attn-tui ")


@pytest.mark.parametrize(
    "short, whole",
    [
        (["--js", "cat_sat"], ["json", "cat_sat"]),
        (["cat_sat", "--mark"], ["markdown", "cat_sat"]),
        (["--li"], ["list"]),
        (["--debug", "json", "cat_sat"], ["json", "cat_sat"]),
        (["json", "--json", "cat_sat"], ["json", "cat_sat"]),
    ],
)
def test_a_modes_flag_shortened_or_repeated_and_debug_before_the_command(capsys, short, whole):
    """argparse took a prefix of an option before the command line had subcommands (--js for
    --json); --debug goes anywhere; the old flag beside its own command is the same command."""
    assert main(short) == 0
    out = capsys.readouterr().out
    assert main(whole) == 0 and capsys.readouterr().out == out and out


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--ser", "cat_sat"], "ambiguous option: --ser could match --serve, --serve-dir"),
        (["serve", "--json", "cat_sat"], "give one mode: attn-tui serve and --json are two"),
        (["--print", "cat_sat", "--row", "--json"], "argument --row: expected one argument"),
        (
            ["--json", "cat_sat", "--force"],
            "--force goes with attn-tui new or attn-tui capture or attn-tui figure",
        ),
        (
            ["--json", "cat_sat", "extra", "--row", "1"],
            "--row goes with --print or --markdown or attn-tui figure (and unrecognized: extra 1)",
        ),
        (["--json", "cat_sat", "x --row"], "unrecognized arguments: x --row"),
        (
            ["--check", "cat_sat", "--worksheet"],
            "--worksheet goes with --markdown: attn-tui --markdown --worksheet FILE",
        ),
    ],
)
def test_what_the_old_command_line_read_is_read_the_same_or_told_better(capsys, argv, message):
    with pytest.raises(SystemExit) as caught:
        main(argv)
    err = capsys.readouterr().err
    assert caught.value.code == 2 and err.splitlines()[-1].endswith(message), err


def test_an_option_of_another_mode_shows_the_usage_of_the_mode_given(capsys):
    with pytest.raises(SystemExit):
        main(["--json", "cat_sat", "--row", "sat"])
    assert capsys.readouterr().err.startswith("usage: attn-tui json ")
