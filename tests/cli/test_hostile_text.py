"""Hostile text in every field, through every headless mode and every message.

Text from a file or an argument — title, description, tokens, variant names, file names, npz
member names, focus, --row — reaches the terminal with every control character made visible:
no escape sequence (OSC 52 clipboard writes, OSC 0 window titles, CSI 2J), no C1 control, no
bidirectional override gets through, and markup such as ``[/INST]`` is shown as written.
``--json`` escapes by itself (it is ASCII).
"""

from __future__ import annotations

import json
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attn_tui.core import ScenarioError, loads
from attn_tui.core.model.scenario import Scenario
from attn_tui.core.outputs.markdown import to_markdown
from attn_tui.core.outputs.report import to_text
from attn_tui.tui.cli import main

HOSTILE = {
    "osc52-clipboard": "b\x1b]52;c;cm0gLXJmIH4=\x1b\\",
    "osc0-title": "b\x1b]0;PWNED\x1b\\",
    "osc0-bel": "a\x1b]0;pwned\x07",
    "csi-clear": "\x1b[2J",
    "c1-csi": "x\x9b2J",
    "c1-osc": "\x9d0;t\x9c",
    "nel": "n\x85l",
    "bidi-override": "abc\u202edcba",
    "bidi-isolate": "\u2066x\u2069y",
    "line-separator": "p\u2028q",
    "del-nul": "d\x7f\x00",
    "newline": "two\nlines",
    "markup-inst": "[/INST]",
    "markup-click": "[@click=app.quit]b[/]",
    "markup-cls": "[CLS]",
}
MARKUP = {"[/INST]", "[@click=app.quit]b[/]", "[CLS]"}
# What must never reach a terminal: C0 controls other than a line feed, DEL, C1, the
# bidirectional overrides and isolates, and the line and paragraph separators.
FORBIDDEN = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\u2028\u2029]")


def yaml_text(text: str) -> str:
    """``text`` as a YAML double-quoted scalar (JSON's escapes are YAML's)."""
    return json.dumps(text)


def scenario_yaml(text: str) -> str:
    """A scenario with ``text`` in every field a person writes: title, description, both
    tokens, both variant names, and the focus."""
    s = yaml_text(text)
    return (
        f"title: {s}\ndescription: {s}\ntokens: [{s}, {yaml_text(text + '2')}]\n"
        "Q: [[1, 0], [0, 1]]\nK: [[1, 0], [0, 1]]\nV: [[1, 2], [3, 4]]\n"
        f"focus: {s}\nvariants: [{{name: {s}}}, {{name: {yaml_text(text + 'x')}, scale: false}}]\n"
        "expect: {weights: [[1, 0], [0.5, 0.4]]}\n"
    )


def assert_inert(output: str, where: str) -> None:
    found = FORBIDDEN.search(output)
    assert found is None, f"{where}: {found.group()!r} reaches the terminal in {output[:300]!r}"


@pytest.fixture(params=sorted(HOSTILE))
def hostile(request):
    return HOSTILE[request.param]


def run(capsys, *args: str) -> tuple[int, str, str]:
    try:
        status = main(list(args))
    except SystemExit as exit_:  # argparse's usage errors
        status = exit_.code
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_every_field_through_every_headless_mode(write, capsys, hostile):
    path = write(scenario_yaml(hostile))
    scenario = loads(path.read_text(), str(path))
    assert scenario.title == hostile and scenario.tokens == (
        hostile,
        hostile + "2",
    )  # read as written
    for mode, status_wanted in (("--print", 0), ("--markdown", 0), ("--check", 1), ("--json", 0)):
        status, out, err = run(capsys, mode, str(path))
        assert status == status_wanted, (mode, err)
        assert_inert(out + err, mode)
        if mode == "--json":
            assert out.isascii() and json.loads(out)["tokens"] == [hostile, hostile + "2"]
        if hostile in MARKUP and mode != "--json":
            shown = out if mode != "--markdown" else re.sub(r"\\(.)", r"\1", out)
            assert hostile in shown, mode  # markup is text, shown as written
    status, out, err = run(capsys, "--print", str(path), "--row", hostile + "2")
    assert status == 0 and "Row 2," in out
    assert_inert(out + err, "--print --row")


