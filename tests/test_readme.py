"""README.md and the pages of docs/ say what the program does: their tables are the program's
own lists, their commands and options exist, their numbers are the program's, and every link
leads to a file that is there. README is the short tour; the rest moved to docs/, and
each claim is checked on the page it moved to."""

from __future__ import annotations

import re

import pytest
import yaml

from attn_tui.core.loading.catalog import builtins
from attn_tui.tui.key_lists import markdown_table
from tests.conftest import ROOT

README = (ROOT / "README.md").read_text(encoding="utf-8")
PAGES = (
    "keys",
    "scenarios",
    "capture",
    "classroom",
    "json",
    "cli",
    "reliability",
    "performance",
    "troubleshooting",
)


def page(name: str) -> str:
    """A page of docs/ (``page("docs/keys.md")``), or README.md itself."""
    return (ROOT / name).read_text(encoding="utf-8")


def section(text: str, heading: str) -> str:
    """From ``heading`` to the next heading of its level or higher."""
    level = heading.split(" ", 1)[0]
    rest = text.split(heading, 1)[1]
    return re.split(rf"\n#{{1,{len(level)}}} ", rest, maxsplit=1)[0]


# ---- README itself ---------------------------------------------------------------------------


def test_readme_is_a_short_tour():
    assert len(README.split("\n")) - (README.endswith("\n")) <= 300
    assert README.count("\n") <= 300  # what grep -c '' README.md counts


def test_the_two_commands_are_where_ci_reads_them():
    """.ci/run takes the fenced block right after <!-- open-command --> and the one after
    <!-- test-command -->, and runs each as written; the commands are as before."""
    block = README.split("<!-- test-command -->\n", 1)[1]
    assert block.startswith(
        "```sh\npython -m pip install '.[test]' && python -m ruff format --check . "
        "&& python -m ruff check . && python -m pytest\n```\n"
    )
    block = README.split("<!-- open-command -->\n", 1)[1]
    assert block.startswith(
        "```sh\npython -m pip install . && attn-tui scenarios/cat_sat.yaml\n```"
    )
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "readme_block open-command" in ci and "readme_block test-command" in ci


def test_readme_links_every_docs_page_and_troubleshooting_near_the_top():
    for name in PAGES:
        assert f"](docs/{name}.md)" in README, name
    assert "docs/troubleshooting.md" in README[: README.index("## A quick tour")]


def test_every_relative_link_in_readme_and_docs_leads_to_a_file_that_is_there():
    files = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    for file in files:
        text = re.sub(r"```.*?```", "", file.read_text(encoding="utf-8"), flags=re.S)
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            if re.match(r"[a-z]+:", target):
                continue  # http:, https:, mailto:
            path, _, anchor = target.partition("#")
            linked = (file.parent / path).resolve() if path else file
            assert linked.exists(), f"{file.name}: {target}"
            if anchor and linked.suffix == ".md":
                assert anchor in anchors(linked.read_text(encoding="utf-8")), (
                    f"{file.name}: {target}"
                )


