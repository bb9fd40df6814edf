"""README.md says what the program does: its tables are the program's own lists."""

from __future__ import annotations

import re

from attn_tui.core.loading.catalog import builtins
from attn_tui.tui.keys import markdown_table
from tests.conftest import ROOT

README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_the_keys_table_is_the_apps_own():
    shown = README.split("<!-- keys -->\n", 1)[1].split("\n<!-- /keys -->", 1)[0]
    assert shown == markdown_table()


def test_every_built_in_is_in_the_table_and_nothing_else():
    table = README.split("### Built-in scenarios", 1)[1].split("\n## ", 1)[0]
    listed = re.findall(r"^\| `(\w+)` \|", table, flags=re.M)
    assert listed == [builtin.name for builtin in builtins()]


def test_every_command_line_option_the_readme_names_exists():
    from attn_tui.tui.cli.parser import options

    known = options()
    block = README.split("## The command line", 1)[1].split("```", 2)[1]
    for option in set(re.findall(r"(?<![\w-])--[a-z][a-z-]+", block)):
        assert option in known, option


def test_what_a_newcomer_tripped_over_is_in_the_readme():
    """Issue 23's newcomer's list: the lighter PyTorch, the offline switch, the browser test's
    Chromium, the answer key's command, the class's cap (each as the program has it)."""
    from attn_tui.tui.cli import DEFAULT_MAX_APPS

    capture = README.split("## A real model's attention", 1)[1].split("\n## ", 1)[0]
    assert "CUDA build" in capture and "pip install torch --index-url https://download.pytorch.org/whl/cpu" in capture
    assert "HF_HUB_OFFLINE=1" in capture and "within 2 s" in capture
    assert "Chromium" in README.split("## The app", 1)[0]
    assert "attn-tui --markdown --worksheet --answers cat_sat" in README
    assert f"`--max-apps` apps run at once (default {DEFAULT_MAX_APPS}" in README


def test_the_gradients_section_shows_the_programs_own_walk_and_training():
    """The README's dS excerpt is what --print writes, and its training figures are the runs'."""
    from attn_tui.core import load
    from attn_tui.core.outputs.report import text_chunks
    from attn_tui.core.engine.training import runs
    from tests.conftest import SCENARIOS

    section = README.split("## Gradients: the backward pass", 1)[1].split("\n## ", 1)[0]
    excerpt = section.split("```\n", 2)[1].split("\n```", 1)[0]
    scenario = load(SCENARIOS / "learning_to_attend.yaml")
    printed = "".join(text_chunks(scenario, rows=[4]))
    assert excerpt in printed
    scaled, unscaled = runs(scenario)[1:]
    scaled.run()
    unscaled.run()
    told = f"scaled loss falls from {scaled.losses[0]:.3f} to {scaled.losses[-1]:.3f}"
    assert told in " ".join(section.split())
    assert f"climbs to {unscaled.losses[-1]:.3f} and stalls" in " ".join(section.split())