def test_every_message_that_quotes_outside_text(write, capsys, hostile, tmp_path):
    s = yaml_text(hostile)
    rows = "Q: [[1], [2]]\nK: [[1], [2]]\nV: [[1], [2]]\n"
    cases = {
        "focus-not-a-token": f"tokens: [{s}, b]\n{rows}focus: {yaml_text(hostile + 'zz')}\n",
        "focus-ambiguous": f"tokens: [{s}, {s}]\n{rows}focus: {s}\n",
        "unknown-key": f"{rows}{s}: 1\n",
        "predict": f"{rows}predict: [{s}]\n",
        "variant-twice": f"{rows}variants: [{{name: {s}}}, {{name: {s}}}]\n",
        "npy-path": f"Q: {{npy: {s}}}\nK: [[1]]\nV: [[1]]\n",
    }
    for name, text in cases.items():
        path = write(text, f"{name}.yaml")
        status, out, err = run(capsys, "--check", str(path))
        assert status == 2 and out == "" and err.count("\n") == 1, (name, err)
        assert_inert(err, name)
    path = write(f"tokens: [{s}, b]\n{rows}")
    status, out, err = run(capsys, "--print", str(path), "--row", hostile + "zz")
    assert status == 2 and err.splitlines()[-1].startswith(
        "attn-tui print: error: --row "
    )  # after usage
    assert_inert(err, "--row")


def test_npz_member_names_in_a_message(tmp_path, capsys, hostile):
    np.savez(tmp_path / "head.npz", **{hostile.replace("/", "|") or "x": np.ones((2, 2))})
    (tmp_path / "s.yaml").write_text("npz: head.npz\n")
    status, out, err = run(capsys, "--check", str(tmp_path / "s.yaml"))
    assert status == 2 and "holds no Q, K, V" in err and err.count("\n") == 1
    assert_inert(err, "npz members")


def test_a_file_name_holding_an_escape_and_a_line_feed_is_one_inert_line(tmp_path, capsys):
    # (in this process: that a real process exits so, before the app takes the terminal, is
    # tests/cli/test_cli.py's test_a_real_process_exits_with_the_documented_status and
    # test_a_scenario_error_stops_the_app_before_it_takes_the_terminal)
    folder = tmp_path / "x\x1b]0;pwned\x07\nmore"
    folder.mkdir()
    bad = folder / "s\x1b[2J.yaml"
    bad.write_text("Q: [[1]]\nK: [[1]]\nV: [[1]]\ncasual: true\n")
    missing = folder / "gone\x9b.yaml"
    for args in (["--check", str(bad)], ["--print", str(missing)], [str(bad)]):
        status, out, err = run(capsys, *args)
        assert status == 2 and out == "", args
        assert err.count("\n") == 1 and FORBIDDEN.search(err) is None, err
        assert "␛]0;pwned␇␊more" in err


def test_new_quotes_its_arguments_inertly(tmp_path, capsys):
    target = tmp_path / "n\x1b]0;x\x07.yaml"
    status, out, err = run(capsys, "new", str(target), "--tokens", "a\x1b[2J b", "--d-k", "1")
    assert status == 0 and loads(target.read_text()).tokens == ("a\x1b[2J", "b")
    assert_inert(out + err, "new")
    status, out, err = run(capsys, "new", str(target), "--tokens", "a", "--d-k", "1")
    assert status == 2 and "already exists" in err
    assert_inert(out + err, "new, again")


def test_an_unknown_argument_is_echoed_inertly(capsys):
    status, out, err = run(capsys, "--print", "cat_sat", "--bogus\x1b]0;x\x07")
    assert status == 2
    assert_inert(out + err, "argparse")


# ---- the same, for any text at all (the views, without files) -----------------------------------


@settings(max_examples=40)
@given(
    title=st.text(max_size=12),
    description=st.text(max_size=30),
    tokens=st.lists(st.text(min_size=1, max_size=6), min_size=1, max_size=3),
    name=st.text(min_size=1, max_size=8),
)
def test_any_text_at_all_is_inert_in_print_and_markdown(title, description, tokens, name):
    from attn_tui.core.model.options import Variant

    T = len(tokens)
    scenario = Scenario(
        title=title,
        description=description,
        tokens=tuple(tokens),
        inputs={"Q": np.eye(T, 2), "K": np.eye(T, 2), "V": np.ones((T, 2))},
        variants=(Variant(name), Variant(name + "!", scale=False)),
    )
    for output in (
        to_text(scenario, rows=list(range(T))),
        to_markdown(scenario, rows=list(range(T))),
    ):
        assert_inert(output.replace("\n", ""), "a view")
        # each line stays a line: a token's line feed cannot start a new one
        assert output.count("\n") == len(output.splitlines())


def test_a_scenario_error_is_always_one_inert_line():
    error = ScenarioError(
        "focus 'a\x1b]0;x\x07' is not one of the tokens (tokens: a\x1b]0;x\x07 b)",
        3,
        8,
        "f\x1b[2J\n.yaml",
    )
    assert "\n" not in str(error) and FORBIDDEN.search(str(error)) is None
    assert (
        str(error)
        == "f␛[2J␊.yaml:3:8: focus 'a␛]0;x␇' is not one of the tokens (tokens: a␛]0;x␇ b)"
    )