def anchors(text: str) -> set[str]:
    """The anchors GitHub gives a Markdown file's headings."""
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    found = set()
    for heading in re.findall(r"^#+ (.+)$", text, flags=re.M):
        found.add(re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-"))
    return found


def test_every_docs_page_has_a_title_and_a_first_paragraph():
    for name in PAGES:
        text = page(f"docs/{name}.md")
        title, blank, first = text.split("\n")[:3]
        assert title.startswith("# ") and blank == "" and first and not first.startswith("#"), name


def test_the_readme_scenario_example_loads(tmp_path):
    from attn_tui import core

    block = (
        section(README, "## The scenario format, by example")
        .split("```yaml\n", 1)[1]
        .split("\n```", 1)[0]
    )
    path = tmp_path / "example.yaml"
    path.write_text(block + "\n", encoding="utf-8")
    scenario = core.load(path)
    assert scenario.tokens == ("the", "cat", "sat") and yaml.safe_load(block)["focus"] == "sat"
    core.compute_all(scenario)


async def test_the_quick_tour_does_what_it_says():
    """README's tour, key by key, in the app: the keys it names, and what it says they do."""
    from tests.tui_helpers import current, debugger, explanation, running

    tour = section(README, "## A quick tour")
    for key in ("→", "←", "Tab", "↓ ↓", "u", "Esc", "q", "n", "N", "?", "4", "5", "Enter"):
        assert f"**{key}**" in tour, key
    async with running() as (app, pilot):
        screen = debugger(app)
        assert (screen.stage, screen.row) == ("score", 2)  # step 1, the row of "sat"
        await pilot.press("right")
        assert screen.stage == "scale"
        await pilot.press("left")
        assert screen.stage == "score"
        await pilot.press("4")
        assert screen.stage == "softmax"
        assert '"sat" pays 25% attention to "the", 25% to "cat", and 50% to itself.' in explanation(
            app
        )
        before = current(app)
        await pilot.press("tab", "down", "down", "5", "enter")
        after = current(app)
        assert screen.session.scenario.Q[2, 0] == 5
        for stage in ("scores", "weights", "output"):
            assert (getattr(after, stage)[2] != getattr(before, stage)[2]).any(), stage
        await pilot.press("u")
        assert (
            screen.session.scenario.Q[2, 0] == 1 and (current(app).weights == before.weights).all()
        )
        await pilot.press("U")
        assert screen.session.scenario.Q[2, 0] == 5


def test_the_quick_tours_lesson_has_beats():
    from attn_tui import core
    from attn_tui.core.loading.catalog import find

    assert "attn-tui cat_sat_lesson" in README
    assert core.load(find("cat_sat_lesson")).lesson


# ---- the claims, on the pages they moved to ----------------------------------------------------


def test_the_keys_table_is_the_apps_own():
    shown = page("docs/keys.md").split("<!-- keys -->\n", 1)[1].split("\n<!-- /keys -->", 1)[0]
    assert shown == markdown_table()


def test_every_built_in_is_in_the_table_and_nothing_else():
    table = README.split("## Built-in scenarios", 1)[1].split("\n## ", 1)[0]
    listed = re.findall(r"^\| `(\w+)` \|", table, flags=re.M)
    assert listed == [builtin.name for builtin in builtins()]


OTHER_TOOLS = ("python -m ruff", "ruff ", "python -m pip", "pip ")  # commands that are not ours


def command_blocks(text: str) -> list[str]:
    """Each fenced block's text, whatever its language (and never the prose between two)."""
    return re.findall(r"^```[a-z]*\n(.*?)^```", text, flags=re.S | re.M)


def test_every_command_line_option_the_docs_name_exists():
    from attn_tui.tui.cli.parser import options

    known = options()
    cli = page("docs/cli.md")
    written = set()
    for text in (cli, README):
        for block in command_blocks(text) + re.findall(r"`([^`\n]*--[a-z][^`\n]*)`", text):
            for command in re.split(r"&&|\n", block):
                if not command.strip().startswith(OTHER_TOOLS):  # (ruff check --fix is ruff's)
                    written |= set(re.findall(r"(?<![\w-])--[a-z][a-z-]+", command))
    prefixes = {
        "--js": "--json",
        "--mark": "--markdown",
    }  # the prefixes cli.md shows read as their flag
    for option in written - set(prefixes) - {"--ser"}:
        assert option in known, option
    from attn_tui.tui.cli.parser import read

    for prefix, flag in prefixes.items():
        assert (
            f"`{prefix}`" in cli
            and read([prefix, "cat_sat"]).command == read([flag, "cat_sat"]).command
        )
    with pytest.raises(SystemExit):  # "--ser … is refused as ambiguous"
        read(["--ser", "cat_sat"])
    assert {
        "--row",
        "--worksheet",
        "--answers",
        "--lesson",
        "--tiles",
        "--decode",
        "--max-apps",
        "--serve-dir",
        "--present",
        "--json",
        "--print",
    } <= written


def test_every_command_the_cli_page_names_is_one_and_each_is_named():
    from attn_tui.tui.cli.parser import COMMANDS, FLAGS

    cli = page("docs/cli.md")
    blocks = command_blocks(cli)
    used = {
        match
        for block in blocks
        for match in re.findall(r"^attn-tui ([a-z]+)\b", block, flags=re.M)
    }
    files = {
        "scenarios",
        "cat_sat",
        "cat_sat_lesson",
        "my_scenario",
        "mine",
    }  # a file or a built-in
    assert used - files <= set(COMMANDS), used - files - set(COMMANDS)
    assert set(COMMANDS) - {"open"} <= used  # every command is shown
    for flag in FLAGS:
        assert f"attn-tui {flag}" in cli, flag  # and every flag of before still works


def test_the_print_example_is_what_print_writes():
    from attn_tui.core import load
    from attn_tui.core.loading.catalog import find
    from attn_tui.core.outputs.report import text_chunks

    cli = page("docs/cli.md")
    excerpt = cli.split("$ attn-tui --print cat_sat --row sat\n…\n", 1)[1].split("\n```", 1)[0]
    scenario = load(find("cat_sat"))
    assert excerpt in "".join(text_chunks(scenario, rows=[2]))


def test_what_a_newcomer_tripped_over_is_in_the_docs():
    """What a newcomer looks for: the lighter PyTorch, the offline switch, the browser test's
    Chromium, the answer key's command, the class's cap (each as the program has it)."""
    from attn_tui.tui.cli import DEFAULT_MAX_APPS

    capture = section(page("docs/capture.md"), "## Capture a layer")
    assert (
        "CUDA build" in capture
        and "pip install torch --index-url https://download.pytorch.org/whl/cpu" in capture
    )
    assert "HF_HUB_OFFLINE=1" in capture and "within 2 s" in capture
    assert "Chromium" in README.split("## A quick tour", 1)[0]
    assert "attn-tui --markdown --worksheet --answers cat_sat" in page("docs/cli.md")
    assert f"`--max-apps` apps run at once (default {DEFAULT_MAX_APPS}" in page("docs/classroom.md")


def test_the_troubleshooting_page_says_what_the_program_says():
    from attn_tui.capture.model_source import HUB_TIMEOUT
    from attn_tui.tui.screens.debugger import DebuggerScreen

    text = page("docs/troubleshooting.md")
    assert "apt-get install chromium" in text
    assert (
        "pip install torch --index-url https://download.pytorch.org/whl/cpu" in text
        and "CUDA build" in text
    )
    assert "HF_HUB_OFFLINE=1" in text and f"within {HUB_TIMEOUT:g} s" in text
    assert "blank for its first 2 seconds" in text
    width, height = DebuggerScreen.MIN_SIZE
    said = (
        f"This window is W×H: too small to draw attention in. Enlarge it to at least "
        f"{width}×{height}; nothing is lost meanwhile."
    )
    assert said in " ".join(text.split())
    assert f"at least {width} columns × {height} lines" in text


def test_the_gradients_section_shows_the_programs_own_walk_and_training():
    """The dS excerpt is what --print writes, and the training figures are the runs'."""
    from attn_tui.core import load
    from attn_tui.core.engine.training import runs
    from attn_tui.core.outputs.report import text_chunks
    from tests.conftest import SCENARIOS

    text = section(page("docs/scenarios.md"), "## Gradients: the backward pass")
    excerpt = text.split("```\n", 2)[1].split("\n```", 1)[0]
    scenario = load(SCENARIOS / "learning_to_attend.yaml")
    printed = "".join(text_chunks(scenario, rows=[4]))
    assert excerpt in printed
    scaled, unscaled = runs(scenario)[1:]
    scaled.run()
    unscaled.run()
    told = f"scaled loss falls from {scaled.losses[0]:.3f} to {scaled.losses[-1]:.3f}"
    assert told in " ".join(text.split())
    assert f"climbs to {unscaled.losses[-1]:.3f} and stalls" in " ".join(text.split())
    # (not "falls", where the loss spikes first: the spikes, at the steps they are)
    assert (
        f"spikes to {max(scaled.losses):.3f} at step {scaled.losses.index(max(scaled.losses))}"
        in " ".join(text.split())
    )
    assert (
        f"jumps to {max(unscaled.losses):.3f} at step {unscaled.losses.index(max(unscaled.losses))}"
        in " ".join(text.split())
    )


def test_the_programs_messages_point_at_pages_that_are_there():
    """A message that sends a reader to the docs names a page that exists, and holds the section
    it names (README is the short tour: most sections are in docs/)."""
    pointers = {}
    for folder in ("core", "tui", "capture"):
        for source in (ROOT / folder).rglob("*.py"):
            text = source.read_text(encoding="utf-8")
            assert "see README" not in text, source
            for name, topic in re.findall(r"\(see (docs/[\w-]+\.md): ([^)\"]+)\)", text):
                pointers[(name, topic)] = source
    assert ("docs/classroom.md", "lessons") in pointers and (
        "docs/scenarios.md",
        "the format",
    ) in pointers
    for (name, topic), source in pointers.items():
        headings = re.findall(r"^#+ (.+)$", page(name), flags=re.M)
        assert any(topic.lower() in heading.lower() for heading in headings), (source, name, topic)


def test_the_online_softmax_excerpt_is_what_print_writes():
    from attn_tui.core import load
    from attn_tui.core.outputs.report import text_chunks
    from tests.conftest import SCENARIOS

    text = section(page("docs/scenarios.md"), "## How attention really runs")
    excerpt = text.split("```\n", 2)[1].split("\n```", 1)[0]
    assert excerpt.startswith('Step 6 — Online softmax: walk "slept"')
    scenario = load(SCENARIOS / "online_softmax.yaml")
    assert excerpt in "".join(text_chunks(scenario, rows=[scenario.tokens.index("slept")]))
